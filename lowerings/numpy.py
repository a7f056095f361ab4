"""The NumPy target: the reference semantics of every ivy op.

Each rule is a format string over the op's operand names and attribute literals
(`{x}`, `{axis}`, `{out_dtype}`), or a function of the `OpContext` when the spelling
depends on types. Ops NumPy has no single call for use the pure-NumPy kernels in
`numpy_kernels.py`, whose source is copied into the generated code when used, so
`compiled.source` is self-contained. Composite ops without a rule here are lowered
through their registered decomposition.
"""

from __future__ import annotations

from ivy_ir.dialect.types import numpy_dtype

from . import numpy_kernels as K
from . import numpy_nn_kernels as NN
from . import resample
from .emitter import (
    LAYER_KERNEL_CALLS,
    OpContext,
    Rule,
    Target,
    collect_helpers,
    literal,
    slice_parts,
)
from .runtime import Runtime

UNARY = {
    "abs": "np.abs", "negative": "np.negative", "sign": "np.sign", "sqrt": "np.sqrt",
    "square": "np.square", "reciprocal": "np.reciprocal", "exp": "np.exp", "expm1": "np.expm1",
    "log": "np.log", "log1p": "np.log1p", "log2": "np.log2", "log10": "np.log10",
    "sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "asin": "np.arcsin", "acos": "np.arccos",
    "atan": "np.arctan", "sinh": "np.sinh", "cosh": "np.cosh", "tanh": "np.tanh",
    "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh", "floor": "np.floor",
    "ceil": "np.ceil", "round": "np.round", "trunc": "np.trunc", "isnan": "np.isnan",
    "isinf": "np.isinf", "isfinite": "np.isfinite", "logical_not": "np.logical_not",
    "bitwise_invert": "np.invert",
}
BINARY = {
    "add": "np.add", "subtract": "np.subtract", "multiply": "np.multiply",
    "divide": "np.divide", "floor_divide": "np.floor_divide", "remainder": "np.remainder",
    "pow": "np.power", "maximum": "np.maximum", "minimum": "np.minimum",
    "atan2": "np.arctan2", "equal": "np.equal", "not_equal": "np.not_equal",
    "less": "np.less", "less_equal": "np.less_equal", "greater": "np.greater",
    "greater_equal": "np.greater_equal", "logical_and": "np.logical_and",
    "logical_or": "np.logical_or", "logical_xor": "np.logical_xor",
    "bitwise_and": "np.bitwise_and", "bitwise_or": "np.bitwise_or",
    "bitwise_xor": "np.bitwise_xor", "bitwise_left_shift": "np.left_shift",
    "bitwise_right_shift": "np.right_shift",
}


def _reduce(fn: str, extra: str = "") -> str:
    return f"{fn}({{x}}, axis={{axis}}, keepdims={{keepdims}}{extra})"


def _arg_reduce(fn: str) -> Rule:
    return f"np.asarray({fn}({{x}}, axis={{axis}}, keepdims={{keepdims}}), dtype=np.int64)"


MATRIX_ORD = {"fro": "'fro'", "nuc": "'nuc'", "1": "1", "-1": "-1", "2": "2", "-2": "-2",
              "inf": "math.inf", "-inf": "-math.inf"}


def _full(ctx: OpContext, fill: str) -> str:
    return f"np.full({ctx.lit('shape')}, {fill}, dtype={ctx.lit('dtype')})"


def _like(fill: str) -> Rule:
    return lambda c: f"np.full_like({c.args['x']}, {fill(c)}, dtype={c.target.dtype(c.out.dtype)})"


def _linalg(fn: str) -> Rule:
    """Multi-result decompositions: NumPy gives a namedtuple; results cast one by one."""
    return f"[np.asarray(r, dtype={{out_dtype}}) for r in {fn}]"


def _solve(c: OpContext) -> str:
    # b of rank 1 is one right-hand side (a column), batched or not
    a, b = c.args["a"], c.args["b"]
    if c.in_types["b"].rank == 1:
        return f"np.linalg.solve({a}, {b}[:, None])[..., 0]"
    return f"np.linalg.solve({a}, {b})"


def _pad(c: OpContext) -> str:
    pw = c.attrs["pad_width"]
    if not pw:
        return f"{c.args['x']}.copy()"
    pairs = literal(tuple(zip(pw[::2], pw[1::2], strict=True)))
    extra = f", constant_values={c.lit('value')}" if c.attrs["mode"] == "constant" else ""
    return f"np.pad({c.args['x']}, {pairs}, mode={c.lit('mode')}{extra})"


def _slice(c: OpContext) -> str:
    # open ends (INT64_MIN/INT64_MAX) print as empty bounds
    parts = slice_parts(c.attrs)
    return f"{c.args['x']}[{', '.join(parts)},].copy()" if parts else f"{c.args['x']}.copy()"


def _matrix_norm(c: OpContext) -> str:
    norm = f"np.linalg.norm({c.args['x']}, {MATRIX_ORD[c.attrs['ord']]}, axis=(-2, -1), " \
        f"keepdims={c.lit('keepdims')})"
    return f"{norm}.astype({c.target.dtype(c.out.dtype)}, copy=False)"


NUMPY_RULES: dict[str, Rule] = {
    **{k: f"{v}({{x}})" for k, v in UNARY.items()},
    **{k: f"{v}({{x}}, {{y}})" for k, v in BINARY.items()},
    "rsqrt": "np.reciprocal(np.sqrt({x}))",
    "erf": "erf({x})",
    "astype": "{x}.astype({dtype})",
    "broadcast_to": "np.broadcast_to({x}, {shape}).copy()",
    "where": "np.where({condition}, {x}, {y})",
    "clip": "np.clip({x}, {min}, {max}).astype({out_dtype}, copy=False)",
    # creation
    "arange": "np.arange({start}, {stop}, {step}).astype({dtype})",
    "full": lambda c: _full(c, c.lit("fill_value")),
    "zeros": lambda c: _full(c, "0"),
    "ones": lambda c: _full(c, "1"),
    "eye": "np.eye({n_rows}, {n_cols}, k={k}, dtype={dtype})",
    "linspace": "np.linspace({start}, {stop}, {num}, endpoint={endpoint}).astype({dtype})",
    "tril": "np.tril({x}, k={k})",
    "triu": "np.triu({x}, k={k})",
    "one_hot": "one_hot({indices}, {depth}, {axis}, {dtype})",
    "zeros_like": _like(lambda c: "0"),
    "ones_like": _like(lambda c: "1"),
    "full_like": _like(lambda c: c.lit("fill_value")),
    # reductions and scans
    "sum": _reduce("np.sum", ", dtype={out_dtype}"),
    "prod": _reduce("np.prod", ", dtype={out_dtype}"),
    "mean": _reduce("np.mean", ", dtype={out_dtype}"),
    "var": _reduce("np.var", ", ddof={correction}, dtype={out_dtype}"),
    "std": _reduce("np.std", ", ddof={correction}, dtype={out_dtype}"),
    "min": _reduce("np.min"),
    "max": _reduce("np.max"),
    "all": _reduce("np.all"),
    "any": _reduce("np.any"),
    "argmax": _arg_reduce("np.argmax"),
    "argmin": _arg_reduce("np.argmin"),
    "cumsum": "np.cumsum({x}, axis={axis}, dtype={out_dtype})",
    "cumprod": "np.cumprod({x}, axis={axis}, dtype={out_dtype})",
    # shape manipulation
    "reshape": "np.reshape({x}, {out_shape})",
    "permute_dims": "np.transpose({x}, {axes})",
    "expand_dims": "np.expand_dims({x}, {axis})",
    "squeeze": "np.squeeze({x}, {axis})",
    "concat": "np.concatenate({xs}, axis={axis})",
    "stack": "np.stack({xs}, axis={axis})",
    "split": "np.split({x}, np.cumsum({sizes})[:-1].tolist(), axis={axis})",
    "flip": "np.flip({x}, axis={axis})",
    "roll": lambda c: f"np.roll({c.args['x']}, {c.lit('shift')}, axis={c.lit('axis')})"
    if c.attrs["axis"] != () else f"{c.args['x']}.copy()",
    "tile": "np.tile({x}, {reps})",
    "repeat": "np.repeat({x}, {repeats}, axis={axis})",
    "pad": _pad,
    "slice": _slice,
    # linear algebra
    "matmul": "np.matmul({x}, {y})",
    "tensordot": "np.tensordot({x}, {y}, axes=({axes_x}, {axes_y}))",
    "vecdot": "np.sum({x} * {y}, axis={axis}, dtype={out_dtype})",
    "einsum": "np.einsum({equation}, *{xs}).astype({out_dtype}, copy=False)",
    "outer": "np.outer({x}, {y})",
    "diagonal": "np.diagonal({x}, {offset}, {axis1}, {axis2}).copy()",
    "vector_norm": "vector_norm({x}, {ord}, {axis}, {keepdims}, {out_dtype})",
    "matrix_norm": _matrix_norm,
    "cholesky": "np.linalg.cholesky({x}, upper={upper}).astype({out_dtype}, copy=False)",
    "inv": "np.linalg.inv({x}).astype({out_dtype}, copy=False)",
    "det": "np.linalg.det({x}).astype({out_dtype}, copy=False)",
    "solve": lambda c: f"{_solve(c)}.astype({c.target.dtype(c.out.dtype)}, copy=False)",
    "qr": _linalg("np.linalg.qr({x}, mode={mode})"),
    "svd": _linalg("np.linalg.svd({x}, full_matrices={full_matrices})"),
    "eigh": _linalg("np.linalg.eigh({x})"),
    # indexing and sorting
    "take": "np.take({x}, {indices}, axis={axis})",
    "take_along_axis": "np.take_along_axis({x}, {indices}, axis={axis})",
    "gather_nd": "gather_nd({x}, {indices})",
    "scatter_nd": "scatter_nd({x}, {indices}, {updates})",
    "scatter_add": "scatter_add({x}, {indices}, {updates})",
    "sort": "sort({x}, {axis}, {descending})",
    "argsort": "argsort({x}, {axis}, {descending})",
    "top_k": "top_k({x}, {k}, {axis}, {largest})",
    "embedding": "np.take({weight}, {indices}, axis=0)",
    # layers
    **LAYER_KERNEL_CALLS,
    # random: the same key gives the same stream (negative keys wrap: default_rng wants >= 0)
    "random_uniform": "random_uniform({key}, {low}, {high}, {shape}, {dtype})",
    "random_normal": ("np.random.default_rng(int({key}) % 2**64).normal({mean}, {std}, {shape})"
                      ".astype({dtype})"),
}

HELPERS = collect_helpers(K, NN, resample)


def _dtype(name: str) -> str:
    # NumPy knows bfloat16 by name once ml_dtypes is imported, which numpy_dtype does
    dtype = numpy_dtype(name)
    return 'np.dtype("bfloat16")' if name == "bfloat16" else f"np.{dtype.name}"


TARGET = Target(name="numpy", rules=NUMPY_RULES, helpers=HELPERS, scalar="np.asarray({})",
                reuse_names=True, inplace_ops=frozenset(UNARY) | frozenset(BINARY),
                fresh_ops=frozenset({"astype", "where", "erf", "rsqrt"}),
                view_ops=frozenset({"reshape", "permute_dims", "expand_dims", "squeeze",
                                    "flip", "split"}),
               imports="import math\n\nimport numpy as np\n", dtype=_dtype)

RUNTIME = Runtime()
