"""Where torch's own answer differs from the IR's meaning (docs/semantics.md), the
torch rules that emit the correction; and `WIDENING`, how ops run in the unsigned
dtypes torch has almost no kernels for (uint16/uint32 in int64, uint64 on its bits).

Each rule replaces the plain `torch.NAME` call of the op; the fused in-place path
(`lowerings/fused.py`) leaves these ops out, since `Tensor.NAME_` would skip the fix.
"""

from __future__ import annotations

from ivy_ir.core.rules import OpContext, Rule
from ivy_ir.dialect import CONTROL
from ivy_ir.dialect.types import FLOATS, INTS

from .target import Reinterpreting, Widening
from .torch_storage import astype


def _by_zero(fn: str, float_fn: str) -> Rule:
    """Integer division by zero gives 0, as in NumPy (torch raises ZeroDivisionError):
    divide by 1 where the divisor is 0, then put 0 there. Floats go through `float_fn`."""
    def rule(c: OpContext) -> str:
        x, y = c.args["x"], c.args["y"]
        if c.out.dtype not in INTS:
            return f"{float_fn}({x}, {y})"
        return f"torch.where({y} == 0, 0, {fn}({x}, torch.where({y} == 0, 1, {y})))"
    return rule


def _sign(c: OpContext) -> str:
    """sign(NaN) is NaN (torch's is 0)."""
    x = c.args["x"]
    if c.out.dtype in FLOATS:
        return f"torch.where(torch.isnan({x}), {x}, torch.sgn({x}))"
    return f"torch.sgn({x})"


def _logical_reduce(fn: str) -> Rule:
    """all/any give bool (torch keeps uint8 for uint8 input)."""
    def rule(c: OpContext) -> str:
        x, rank, axis = c.args["x"], c.in_types["x"].rank, c.attrs["axis"]
        if c.in_types["x"].dtype != "bool":
            x = f"({x} != 0)"
        axes = tuple(range(rank)) if axis is None else tuple(sorted(axis))
        if not axes and rank:
            return f"{fn}({x}.unsqueeze(-1), dim=-1)"
        dims = axes[0] if len(axes) == 1 else axes
        return f"{fn}({x}, dim={dims!r}, keepdim={c.lit('keepdims')})"
    return rule


COMPLEX_SPECIAL = ("expm1", "log1p", "acos", "tanh", "tan")
"""Complex functions whose special values torch misses (`expm1(-inf + inf j)` and
`log1p(inf + nan j)` are NaN + NaN j, `acos(0.5 + 0j)` has a +0 imaginary part, tanh's
and tan's infinite limits C99's zero signs): `ivy_ir/core/complex_cases.py` puts them
in."""

SEMANTIC_RULES: dict[str, Rule] = {
    "astype": astype,  # into and out of the storage dtypes: torch_storage.py
    "floor_divide": _by_zero("torch.floor_divide", "torch.floor_divide"),
    "remainder": _by_zero("torch.remainder", "float_remainder"),
    "sign": _sign,
    # NaN at +-0 (torch: -+inf) and accurate near the negative poles: `torch_kernels.py`
    "digamma": "digamma({x})",
    "all": _logical_reduce("torch.all"),
    "any": _logical_reduce("torch.any"),
}
"""Rules that override the generic ones of `lowerings/torch.py`."""


UNSIGNED_NATIVE = {
    # torch 2.13 (CPU) runs these in uint16/uint32/uint64 (measured): casts, copies, views,
    # creation, indexing reads, equality, multiply, the and/or/xor bits and sorting.
    # Control-flow ops only carry values (their bodies' ops decide for themselves), and a
    # bitcast reads the bits as they are: neither may ever be widened.
    **dict.fromkeys(CONTROL),
    **dict.fromkeys((
        "astype", "bitcast", "broadcast_to", "reshape", "permute_dims", "expand_dims",
        "squeeze", "concat", "stack", "split", "diagonal", "roll", "tile", "repeat",
        "full", "zeros", "ones", "linspace", "one_hot", "zeros_like", "ones_like",
        "full_like", "take", "gather_nd", "embedding", "where", "equal", "not_equal",
        "multiply", "outer", "bitwise_and", "bitwise_or", "bitwise_xor", "isnan",
        "isinf", "isfinite", "all", "any", "sort", "argsort", "clip")),
    # a negative step flips first, and torch.flip has no unsigned kernel
    "slice": lambda a: min(a["step"], default=1) > 0,
    # reflect/edge padding gathers with index_select, which has none for 1-d tensors
    "pad": lambda a: a["mode"] == "constant",
}
"""op -> None, or when (by its attributes), torch runs it in uint16/uint32 natively."""

UINT64 = Reinterpreting(
    dtypes=frozenset({"uint64"}), view="{x}.view({dtype})", key="({x} ^ -(2 ** 63))",
    ordered=frozenset({"less", "less_equal", "greater", "greater_equal", "maximum", "minimum",
                       "min", "max", "argmax", "argmin", "top_k", "max_pool", "unique"}),
    rules={"abs": "{x}", "relu": "{x}", "sign": "({x} != 0).to(torch.int64)",
           "floor_divide": _by_zero("divide_unsigned", "divide_unsigned"),
           "remainder": _by_zero("remainder_unsigned", "remainder_unsigned"),
           "bitwise_right_shift": "shift_right_unsigned({x}, {y})",
           "pow": "pow_unsigned({x}, {y})"})
"""uint64 has no wider dtype: its ops compute on the bits read as int64, orders on keys,
and these rules (kernels in `torch_unsigned_kernels.py`) where signedness matters."""

WIDENING = Widening(dtypes={"uint16": "int64", "uint32": "int64", "uint64": "int64"},
                    native=UNSIGNED_NATIVE, cast="{x}.to({dtype})", same_width=UINT64)
"""Every other op in uint16/uint32 computes in int64 and casts back (wrapping, as NumPy);
in uint64, on the same bits (`UINT64`)."""
