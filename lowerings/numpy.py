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
from .emitter import OpContext, Rule, Target

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


def _full(ctx: OpContext, fill: str) -> str:
    return f"np.full({ctx.lit('shape')}, {fill}, dtype={ctx.lit('dtype')})"


def _like(fill: str) -> Rule:
    return lambda c: f"np.full_like({c.args['x']}, {fill(c)}, dtype={c.target.dtype(c.out.dtype)})"


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
    "roll": "np.roll({x}, {shift}, axis={axis})",
    "tile": "np.tile({x}, {reps})",
    "repeat": "np.repeat({x}, {repeats}, axis={axis})",
}

HELPERS = {name: getattr(K, name) for name in K.__all__}


def _dtype(name: str) -> str:
    return "bfloat16" if name == "bfloat16" else f"np.{numpy_dtype(name).name}"


NUMPY = Target(name="numpy", rules=NUMPY_RULES, helpers=HELPERS,
               imports="import math\n\nimport numpy as np\n", dtype=_dtype)
