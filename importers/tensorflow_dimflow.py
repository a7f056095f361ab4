"""How dynamic sizes flow through TF ops: `DIM_RULES`, raw op -> the sizes of its
results as expressions of the input dims.

A rule is called as `rule(ctx, shapes, **attrs)`, `shapes` holding each input's sizes
(ints and `SymDim`s; None where not known), after the op's import rule ran, and gives
its first result's sizes (or a list, one per result). An entry may be None where TF's
own static shape knows the size (a conv's spatial dims): `merged` fills those in. A
rule only says what the op's definition implies (an elementwise op keeps its operand's
sizes, a matmul takes rows from one operand and columns from the other); where that is
not a plain expression (a partial slice of a dynamic dim, broadcasting two different
dynamic sizes) it gives None, so a `tf.shape` of the result is reported, never guessed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from ivy_ir.dialect.symbolic import SymDim

from .dynamic import arange_count
from .tensorflow_ctx import Ctx, Sizes
from .tensorflow_math import ACTIVATIONS, BINARY, UNARY
from .tensorflow_reduce import REDUCE
from .tensorflow_shape import strided_index

Size = int | SymDim | None
Shape = tuple[Size, ...]
DimRule = Callable[..., Any]


def merged(static: Any, sizes: Shape | None, typed: Sequence[int | None]) -> Shape | None:
    """A result's sizes: TF's static size (or the IR type's) where known, else the
    rule's; None when a dynamic size stays unnamed."""
    if sizes is None or static.rank is None or len(sizes) != static.rank:
        return None
    out: list[Size] = []
    for s, t, d in zip(static.as_list(), typed, sizes):
        out.append(s if s is not None else t if t is not None else d)
    return None if None in out else tuple(out)


def entries(c: Ctx, value: Any, what: str) -> list[int | SymDim]:
    """A shape-like operand's entries: a known array's ints or a `Sizes`' entries."""
    if isinstance(value, Sizes):
        return list(value.entries.flat)
    return c.ints(value, what)


def broadcast(shapes: Sequence[Shape | None]) -> Shape | None:
    """NumPy broadcasting of sizes: per axis the one size other than 1 (an int wins over
    a dynamic size, which broadcasting requires equal to it or 1)."""
    known = [s for s in shapes if s is not None]
    if len(known) < len(shapes):
        return None
    rank = max(len(s) for s in known)
    out: list[Size] = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in known if axis - rank + len(s) >= 0]
        ints = {d for d in dims if isinstance(d, int) and d != 1}
        syms = {d for d in dims if isinstance(d, SymDim)}
        if ints:
            out.append(ints.pop() if len(ints) == 1 else None)
        elif None in dims or len(syms) > 1:
            out.append(None)
        else:
            out.append(syms.pop() if syms else 1)
    return tuple(out)


def _same(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    return shapes[0]


def _broadcast_from(first: int) -> DimRule:
    return lambda c, shapes, **_: broadcast(shapes[first:])


def _matmul(c: Ctx, shapes: list[Shape | None], *, transpose_a: bool = False,
            transpose_b: bool = False, **_: Any) -> Shape | None:
    a, b = shapes
    if a is None or b is None:
        return None
    return (a[1] if transpose_a else a[0], b[0] if transpose_b else b[1])


def _batch_matmul(c: Ctx, shapes: list[Shape | None], *, adj_x: bool = False,
                  adj_y: bool = False, **_: Any) -> Shape | None:
    x, y = shapes
    if x is None or y is None:
        return None
    batch = broadcast([x[:-2], y[:-2]])
    if batch is None:
        return None
    return (*batch, x[-1] if adj_x else x[-2], y[-2] if adj_y else y[-1])


def _einsum(c: Ctx, shapes: list[Shape | None], *, equation: str, **_: Any) -> Shape | None:
    """Each output letter's size from an operand that has it; `...` broadcast."""
    ins, out = equation.replace(" ", "").split("->")
    letters: dict[str, list[Size]] = {}
    ellipses: list[Shape] = []
    for spec, shape in zip(ins.split(","), shapes):
        if shape is None:
            return None
        left, _, right = spec.partition("...")
        middle = len(shape) - len(left) - len(right) if "..." in spec else 0
        for ch, d in zip(left, shape[:len(left)]):
            letters.setdefault(ch, []).append(d)
        for ch, d in zip(right, shape[len(left) + middle:]):
            letters.setdefault(ch, []).append(d)
        ellipses.append(shape[len(left):len(left) + middle])
    sizes = {ch: (broadcast([(d,) for d in ds]) or (None,))[0] for ch, ds in letters.items()}
    left, _, right = out.partition("...")
    middle = broadcast(ellipses) if "..." in out else ()
    if middle is None:
        return None
    return (*(sizes[ch] for ch in left), *middle, *(sizes[ch] for ch in right))


def _transpose(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    x = shapes[0]
    return None if x is None else tuple(x[p] for p in c.ints(c.inputs[1], "perm"))


def _reshape(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    """The target, a -1 in it solved by cancelling the operand's factors against the
    target's (`[batch, 7, 7, 8]` to `[batch, -1]`: 392)."""
    return solve_reshape(shapes[0], entries(c, c.inputs[1], "shape"))


def solve_reshape(x: Shape | None, target: list[int | SymDim]) -> Shape | None:
    """A reshape target with its -1 (if any) solved; None if it cannot be."""
    if -1 not in target:
        return tuple(target)
    if x is None:
        return None
    rest = _divide(_factors(x), _factors([d for d in target if d != -1]))
    return None if rest is None else tuple(rest if d == -1 else d for d in target)


def _factors(sizes: Sequence[Size]) -> tuple[int, list[str]] | None:
    """A product of sizes as its integer part and its dynamic factors (a `batch * seq`
    size is two factors)."""
    number, names = 1, []

    def split(node: ast.expr) -> None:
        nonlocal number
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            split(node.left)
            split(node.right)
        elif isinstance(node, ast.Constant):
            number *= node.value
        else:
            names.append(ast.unparse(node))
    for d in sizes:
        if d is None:
            return None
        if isinstance(d, int):
            number *= d
        else:
            split(ast.parse(d.expr, mode="eval").body)
    return number, names


def _divide(x: Any, y: Any) -> int | SymDim | None:
    """x / y for factored products, when y's factors all cancel against x's."""
    if x is None or y is None:
        return None
    (n, names), (m, divisors) = x, y
    names = list(names)
    for d in divisors:
        if d not in names:
            return None
        names.remove(d)
    if m == 0 or n % m:
        return None
    out: int | SymDim = n // m
    for name in names:
        out = out * SymDim(name)
    return out


def _expand_dims(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    x = shapes[0]
    if x is None:
        return None
    (axis,) = c.ints(c.inputs[1], "axis")
    axis %= len(x) + 1
    return (*x[:axis], 1, *x[axis:])


def _squeeze(c: Ctx, shapes: list[Shape | None], *, squeeze_dims: list[int],
             **_: Any) -> Shape | None:
    x = shapes[0]
    if x is None or not squeeze_dims:
        return None
    drop = {a % len(x) for a in squeeze_dims}
    return tuple(d for i, d in enumerate(x) if i not in drop)


def _concat(axis_at: int) -> DimRule:
    def rule(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
        parts = [p for p in (shapes[:-1] if axis_at == -1 else shapes[1:]) if p is not None]
        if len(parts) < len(shapes) - 1:
            return None
        (axis,) = c.ints(c.inputs[axis_at], "axis")
        axis %= len(parts[0])
        total: Any = 0
        for p in parts:
            total = total + p[axis]
        return (*parts[0][:axis], total, *parts[0][axis + 1:])
    return rule


def _pack(c: Ctx, shapes: list[Shape | None], *, axis: int, **_: Any) -> Shape | None:
    x = shapes[0]
    if x is None:
        return None
    axis %= len(x) + 1
    return (*x[:axis], len(shapes), *x[axis:])


def _unpack(c: Ctx, shapes: list[Shape | None], *, num: int, axis: int,
            **_: Any) -> list[Shape | None]:
    x = shapes[0]
    if x is None:
        return [None] * num
    axis %= len(x)
    return [x[:axis] + x[axis + 1:]] * num


def _split(x_at: int) -> DimRule:
    """Split/SplitV: the split axis' sizes are TF's (static), the others the operand's."""
    def rule(c: Ctx, shapes: list[Shape | None], **_: Any) -> list[Shape | None]:
        x = shapes[x_at]
        if x is None:
            return [None] * len(c.op.outputs)
        (axis,) = c.ints(c.inputs[0 if x_at == 1 else 2], "axis")
        axis %= len(x)
        return [(*x[:axis], None, *x[axis + 1:])] * len(c.op.outputs)
    return rule


def _tile(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    x: Any = shapes[0]
    reps = entries(c, c.inputs[1], "multiples")
    return None if x is None else tuple(d * r for d, r in zip(x, reps))


def _pad(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    x: Any = shapes[0]
    widths = c.ints(c.inputs[1], "paddings")
    return None if x is None else tuple(d + lo + hi for d, lo, hi
                                        in zip(x, widths[::2], widths[1::2]))


def _strided_slice(c: Ctx, shapes: list[Shape | None], *, begin_mask: int = 0,
                   end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                   shrink_axis_mask: int = 0, **_: Any) -> Shape | None:
    """A whole dynamic axis keeps its size, an index drops it, a new axis is 1; a partial
    slice of a static axis is TF's size (None here), of a dynamic one unknown."""
    x = shapes[0]
    if x is None:
        return None
    masks = {"begin": begin_mask, "end": end_mask, "ellipsis": ellipsis_mask,
             "new_axis": new_axis_mask, "shrink_axis": shrink_axis_mask}
    index = list(strided_index(c, *c.inputs[1:4], masks))
    if Ellipsis not in index:
        index.append(Ellipsis)
    at = index.index(Ellipsis)
    consumed = sum(1 for v in index if v is not None and v is not Ellipsis)
    index[at:at + 1] = [slice(None)] * (len(x) - consumed)
    dims = iter(x)
    out: list[Size] = []
    for v in index:
        if v is None:
            out.append(1)
            continue
        d = next(dims)
        if isinstance(v, slice):
            whole = v.start in (None, 0) and v.stop is None and v.step in (None, 1)
            out.append(d if whole else None)
    return tuple(out)


def _gather(c: Ctx, shapes: list[Shape | None], *, batch_dims: int = 0,
            **_: Any) -> Shape | None:
    params, indices = shapes[0], shapes[1]
    if params is None or indices is None or batch_dims:
        return None
    (axis,) = c.ints(c.inputs[2], "axis")
    axis %= len(params)
    return (*params[:axis], *indices, *params[axis + 1:])


def _keep_batch(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    """Convolutions, pools, resizes: the batch (axis 0 in every data format) passes
    through; the other sizes are TF's static ones."""
    x = shapes[0]
    return None if x is None else (x[0],) + (None,) * (len(x) - 1)


def _conv_transpose(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    return _keep_batch(c, shapes[2:])  # operands (output size, filter, x): x's batch


def _resource_gather(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    """A variable's rows by indices: the indices' sizes, then the row's (static)."""
    indices, rank = shapes[1], c.op.outputs[0].shape.rank
    return None if indices is None or rank is None else \
        (*indices, *(None,) * (rank - len(indices)))


def _reduce(c: Ctx, shapes: list[Shape | None], *, keep_dims: bool = False,
            **_: Any) -> Shape | None:
    x = shapes[0]
    if x is None:
        return None
    axes = set(c.axes(c.inputs[1], len(x)))
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in axes)


def _arg_reduce(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape | None:
    x = shapes[0]
    if x is None:
        return None
    (axis,) = c.ints(c.inputs[1], "axis")
    axis %= len(x)
    return x[:axis] + x[axis + 1:]


def _range(c: Ctx, shapes: list[Shape | None], **_: Any) -> Shape:
    """The count of a `Range` to a size (`tf.range(tf.shape(x)[1])`)."""
    ends = [v.entries.item() if isinstance(v, Sizes) else c.static(v, "range bound").item()
            for v in c.inputs]
    return (arange_count(*ends),)


def _fill(at: int) -> DimRule:
    return lambda c, shapes, **_: tuple(entries(c, c.inputs[at], "shape"))


SAME = (*UNARY, *ACTIVATIONS, "Relu6", "Selu", "Softsign", "Erfc", "LeakyRelu", "Softmax",
        "LogSoftmax", "Cast", "BiasAdd", "BiasAddV1", "Cumsum", "Cumprod", "ReverseV2", "Roll",
        "ZerosLike", "OnesLike", "EnsureShape", "CheckNumerics", "PopulationCount",
        "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
"""Ops whose (first) result has their first operand's sizes."""

BROADCAST = (*BINARY, "Div", "TruncateDiv", "FloorDiv", "TruncateMod", "DivNoNan",
             "MulNoNan", "Xlogy", "Xdivy", "SquaredDifference", "AddN", "SelectV2",
             "ClipByValue")
"""Ops whose result broadcasts all their operands."""

KEEP_BATCH = ("Conv2D", "Conv3D", "DepthwiseConv2dNative", "MaxPool", "MaxPoolV2",
              "MaxPool3D", "AvgPool", "AvgPool3D", "ResizeBilinear", "ResizeNearestNeighbor",
              "ResizeBicubic", "ResizeArea")
"""Ops of batched images: the batch passes through."""

DIM_RULES: dict[str, DimRule] = {
    **dict.fromkeys(SAME, _same), **dict.fromkeys(BROADCAST, _broadcast_from(0)),
    **dict.fromkeys(KEEP_BATCH, _keep_batch), **dict.fromkeys(REDUCE, _reduce),
    "EuclideanNorm": _reduce, "ArgMax": _arg_reduce, "ArgMin": _arg_reduce,
    "Select": _broadcast_from(1), "MatMul": _matmul,
    **dict.fromkeys(("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"), _batch_matmul),
    "Einsum": _einsum, "Transpose": _transpose, "Reshape": _reshape,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze, "ConcatV2": _concat(-1),
    "Concat": _concat(0), "Pack": _pack, "Unpack": _unpack, "Split": _split(1),
    "SplitV": _split(0), "Tile": _tile, "Pad": _pad, "PadV2": _pad, "MirrorPad": _pad,
    "StridedSlice": _strided_slice, "GatherV2": _gather, "BroadcastTo": _fill(1),
    "Fill": _fill(0), "ResourceGather": _resource_gather, "Range": _range,
    **dict.fromkeys(("Conv2DBackpropInput", "Conv3DBackpropInputV2"), _conv_transpose),
    "TopKV2": lambda c, shapes, **_: [(*shapes[0][:-1], None)] * 2,
}
"""TF raw op -> the sizes of its results from its operands' (see the module doc)."""
