"""Shape arithmetic on symbolic shape values: the ONNX operators a model computes shapes
with (`Shape -> Gather -> Unsqueeze -> Concat`, `Mul`/`Div` of sizes, `ReduceProd`),
run at import on `onnx_dims.Sizes` values.

The static importer folds these chains through the reference evaluator, since every
operand is a known array. Once a dim is symbolic (`batch`), its `Shape` is a `Sizes`:
a known array of ints and size expressions, on which the same operators compute here
with NumPy object arrays (indexing, concatenation and the `SymDim` arithmetic
operators). A result whose entries are all ints becomes a plain known array again, so
the rest of the import sees what it always saw. The walker picks a rule of `TABLE`
when a node's data operand is a `Sizes` (`rule_for`); any other operator given one
reports the node (`onnx_ctx.Ctx.operand`).

Sizes are taken to be non-negative, as sizes are: ONNX's truncating integer `Div` is
then floor division, which is what a size expression means by `//`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx
from .onnx_dims import Sizes, objects, sizes

SIZE_DTYPES = ("int64", "int32")
"""Integer dtypes shape values are computed in (ONNX's `Shape` gives int64; exporters
cast to int32 at times)."""


def _dtype(*values: Any) -> str:
    """The dtype of the first shape value among `values` (the one computed on)."""
    for v in values:
        if isinstance(v, Sizes):
            return v.dtype
    for v in values:
        if isinstance(v, np.ndarray):
            return str(v.dtype)
    return "int64"


def _axis(axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise Unmapped(f"axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _gather(c: Ctx, x: Any, indices: Any, axis: int = 0) -> Any:
    picked = c.known(indices)
    if picked is None:
        raise Unmapped(f"a Gather from the shape value {x} at traced indices")
    array = objects(x)
    axis = _axis(axis, array.ndim)
    n = array.shape[axis]
    picked = np.where(picked < 0, picked + n, picked).astype(np.int64)
    if picked.size and (picked.min() < 0 or picked.max() >= n):
        raise Unmapped(f"an index out of range for the shape value {x}")
    return sizes(np.take(array, picked, axis=axis), _dtype(x))


def _slice(c: Ctx, x: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None
           ) -> Any:
    """Python's slicing is ONNX's (bounds clamped, negatives counted from the end)."""
    array = objects(x)
    b, e = c.ints(starts, "starts"), c.ints(ends, "ends")
    ax = [_axis(a, array.ndim) for a in c.ints(axes, "axes")] if axes is not None \
        else list(range(len(b)))
    st = c.ints(steps, "steps") if steps is not None else [1] * len(b)
    if 0 in st:
        raise Unmapped("a step of 0")
    index = [slice(None)] * array.ndim
    for a, lo, hi, s in zip(ax, b, e, st, strict=True):
        index[a] = slice(lo, hi, s)
    return sizes(array[tuple(index)], _dtype(x))


def _unsqueeze(c: Ctx, x: Any, axes: Any) -> Any:
    array = objects(x)
    picked = c.ints(axes, "axes")
    rank = array.ndim + len(picked)
    return sizes(np.expand_dims(array, tuple(sorted(_axis(a, rank) for a in picked))),
                 _dtype(x))


def _squeeze(c: Ctx, x: Any, axes: Any = None) -> Any:
    array = objects(x)
    picked = None if axes is None else tuple(_axis(a, array.ndim)
                                             for a in c.ints(axes, "axes"))
    if picked is not None and any(array.shape[a] != 1 for a in picked):
        raise Unmapped(f"axes {list(picked)} of the shape value {x} are not of size 1")
    return sizes(np.squeeze(array, picked), _dtype(x))


def _concat(c: Ctx, *xs: Any, axis: int) -> Any:
    arrays = [objects(x) for x in xs]
    return sizes(np.concatenate(arrays, axis=_axis(axis, arrays[0].ndim)), _dtype(*xs))


def _reshape(c: Ctx, x: Any, shape: Any, allowzero: int = 0) -> Any:
    array = objects(x)
    dims = c.ints(shape, "the target shape")
    if not allowzero:
        dims = [array.shape[i] if d == 0 and i < array.ndim else d for i, d in enumerate(dims)]
    try:
        return sizes(array.reshape(dims), _dtype(x))
    except ValueError:
        raise Unmapped(f"the shape value {x} cannot be reshaped to {dims}") from None


def _cast(c: Ctx, x: Any, to: int, saturate: int = 1, round_mode: str = "up") -> Any:
    dtype = c.dtype(to)
    if dtype not in SIZE_DTYPES:
        raise Unmapped(f"a Cast of the shape value {x} to {dtype}: only integer shape "
                       "arithmetic keeps sizes symbolic")
    return Sizes(objects(x), dtype)


def _trunc_div(a: Any, b: Any) -> Any:
    """ONNX's integer Div (toward zero); on size expressions, floor division (sizes are
    non-negative). A divisor of 0 or below is refused rather than guessed."""
    if isinstance(b, int) and b <= 0:
        raise Unmapped(f"a size divided by {b}")
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b) if a < 0 else a // b
    return a // b


def _min_max(pick: Callable[..., int]) -> Callable[[Any, Any], Any]:
    """Max/Min: ints compare; a size expression only equals itself (which of two
    different ones is larger depends on the sizes)."""
    def run(a: Any, b: Any) -> Any:
        if isinstance(a, int) and isinstance(b, int):
            return pick(a, b)
        if a == b:
            return a
        raise Unmapped(f"which of {a} and {b} is larger depends on the sizes")
    return run


def _elementwise(fn: Callable[[Any, Any], Any]) -> Rule:
    """A binary (or variadic) integer operator, broadcast over shape values."""
    ufunc = np.frompyfunc(fn, 2, 1)

    def rule(c: Ctx, *xs: Any) -> Any:
        arrays = [objects(x) for x in xs]
        try:
            out = functools.reduce(ufunc, arrays)
        except ValueError:
            raise Unmapped("shape values that do not broadcast") from None
        return sizes(np.asarray(out, object), _dtype(*xs))
    return rule


def _same_size(a: Any, b: Any) -> bool:
    """Whether two size entries are equal: ints compare; a size expression equals
    itself and no negative int (sizes are not negative); anything else depends on the
    sizes."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if a == b:
        return True
    if isinstance(a, int) and a < 0 or isinstance(b, int) and b < 0:
        return False
    raise Unmapped(f"whether {a} equals {b} depends on the sizes")


def _equal(c: Ctx, x: Any, y: Any) -> np.ndarray:
    """`Equal` on shape values gives a known bool array (exporters test for -1 entries
    before an `Expand`: `Where(Equal(shape, -1), 1, shape)`)."""
    try:
        out = np.frompyfunc(_same_size, 2, 1)(objects(x), objects(y))
    except ValueError:
        raise Unmapped("shape values that do not broadcast") from None
    return np.asarray(out, bool)


def _where(c: Ctx, condition: Any, x: Any, y: Any) -> Any:
    """`Where` choosing between shape values by a known condition."""
    known = c.known(condition)
    if known is None:
        raise Unmapped("a Where between shape values by a traced condition")
    try:
        out = np.where(known.astype(bool), objects(x), objects(y))
    except ValueError:
        raise Unmapped("shape values that do not broadcast") from None
    return sizes(out, _dtype(x, y))


def _mod(c: Ctx, x: Any, y: Any, fmod: int = 0) -> Any:
    """With non-negative sizes, C's fmod and Python's modulo agree; ints fold exactly."""
    def run(a: Any, b: Any) -> Any:
        if fmod and isinstance(a, int) and isinstance(b, int):
            return int(np.fmod(a, b))
        return a % b
    return _elementwise(run)(c, x, y)


def _reduction(fn: Callable[[Any, Any], Any]) -> Rule:
    """ReduceProd/ReduceSum of a shape value (a flatten's element count)."""
    def rule(c: Ctx, x: Any, axes: Any = None, keepdims: int = 1,
             noop_with_empty_axes: int = 0) -> Any:
        array = objects(x)
        picked = [] if axes is None else [_axis(a, array.ndim) for a in c.ints(axes, "axes")]
        if not picked:
            if noop_with_empty_axes:
                return x
            picked = list(range(array.ndim))
        out = np.empty(tuple(1 if i in picked else d for i, d in enumerate(array.shape)),
                       object)
        for index in np.ndindex(out.shape):
            parts = array[tuple(slice(None) if i in picked else k
                                for i, k in enumerate(index))].ravel()
            out[index] = functools.reduce(fn, parts, 1 if fn is operator.mul else 0)
        if not keepdims:
            out = out.reshape([d for i, d in enumerate(out.shape) if i not in picked])
        return sizes(out, _dtype(x))
    return rule


TABLE: dict[str, tuple[Rule, int | None]] = {
    "Gather": (_gather, 0), "Slice": (_slice, 0), "Unsqueeze": (_unsqueeze, 0),
    "Squeeze": (_squeeze, 0), "Concat": (_concat, None), "Reshape": (_reshape, 0),
    "Cast": (_cast, 0), "Identity": (lambda c, x: x, 0),
    "Add": (_elementwise(operator.add), None), "Sub": (_elementwise(operator.sub), None),
    "Mul": (_elementwise(operator.mul), None), "Div": (_elementwise(_trunc_div), None),
    "Mod": (_mod, None), "Max": (_elementwise(_min_max(max)), None),
    "Min": (_elementwise(_min_max(min)), None),
    "ReduceProd": (_reduction(operator.mul), 0), "ReduceSum": (_reduction(operator.add), 0),
    "Equal": (_equal, None), "Where": (_where, None),
}
"""ONNX op_type -> (rule on shape values, the input position whose being a `Sizes`
selects it; None: any input). `Reshape` of a tensor *to* a `Sizes` shape is the
ordinary rule's (`onnx_shape.py`), as are `Expand` and `ConstantOfShape`."""


def rule_for(op_type: str, inputs: list[Any]) -> Rule | None:
    """The shape-arithmetic rule for a node of the default domain whose data input is a
    symbolic shape value, or None (the ordinary rule applies)."""
    entry = TABLE.get(op_type)
    if entry is None:
        return None
    rule, position = entry
    data = inputs if position is None else inputs[position:position + 1]
    return rule if any(isinstance(v, Sizes) for v in data) else None

