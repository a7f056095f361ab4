"""NumPy's shape, joining, splitting and creation functions on traced arrays, and the
view steps of the shape functions that return views.

Functions NumPy answers with a view (`transpose`, `expand_dims`, `flip`, `split`,
`broadcast_to`, `diagonal`) return views here too (`NpArray.view` with a step below),
so in-place updates reach the arrays they alias; `reshape`/`ravel` return NumPy's
layout-dependent maybe-views. Result shapes and dtypes come from NumPy (`Call.shape`,
`Call.examples`). `SHAPE` is the function table of this family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from .common import Rule, Unmapped, spec_of
from .numpy_array import NpArray, Session
from .numpy_context import NO, Call, axes_of


def _shape(v: SSAValue) -> tuple[int, ...]:
    return spec_of(v).shape  # type: ignore[return-value]


# ---- view steps (see `numpy_array.ViewStep`) ----

@dataclass(frozen=True)
class PermuteStep:
    axes: tuple[int, ...]

    def apply(self, s: Session, x: SSAValue) -> SSAValue:
        if self.axes == tuple(range(len(self.axes))):
            return x
        return s.emit("permute_dims", x, axes=list(self.axes))

    def put(self, s: Session, x: SSAValue, new: SSAValue) -> SSAValue:
        return PermuteStep(tuple(int(i) for i in np.argsort(self.axes))).apply(s, new)


@dataclass(frozen=True)
class ReshapeStep:
    """expand_dims/squeeze/atleast_nd: only unit dims change, so always a view."""

    shape: tuple[int, ...]

    def apply(self, s: Session, x: SSAValue) -> SSAValue:
        return x if _shape(x) == self.shape else s.emit("reshape", x, shape=list(self.shape))

    def put(self, s: Session, x: SSAValue, new: SSAValue) -> SSAValue:
        return ReshapeStep(_shape(x)).apply(s, new)


@dataclass(frozen=True)
class FlipStep:
    axes: tuple[int, ...]

    def apply(self, s: Session, x: SSAValue) -> SSAValue:
        return s.emit("flip", x, axis=list(self.axes)) if self.axes else x

    def put(self, s: Session, x: SSAValue, new: SSAValue) -> SSAValue:
        return self.apply(s, new)


@dataclass(frozen=True)
class ReadOnlyStep:
    """A read-only view (np.broadcast_to, np.diagonal): one op; NumPy refuses writes."""

    op: str
    attrs: tuple[tuple[str, Any], ...]

    def apply(self, s: Session, x: SSAValue) -> SSAValue:
        return s.emit(self.op, x, **dict(self.attrs))

    def put(self, s: Session, x: SSAValue, new: SSAValue) -> SSAValue:
        raise ValueError(f"{s.where}: assignment destination is read-only (a view made by "
                         f"np.{self.op}); copy it first")


# ---- views and reshapes ----

def _array(c: Call, a: Any) -> NpArray:
    return c.s.array(a)


def _reshape(c: Call, a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
             copy: Any = None) -> NpArray:
    if order != "C":
        raise Unmapped("order")
    x = _array(c, a)
    v = x.value if x.shape == c.shape else c.emit("reshape", x.value, shape=list(c.shape))
    return c.s.new(v) if copy else x.maybe_view(v)


def _ravel(c: Call, a: Any, order: str = "C") -> NpArray:
    return _reshape(c, a, c.shape, order)


def _transpose(c: Call, a: Any, axes: Any = None) -> NpArray:
    x = _array(c, a)
    perm = tuple(range(x.ndim))[::-1] if axes is None else tuple(int(i) % x.ndim for i in axes)
    return x.view(PermuteStep(perm))


def _matrix_transpose(c: Call, x: Any) -> NpArray:
    arr = _array(c, x)
    perm = list(range(arr.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return arr.view(PermuteStep(tuple(perm)))


def _swapaxes(c: Call, a: Any, axis1: int, axis2: int) -> NpArray:
    x = _array(c, a)
    perm = list(range(x.ndim))
    i, j = axis1 % x.ndim, axis2 % x.ndim
    perm[i], perm[j] = perm[j], perm[i]
    return x.view(PermuteStep(tuple(perm)))


def _moveaxis(c: Call, a: Any, source: Any, destination: Any) -> NpArray:
    x = _array(c, a)
    src, dst = axes_of(source, x.ndim), axes_of(destination, x.ndim)
    assert src is not None and dst is not None
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.view(PermuteStep(tuple(order)))


def _unit_dims(c: Call, a: Any, axis: Any = None) -> NpArray:
    return _array(c, a).view(ReshapeStep(c.shape))


def _atleast(c: Call, *arys: Any) -> Any:
    outs = [_array(c, a).view(ReshapeStep(o.shape)) for a, o in zip(arys, c.examples)]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _broadcast_to(c: Call, array: Any, shape: Any, subok: bool = False) -> NpArray:
    return _array(c, array).view(ReadOnlyStep("broadcast_to", (("shape", c.shape),)))


def _broadcast_arrays(c: Call, *args: Any, subok: bool = False) -> tuple[NpArray, ...]:
    return tuple(_array(c, a).view(ReadOnlyStep("broadcast_to", (("shape", o.shape),)))
                 for a, o in zip(args, c.examples))


def _diagonal(c: Call, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> NpArray:
    attrs = (("offset", offset), ("axis1", axis1), ("axis2", axis2))
    return _array(c, a).view(ReadOnlyStep("diagonal", attrs))


def _diag(c: Call, v: Any, k: int = 0) -> NpArray:
    x = _array(c, v)
    if x.ndim == 2:
        return _diagonal(c, x, k)
    # a vector on the k-th diagonal of a square matrix, zeros elsewhere
    n = c.shape[0]
    on_diagonal = c.s.lift(np.eye(n, k=k, dtype=bool))
    col = c.emit("pad", x.value, pad_width=[max(k, 0), max(-k, 0)])
    zero = c.s.lift(0, c.dtype)
    return c.new(c.emit("where", on_diagonal, c.emit("expand_dims", col, axis=[0]), zero))


def _diff(c: Call, a: Any, n: int = 1, axis: int = -1, prepend: Any = NO,
          append: Any = NO) -> NpArray:
    if prepend is not NO or append is not NO:
        raise Unmapped("prepend" if prepend is not NO else "append")
    x = _array(c, a)
    ax = axis % x.ndim
    for _ in range(n):
        head = (slice(None),) * ax
        hi, lo = x[head + (slice(1, None),)], x[head + (slice(None, -1),)]
        x = np.not_equal(hi, lo) if x.dtype == np.bool_ else np.subtract(hi, lo)
    return x


def _flip(c: Call, m: Any, axis: Any = None) -> NpArray:
    x = _array(c, m)
    fixed = {"fliplr": 1, "flipud": 0}.get(c.name, axis)
    axes = axes_of(fixed, x.ndim)
    return x.view(FlipStep(tuple(range(x.ndim)) if axes is None else tuple(axes)))


# ---- joining and splitting ----

def _atleast_value(c: Call, a: Any, n: int) -> SSAValue:
    """NumPy's atleast_{1,2,3}d of one operand, in the result dtype."""
    v = c.val(a)
    shape = spec_of(v).shape
    if len(shape) >= n:
        return v
    pads = {1: {0: (1,)}, 2: {0: (1, 1), 1: (1,) + shape}, 3: {0: (1, 1, 1), 1: (1,) + shape
                                                                + (1,), 2: shape + (1,)}}
    return c.emit("reshape", v, shape=list(pads[n][len(shape)]))


def _concatenate(c: Call, arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                 casting: str = "same_kind") -> NpArray:
    values = [c.val(a) for a in arrays]
    if axis is None:
        values, axis = [c.emit("reshape", v, shape=[-1]) for v in values], 0
    return c.new(c.emit("concat", values, axis=int(axis)))


def _stack(c: Call, arrays: Any, axis: int = 0, out: Any = None, *, dtype: Any = None,
           casting: str = "same_kind") -> NpArray:
    return c.new(c.emit("stack", [c.val(a) for a in arrays], axis=int(axis)))


def _hstack(c: Call, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> NpArray:
    if c.name == "column_stack":
        values = [c.val(a) for a in tup]
        values = [c.emit("reshape", v, shape=[-1, 1]) if len(spec_of(v).shape) < 2 else v
                  for v in values]
        return c.new(c.emit("concat", values, axis=1))
    n, axis = {"hstack": (1, 1), "vstack": (2, 0), "dstack": (3, 2)}[c.name]
    values = [_atleast_value(c, a, n) for a in tup]
    if c.name == "hstack" and len(spec_of(values[0]).shape) == 1:
        axis = 0
    return c.new(c.emit("concat", values, axis=axis))


def _split(c: Call, ary: Any, indices_or_sections: Any, axis: int = 0) -> list[NpArray]:
    x = _array(c, ary)
    ax = {"vsplit": 0, "dsplit": 2, "hsplit": 1 if x.ndim > 1 else 0}.get(c.name, axis) % x.ndim
    pieces, start = [], 0
    for o in c.examples:
        n = o.shape[ax]
        pieces.append(x[(slice(None),) * ax + (slice(start, start + n),)])
        start += n
    return pieces


def _tile(c: Call, A: Any, reps: Any) -> NpArray:
    return c.new(c.emit("tile", c.val(A), reps=list(np.atleast_1d(reps).astype(int))))


def _repeat(c: Call, a: Any, repeats: Any, axis: Any = None) -> NpArray:
    if isinstance(repeats, NpArray) or np.size(repeats) != 1:
        raise Unmapped("repeats")
    x = c.val(a)
    ax = None if axis is None else int(axis) % max(len(spec_of(x).shape), 1)
    return c.new(c.emit("repeat", x, repeats=int(np.ravel(repeats)[0]), axis=ax))


def _roll(c: Call, a: Any, shift: Any, axis: Any = None) -> NpArray:
    x = c.val(a)
    shifts = [int(s) for s in np.atleast_1d(shift)]
    axes = axes_of(axis, len(spec_of(x).shape))
    if axes is not None and len(shifts) != len(axes):
        shifts = [int(s) for s in np.broadcast_to(shifts, len(axes))]
    return c.new(c.emit("roll", x, shift=shifts, axis=axes))


def _pad(c: Call, array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> NpArray:
    if mode not in ("constant", "reflect", "edge"):
        raise Unmapped("mode")
    value = kwargs.pop("constant_values", 0)
    if kwargs.pop("reflect_type", "even") != "even" or kwargs:
        raise Unmapped(", ".join(kwargs) or "reflect_type")
    if isinstance(value, NpArray) or np.size(value) != 1:
        raise Unmapped("constant_values")
    x = c.val(array)
    rank = len(spec_of(x).shape)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (rank, 2)).reshape(-1)
    fill = float(np.asarray(value).astype(c.dtype).reshape(()))
    return c.new(c.emit("pad", x, pad_width=[int(w) for w in widths], mode=mode, value=fill))


def _tril(c: Call, m: Any, k: int = 0) -> NpArray:
    x = c.val(m)
    if len(spec_of(x).shape) < 2:
        raise Unmapped("m")
    return c.new(c.emit(c.name, x, k=int(k)))


# ---- creation from traced arrays ----

def _zeros_like(c: Call, a: Any, dtype: Any = None, order: str = "K", subok: bool = True,
                shape: Any = None, *, device: Any = None) -> NpArray:
    op = "ones" if c.name == "ones_like" else "zeros"
    return c.s.new(c.emit(op, shape=list(c.shape), dtype=c.s.dtype_name(c.dtype)))


def _full_like(c: Call, a: Any, fill_value: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *, device: Any = None) -> NpArray:
    if isinstance(fill_value, NpArray) or np.ndim(fill_value):
        raise Unmapped("fill_value")
    fill = np.asarray(fill_value).astype(c.dtype)
    if c.dtype.kind in "iu" and abs(int(fill)) >= 2**53:
        return c.s.new(c.emit("broadcast_to", c.s.lift(fill), shape=list(c.shape)))
    return c.s.new(c.emit("full", shape=list(c.shape), fill_value=float(fill),
                          dtype=c.s.dtype_name(c.dtype)))


def _copy(c: Call, a: Any, order: str = "K", subok: bool = False) -> NpArray:
    return c.s.new(c.s.lift(a))


def _astype(c: Call, x: Any, dtype: Any, *, copy: bool = True, device: Any = None) -> NpArray:
    if not copy and isinstance(x, NpArray) and x.dtype == c.dtype:
        return x
    return c.new(c.val(x))


SHAPE: dict[str, Rule] = {
    "reshape": _reshape, "ravel": _ravel, "transpose": _transpose, "permute_dims": _transpose,
    "matrix_transpose": _matrix_transpose, "swapaxes": _swapaxes, "moveaxis": _moveaxis,
    "expand_dims": _unit_dims, "squeeze": _unit_dims, "atleast_1d": _atleast,
    "atleast_2d": _atleast, "atleast_3d": _atleast, "broadcast_to": _broadcast_to,
    "broadcast_arrays": _broadcast_arrays, "diagonal": _diagonal, "diag": _diag, "diff": _diff,
    "flip": _flip, "fliplr": _flip, "flipud": _flip, "concatenate": _concatenate,
    "concat": _concatenate, "stack": _stack, "hstack": _hstack, "vstack": _hstack,
    "dstack": _hstack, "column_stack": _hstack, "split": _split, "array_split": _split,
    "hsplit": _split, "vsplit": _split, "dsplit": _split, "tile": _tile, "repeat": _repeat,
    "roll": _roll, "pad": _pad, "tril": _tril, "triu": _tril, "zeros_like": _zeros_like,
    "ones_like": _zeros_like, "empty_like": _zeros_like, "full_like": _full_like,
    "copy": _copy, "astype": _astype,
}
"""NumPy function name -> its rule (see `numpy_context`)."""
