"""Rules written once against the NumPy API, for every namespace that implements it.

NumPy (the reference semantics) and `jax.numpy` spell these ops alike; a table spreads
`NUMPY_API_RULES` and names its namespace (`RuleTable.namespace`, `{ns}` in a rule),
then overrides only the rows where its framework differs.
"""

from __future__ import annotations

from .rules import (
    DATA_KERNEL_CALLS,
    PLAIN_REDUCTIONS,
    OpContext,
    Rule,
    literal,
    rounded_once,
    slice_parts,
)

AS_TYPE = "{x}.astype({dtype})"
"""A conversion in the NumPy API (`rounded_once`)."""


def reduce_call(name: str, extra: str = "") -> str:
    """`{ns}.name(x, axis=..., keepdims=...)` plus `extra` keywords."""
    return f"{{ns}}.{name}({{x}}, axis={{axis}}, keepdims={{keepdims}}{extra})"


def pad_rule(copy: bool = False) -> Rule:
    """`{ns}.pad` with NumPy's (before, after) pairs (`copy`: even no padding gives an
    array of its own, never x itself)."""
    def rule(c: OpContext) -> str:
        pw, x = c.attrs["pad_width"], c.args["x"]
        if not pw:
            return f"{x}.copy()" if copy else x
        pairs = literal(tuple(zip(pw[::2], pw[1::2], strict=True)))
        extra = f", constant_values={c.lit('value')}" if c.attrs["mode"] == "constant" else ""
        return f"{c.ns}.pad({x}, {pairs}, mode={c.lit('mode')}{extra})"
    return rule


def slice_rule(copy: bool = False) -> Rule:
    """Python slicing, open ends (INT64_MIN/INT64_MAX) as empty bounds (`copy`: an array
    of its own, not NumPy's view of x)."""
    def rule(c: OpContext) -> str:
        parts = slice_parts(c.attrs)
        expr = f"{c.args['x']}[{', '.join(parts)}]" if parts else c.args["x"]
        return f"{expr}.copy()" if copy else expr
    return rule


def solve(c: OpContext) -> str:
    # b of rank 1 is one right-hand side (a column), batched or not
    a, b = c.args["a"], c.args["b"]
    if c.in_types["b"].rank == 1:
        return f"{c.ns}.linalg.solve({a}, {b}[:, None])[..., 0]"
    return f"{c.ns}.linalg.solve({a}, {b})"


NUMPY_API_RULES: dict[str, Rule] = {
    **{op: reduce_call(op) for op in PLAIN_REDUCTIONS},
    # sums and products in the result dtype (both would widen small integers)
    "sum": rounded_once(reduce_call("sum", ", dtype={out_dtype}"), AS_TYPE),
    "prod": reduce_call("prod", ", dtype={out_dtype}"),
    "astype": "{x}.astype({dtype})",
    "where": "{ns}.where({condition}, {x}, {y})",
    # creation
    "arange": "{ns}.arange({start}, {stop}, {step}).astype({dtype})",
    "full": "{ns}.full({shape}, {fill_value}, dtype={dtype})",
    "zeros": "{ns}.zeros({shape}, dtype={dtype})",
    "ones": "{ns}.ones({shape}, dtype={dtype})",
    "eye": "{ns}.eye({n_rows}, {n_cols}, k={k}, dtype={dtype})",
    "tril": "{ns}.tril({x}, k={k})",
    "triu": "{ns}.triu({x}, k={k})",
    "zeros_like": "{ns}.zeros_like({x}, dtype={out_dtype})",
    "ones_like": "{ns}.ones_like({x}, dtype={out_dtype})",
    "full_like": "{ns}.full_like({x}, {fill_value}, dtype={out_dtype})",
    # scans
    "cumsum": rounded_once("{ns}.cumsum({x}, axis={axis}, dtype={out_dtype})", AS_TYPE),
    "cumprod": "{ns}.cumprod({x}, axis={axis}, dtype={out_dtype})",
    # shape manipulation
    "reshape": "{ns}.reshape({x}, {out_shape})",
    "permute_dims": "{ns}.transpose({x}, {axes})",
    "expand_dims": "{ns}.expand_dims({x}, {axis})",
    "squeeze": "{ns}.squeeze({x}, {axis})",
    "concat": "{ns}.concatenate({xs}, axis={axis})",
    "stack": "{ns}.stack({xs}, axis={axis})",
    "flip": "{ns}.flip({x}, axis={axis})",
    "tile": "{ns}.tile({x}, {reps})",
    "repeat": "{ns}.repeat({x}, {repeats}, axis={axis})",
    # linear algebra and indexing
    "matmul": "{ns}.matmul({x}, {y})",
    "tensordot": "{ns}.tensordot({x}, {y}, axes=({axes_x}, {axes_y}))",
    "outer": "{ns}.outer({x}, {y})",
    "take_along_axis": "{ns}.take_along_axis({x}, {indices}, axis={axis})",
    "top_k": "top_k({x}, {k}, {axis}, {largest})",
    "argwhere": "{ns}.argwhere({x})",
    **DATA_KERNEL_CALLS,
    "pad": pad_rule(),
    "slice": slice_rule(),
    "solve": solve,
}

MATRIX_ORD = {"fro": "'fro'", "nuc": "'nuc'", "1": "1", "-1": "-1", "2": "2", "-2": "-2",
              "inf": "math.inf", "-inf": "-math.inf"}
"""`matrix_norm`'s `ord` attribute as the `ord=` argument of `linalg.norm`/`matrix_norm`."""
