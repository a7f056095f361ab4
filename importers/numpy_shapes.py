"""NumPy's shape, joining, selection and sorting functions on traced arrays.

Functions NumPy answers with a view (`transpose`, `expand_dims`, `flip`, `split`,
`broadcast_to`, `diagonal`) return views here too, so in-place updates reach the
arrays they alias; `reshape`/`ravel` return NumPy's layout-dependent maybe-views.
Result shapes and dtypes come from NumPy (`Call.out`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from .common import spec_of
from .numpy_array import NpArray
from .numpy_functions import NO, Call, Unsupported, axes_of, register
from .numpy_index import FlipStep, PermuteStep, ReadOnlyStep, ReshapeStep, index_value


def _array(c: Call, a: Any) -> NpArray:
    return c.s.array(a)


# ---- views and reshapes ----

@register("reshape")
def _reshape(c: Call, a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
             copy: Any = None) -> NpArray:
    if order != "C":
        raise Unsupported("order")
    x = _array(c, a)
    v = x.value if x.shape == c.shape else c.emit("reshape", [x.value], shape=list(c.shape))
    return c.s.new(v) if copy else x.maybe_view(v)


@register("ravel")
def _ravel(c: Call, a: Any, order: str = "C") -> NpArray:
    return _reshape(c, a, c.shape, order)


@register("transpose", "permute_dims")
def _transpose(c: Call, a: Any, axes: Any = None) -> NpArray:
    x = _array(c, a)
    perm = tuple(range(x.ndim))[::-1] if axes is None else tuple(int(i) % x.ndim for i in axes)
    return x.view(PermuteStep(perm))


@register("matrix_transpose")
def _matrix_transpose(c: Call, x: Any) -> NpArray:
    arr = _array(c, x)
    perm = list(range(arr.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return arr.view(PermuteStep(tuple(perm)))


@register("swapaxes")
def _swapaxes(c: Call, a: Any, axis1: int, axis2: int) -> NpArray:
    x = _array(c, a)
    perm = list(range(x.ndim))
    i, j = axis1 % x.ndim, axis2 % x.ndim
    perm[i], perm[j] = perm[j], perm[i]
    return x.view(PermuteStep(tuple(perm)))


@register("moveaxis")
def _moveaxis(c: Call, a: Any, source: Any, destination: Any) -> NpArray:
    x = _array(c, a)
    src, dst = axes_of(source, x.ndim), axes_of(destination, x.ndim)
    assert src is not None and dst is not None
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.view(PermuteStep(tuple(order)))


@register("expand_dims", "squeeze")
def _unit_dims(c: Call, a: Any, axis: Any = None) -> NpArray:
    return _array(c, a).view(ReshapeStep(c.shape))


@register("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(c: Call, *arys: Any) -> Any:
    outs = [_array(c, a).view(ReshapeStep(o.shape)) for a, o in zip(arys, c.out)]
    return outs[0] if len(outs) == 1 else tuple(outs)


@register("broadcast_to")
def _broadcast_to(c: Call, array: Any, shape: Any, subok: bool = False) -> NpArray:
    return _array(c, array).view(ReadOnlyStep("broadcast_to", (("shape", c.shape),)))


@register("broadcast_arrays")
def _broadcast_arrays(c: Call, *args: Any, subok: bool = False) -> tuple[NpArray, ...]:
    return tuple(_array(c, a).view(ReadOnlyStep("broadcast_to", (("shape", o.shape),)))
                 for a, o in zip(args, c.out))


@register("diagonal")
def _diagonal(c: Call, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> NpArray:
    attrs = (("offset", offset), ("axis1", axis1), ("axis2", axis2))
    return _array(c, a).view(ReadOnlyStep("diagonal", attrs))


@register("diag")
def _diag(c: Call, v: Any, k: int = 0) -> NpArray:
    x = _array(c, v)
    if x.ndim == 2:
        return _diagonal(c, x, k)
    # a vector on the k-th diagonal of a square matrix, zeros elsewhere
    n = c.shape[0]
    on_diagonal = c.s.lift(np.eye(n, k=k, dtype=bool))
    col = c.emit("pad", [x.value], pad_width=[max(k, 0), max(-k, 0)])
    zero = c.s.lift(0, c.dtype)
    return c.new(c.emit("where", [on_diagonal, c.emit("expand_dims", [col], axis=[0]), zero]))


@register("diff")
def _diff(c: Call, a: Any, n: int = 1, axis: int = -1, prepend: Any = NO,
          append: Any = NO) -> NpArray:
    if prepend is not NO or append is not NO:
        raise Unsupported("prepend" if prepend is not NO else "append")
    x = _array(c, a)
    ax = axis % x.ndim
    for _ in range(n):
        head = (slice(None),) * ax
        hi, lo = x[head + (slice(1, None),)], x[head + (slice(None, -1),)]
        x = np.not_equal(hi, lo) if x.dtype == np.bool_ else np.subtract(hi, lo)
    return x


@register("flip", "fliplr", "flipud")
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
    return c.emit("reshape", [v], shape=list(pads[n][len(shape)]))


@register("concatenate", "concat")
def _concatenate(c: Call, arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                 casting: str = "same_kind") -> NpArray:
    values = [c.val(a) for a in arrays]
    if axis is None:
        values, axis = [c.emit("reshape", [v], shape=[-1]) for v in values], 0
    return c.new(c.emit("concat", [values], axis=int(axis)))


@register("stack")
def _stack(c: Call, arrays: Any, axis: int = 0, out: Any = None, *, dtype: Any = None,
           casting: str = "same_kind") -> NpArray:
    return c.new(c.emit("stack", [[c.val(a) for a in arrays]], axis=int(axis)))


@register("hstack", "vstack", "dstack", "column_stack")
def _hstack(c: Call, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> NpArray:
    if c.name == "column_stack":
        values = [c.val(a) for a in tup]
        values = [c.emit("reshape", [v], shape=[-1, 1]) if len(spec_of(v).shape) < 2 else v
                  for v in values]
        return c.new(c.emit("concat", [values], axis=1))
    n, axis = {"hstack": (1, 1), "vstack": (2, 0), "dstack": (3, 2)}[c.name]
    values = [_atleast_value(c, a, n) for a in tup]
    if c.name == "hstack" and len(spec_of(values[0]).shape) == 1:
        axis = 0
    return c.new(c.emit("concat", [values], axis=axis))


@register("split", "array_split", "hsplit", "vsplit", "dsplit")
def _split(c: Call, ary: Any, indices_or_sections: Any, axis: int = 0) -> list[NpArray]:
    x = _array(c, ary)
    ax = {"vsplit": 0, "dsplit": 2, "hsplit": 1 if x.ndim > 1 else 0}.get(c.name, axis) % x.ndim
    pieces, start = [], 0
    for o in c.out:
        n = o.shape[ax]
        pieces.append(x[(slice(None),) * ax + (slice(start, start + n),)])
        start += n
    return pieces


@register("tile")
def _tile(c: Call, A: Any, reps: Any) -> NpArray:
    return c.new(c.emit("tile", [c.val(A)], reps=list(np.atleast_1d(reps).astype(int))))


@register("repeat")
def _repeat(c: Call, a: Any, repeats: Any, axis: Any = None) -> NpArray:
    if isinstance(repeats, NpArray) or np.size(repeats) != 1:
        raise Unsupported("repeats")
    x = c.val(a)
    ax = None if axis is None else int(axis) % max(len(spec_of(x).shape), 1)
    return c.new(c.emit("repeat", [x], repeats=int(np.ravel(repeats)[0]), axis=ax))


@register("roll")
def _roll(c: Call, a: Any, shift: Any, axis: Any = None) -> NpArray:
    x = c.val(a)
    shifts = [int(s) for s in np.atleast_1d(shift)]
    axes = axes_of(axis, len(spec_of(x).shape))
    if axes is not None and len(shifts) != len(axes):
        shifts = [int(s) for s in np.broadcast_to(shifts, len(axes))]
    return c.new(c.emit("roll", [x], shift=shifts, axis=axes))


@register("pad")
def _pad(c: Call, array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> NpArray:
    if mode not in ("constant", "reflect", "edge"):
        raise Unsupported("mode")
    value = kwargs.pop("constant_values", 0)
    if kwargs.pop("reflect_type", "even") != "even" or kwargs:
        raise Unsupported(", ".join(kwargs) or "reflect_type")
    if isinstance(value, NpArray) or np.size(value) != 1:
        raise Unsupported("constant_values")
    x = c.val(array)
    rank = len(spec_of(x).shape)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (rank, 2)).reshape(-1)
    fill = float(np.asarray(value).astype(c.dtype).reshape(()))
    return c.new(c.emit("pad", [x], pad_width=[int(w) for w in widths], mode=mode, value=fill))


@register("tril", "triu")
def _tril(c: Call, m: Any, k: int = 0) -> NpArray:
    x = c.val(m)
    if len(spec_of(x).shape) < 2:
        raise Unsupported("m")
    return c.new(c.emit(c.name, [x], k=int(k)))


# ---- selection ----

@register("where")
def _where(c: Call, condition: Any, x: Any = NO, y: Any = NO) -> NpArray:
    if x is NO and y is NO:
        raise c.s.trace_error("numpy.where with one argument returns the indices of true "
                              "elements, a data-dependent shape; pass x and y")
    cond = c.s.lift(condition, np.bool_)
    return c.new(c.emit("where", [cond, c.val(x), c.val(y)]))


def _scalar(b: Any) -> bool:
    return not isinstance(b, NpArray) and np.ndim(b) == 0


@register("clip")
def _clip(c: Call, a: Any, a_min: Any = NO, a_max: Any = NO, out: Any = None, *, min: Any = NO,
          max: Any = NO, **kwargs: Any) -> NpArray:
    if kwargs:
        raise Unsupported(", ".join(kwargs))
    lo = a_min if a_min is not NO else (None if min is NO else min)
    hi = a_max if a_max is not NO else (None if max is NO else max)
    x = c.val(a)
    if c.dtype.kind == "f" and _scalar(lo) and _scalar(hi):
        # bounds rounded to the array's dtype first, as NumPy compares in that dtype
        def bound(b: Any) -> float | None:
            return None if b is None else float(np.asarray(b).astype(c.dtype))
        return c.new(c.emit("clip", [x], min=bound(lo), max=bound(hi)))
    if lo is not None:
        x = c.emit("maximum", [x, c.val(lo)])
    if hi is not None:
        x = c.emit("minimum", [x, c.val(hi)])
    return c.new(x)


@register("take")
def _take(c: Call, a: Any, indices: Any, axis: Any = None, out: Any = None,
          mode: str = "raise") -> NpArray:
    x = c.val(a)
    if axis is None:
        x, axis = c.emit("reshape", [x], shape=[-1]), 0
    shape = spec_of(x).shape
    ax = int(axis) % len(shape)
    n = shape[ax]
    if mode != "raise":
        if isinstance(indices, NpArray):
            raise Unsupported("mode")
        idx = np.asarray(indices)
        indices = np.clip(idx, 0, n - 1) if mode == "clip" else np.mod(idx, n)
    idx = index_value(c.s, indices, n, ax)
    return c.new(c.emit("take", [x, c.s.lift(idx)], axis=ax))


@register("take_along_axis")
def _take_along_axis(c: Call, arr: Any, indices: Any, axis: Any = -1) -> NpArray:
    x = c.val(arr)
    if axis is None:
        x, axis = c.emit("reshape", [x], shape=[-1]), 0
    shape = spec_of(x).shape
    ax = int(axis) % len(shape)
    idx = index_value(c.s, indices, shape[ax], ax)
    return c.new(c.emit("take_along_axis", [x, c.s.lift(idx)], axis=ax))


@register("sort", "argsort")
def _sort(c: Call, a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
          stable: Any = None) -> NpArray:
    if order is not None:
        raise Unsupported("order")
    x = c.s.lift(a)
    if spec_of(x).dtype == "bool":
        raise Unsupported("a")
    if axis is None:
        x, axis = c.emit("reshape", [x], shape=[-1]), -1
    return c.new(c.emit(c.name, [x], axis=int(axis)))


@register("copyto")
def _copyto(c: Call, dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    if not isinstance(dst, NpArray):
        raise c.s.trace_error("numpy.copyto into a NumPy array cannot be traced")
    v = c.s.lift(src, dst.dtype)
    if where is not True:
        v = c.emit("where", [c.s.lift(where, np.bool_), v, dst.value])
    if spec_of(v).shape != dst.shape:
        v = c.emit("broadcast_to", [v], shape=list(dst.shape))
    dst.assign(v)
    return None
