"""ONNX export rules of the linear-algebra ops: products (`matmul`, `tensordot`,
`vecdot`, `outer`, `einsum`) and norms."""

from __future__ import annotations

import numpy as np

from ivy_ir.dialect.types import numpy_dtype

from .onnx_graph import OnnxContext
from .onnx_math import OnnxRule, all_axes

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _einsum_of(eq: str, operands: list[str]) -> OnnxRule:
    """`fn(c)`: Einsum, or zeros when an operand is empty (onnxruntime's Einsum
    divides by a zero size and kills the process)."""
    def rule(c: OnnxContext) -> str:
        types = [t for ts in c.in_types.values() for t in (ts if isinstance(ts, list) else [ts])]
        if any(0 in t.shape for t in types) and None not in c.out.shape:
            return c.b.const(np.zeros(c.out.shape, numpy_dtype(c.out.dtype)))
        return c.node("Einsum", operands, equation=eq)
    return rule


def _einsum(c: OnnxContext) -> str:
    return _einsum_of(c.attrs["equation"], c.args["xs"])(c)


def _tensordot(c: OnnxContext) -> str:
    """An Einsum: contracted axes share letters, the rest keep x's then y's order."""
    rx, ry = c.in_types["x"].rank, c.in_types["y"].rank
    ax, ay = c.attrs["axes_x"], c.attrs["axes_y"]
    sx = list(LETTERS[:rx])
    sy = list(LETTERS[rx:rx + ry])
    for i, j in zip(ax, ay):
        sy[j] = sx[i]
    out = [s for i, s in enumerate(sx) if i not in ax] + [s for j, s in enumerate(sy)
                                                          if j not in ay]
    eq = f"{''.join(sx)},{''.join(sy)}->{''.join(out)}"
    return _einsum_of(eq, [c.args["x"], c.args["y"]])(c)


def _matmul(c: OnnxContext) -> str:
    """MatMul, a vector operand made a matrix first and its axis dropped after, batch
    dims broadcast beforehand (onnxruntime mis-broadcasts empty vectors and batches)."""
    x, y = c.args["x"], c.args["y"]
    sx, sy = c.in_types["x"].shape, c.in_types["y"].shape
    drop = []
    if len(sx) == 1:
        x, sx, drop = c.node("Unsqueeze", [x, c.b.ints([0])]), (1, *sx), [-2]
    if len(sy) == 1:
        y, sy, drop = c.node("Unsqueeze", [y, c.b.ints([1])]), (*sy, 1), drop + [-1]
    batch = tuple(np.broadcast_shapes(sx[:-2], sy[:-2])) if None not in sx + sy else None
    if batch is not None and (sx[:-2] != batch or sy[:-2] != batch):
        x = c.node("Expand", [x, c.b.ints(batch + sx[-2:])])
        y = c.node("Expand", [y, c.b.ints(batch + sy[-2:])])
    out = c.node("MatMul", [x, y])
    if not drop:
        return out
    rank = c.out.rank + len(drop)
    return c.node("Squeeze", [out, c.b.ints([rank + d for d in drop])])


def _outer(c: OnnxContext) -> str:
    flat = c.b.ints([-1])
    x = c.node("Unsqueeze", [c.node("Reshape", [c.args["x"], flat]), c.b.ints([1])])
    return c.node("Mul", [x, c.node("Reshape", [c.args["y"], flat])])


def _vecdot(c: OnnxContext) -> str:
    # a non-negative axis: onnxruntime reduces an empty axis named from the end wrongly
    rank = max(c.in_types["x"].rank, c.in_types["y"].rank)
    prod = c.node("Mul", [c.args["x"], c.args["y"]])
    return c.node("ReduceSum", [prod, c.b.ints([c.attrs["axis"] + rank])], keepdims=0)


def _vector_norm(c: OnnxContext) -> str:
    ord_, dt = c.attrs["ord"], c.out.dtype
    keep = int(c.attrs["keepdims"])
    axes = all_axes(c)
    a = c.node("Abs", [c.x])
    if ord_ == 0:
        a = c.b.cast(c.node("Not", [c.node("Equal", [a, c.scalar(0.0)])]), dt)

    def over(op_type: str, x: str) -> str:
        return c.node(op_type, [x, c.b.ints(axes)], keepdims=keep) if axes else x
    if ord_ in (0, 1):
        return over("ReduceSum", a)
    if ord_ == np.inf:  # max(|x|) with 0 for an empty reduction, as NumPy's initial=0
        return c.node("Max", [over("ReduceMax", a), c.scalar(0.0)])
    if ord_ == -np.inf:
        return over("ReduceMin", a)
    if ord_ == 2:
        return c.node("Sqrt", [over("ReduceSum", c.node("Mul", [a, a]))])
    powered = over("ReduceSum", c.node("Pow", [a, c.scalar(ord_)]))
    return c.node("Pow", [powered, c.scalar(1.0 / ord_)])


def _matrix_norm(c: OnnxContext) -> str:
    """Frobenius and the max/min absolute row or column sums (the SVD ones are refused)."""
    ord_, keep, r = c.attrs["ord"], int(c.attrs["keepdims"]), c.x_type.rank
    a = c.node("Abs", [c.x])
    if ord_ == "fro":
        return c.node("Sqrt", [c.node("ReduceSum", [c.node("Mul", [a, a]),
                                                    c.b.ints([r - 2, r - 1])], keepdims=keep)])
    summed, picked = (r - 2, r - 1) if ord_ in ("1", "-1") else (r - 1, r - 2)
    sums = c.node("ReduceSum", [a, c.b.ints([summed])], keepdims=1)
    pick = c.node("ReduceMax" if not ord_.startswith("-") else "ReduceMin",
                  [sums, c.b.ints([picked])], keepdims=1)
    return pick if keep else c.node("Squeeze", [pick, c.b.ints([r - 2, r - 1])])


LINALG_RULES: dict[str, OnnxRule] = {
    "matmul": _matmul,
    "tensordot": _tensordot,
    "vecdot": _vecdot,
    "einsum": _einsum,
    "outer": _outer,
    "vector_norm": _vector_norm,
    "matrix_norm": _matrix_norm,
}
