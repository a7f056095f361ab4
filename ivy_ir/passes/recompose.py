"""`recompose`: find decomposed formulas and put the registry op back, so each target
can call its fused kernel (`F.gelu`, `F.scaled_dot_product_attention`, ...).

Traced programs often spell a layer out in primitives: JAX's `jax.nn.gelu` is
`x * erfc(-x / sqrt 2) / 2`, flax's LayerNorm is means, a `maximum` and an rsqrt,
and a hand-written attention is a matmul, a scale, a mask and a softmax. The pass runs
in three steps:

1. `cse`, so a value a formula writes twice (`exp(x - max)` of a softmax) is one value;
2. `NORMALIZE`: exact rewrites of framework spellings (JAX's `sum` + `expand_dims` + `/ n`
   for a keepdims mean, `einsum` for a matmul, ...), forward to a fixpoint;
3. `RULES`, which maps the op that ends each formula to the rules that may recognise it
   there (`recompose_activations.py`, `recompose_norm.py`, `recompose_attention.py`).
   The walk goes from the last op backwards, so the largest formula matches first (a
   whole layer norm with its weight and bias), and sweeps again while anything changed,
   so formulas built on inner ones (silu on sigmoid, attention on softmax) match once
   the inner ones are ops.

A rule only fires when the rewrite is sound: float dtypes only, constants equal to the
formula's within the dtype's rounding (`recompose_match.RTOL`), reductions over the
right axes with keepdims, masks of a supported kind, and no interior value used outside
the formula (it would have to be computed twice, so the rule does not fire).
The replacement must infer exactly the root's result type or it is dropped. New ops take
the location of the op they replace.

Value changes: a recomposed op may round differently from the primitives it replaces,
and softmax/log_softmax without max subtraction become the stable op (finite where the
spelled-out form overflowed to inf or NaN). One change goes the other way: torch's
guarded softmax (`_safe_softmax`) in an unmasked attention becomes the op, whose NumPy,
JAX and TF lowerings give NaN instead of 0 on a row of scores that is -inf throughout
(only infinite inputs or overflowing scores make one; the torch target calls torch's
kernel, which gives 0). Everything else is equal up to float rounding. Integer results
are never touched (all rules are float-only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from ..dialect import OP_CLASSES, IvyOp
from ..dialect.attrs import AttrError
from ..dialect.infer import InferError
from .recompose_activations import (
    batched_linear,
    gelu,
    linear_bias,
    linear_weight,
    log_softmax,
    logsumexp,
    sigmoid,
    silu,
    softmax,
)
from .recompose_attention import attention
from .recompose_match import Fused, NoMatch, Prep, is_float
from .recompose_norm import fold_batch_norm, norm, norm_affine
from .recompose_normalize import (
    batched_matmul,
    einsum_matmul,
    keepdims,
    matmul_broadcast,
    mean,
    neutral,
    same_type_cast,
)

Rule = Callable[[IvyOp], Fused]

NORMALIZE: dict[str, tuple[Rule, ...]] = {
    "expand_dims": (keepdims,),     # expand_dims(sum(x, A), A) -> sum(x, A, keepdims)
    "reshape": (keepdims, batched_matmul),  # reshape(bmm(a', b'), B+[m,n]) -> matmul(a, b)
    "divide": (mean, neutral),      # sum(x, A) / n -> mean(x, A);  a / 1 -> a
    "multiply": (mean, neutral),
    "maximum": (neutral,),          # maximum(a, -inf) -> a
    "minimum": (neutral,),
    "einsum": (einsum_matmul,),     # einsum('...ij,...kj->...ik') -> matmul(a, b^T)
    "matmul": (matmul_broadcast,),  # matmul(a, broadcast_to(b)) -> matmul(a, b)
    "astype": (same_type_cast,),    # astype(a, dtype of a) -> a
}
"""Exact rewrites run to a fixpoint before `RULES`, so rules see one spelling of
keepdims reductions, means and matmuls (see `recompose_normalize.py`)."""

RULES: dict[str, tuple[Rule, ...]] = {
    # root op   -> rules tried there, first match wins
    "multiply": (gelu, silu, sigmoid, softmax, norm, norm_affine),
    "divide": (silu, softmax, sigmoid, gelu, norm),
    "reciprocal": (sigmoid,),
    "add": (linear_bias, sigmoid, log_softmax, logsumexp, norm, norm_affine),
    "subtract": (log_softmax, norm),
    "matmul": (attention, linear_weight),
    "reshape": (batched_linear,),   # reshape(linear(reshape(x)), B+[o]) -> linear(x)
}
"""Formulas by the op that ends them (see each rule's docstring for its algebra)."""

FOLD_RULES: dict[str, tuple[Rule, ...]] = {
    "batch_norm": (fold_batch_norm,),  # batch_norm(conv(x, w, b)) -> conv(x, w', b')
}
"""Inference-time folds, on by default (`recompose{fold-batch-norm=false}` turns off)."""


def _dies(op: Operation, inside: set[Operation], depth: int = 4) -> bool:
    """`op` is in the pattern, or only feeds it (the `ones_like(scores)` a causal mask is
    built from), so it goes away with it."""
    if op in inside:
        return True
    if depth == 0 or not isinstance(op, IvyOp):
        return False
    return all(_dies(use.operation, inside, depth - 1) for r in op.results for use in r.uses)


def _private(root: Operation, interior: set[Operation]) -> bool:
    """No interior value is needed once the root is replaced."""
    inside = interior | {root}
    return all(_dies(use.operation, inside) for op in interior for r in op.results
               for use in r.uses)


def _build(root: IvyOp, fused: Fused) -> list[IvyOp] | None:
    """The new ops (preps first, the fused op last), or None if they do not type-check
    to exactly the root's result type. Nothing is inserted yet."""
    built: list[IvyOp] = []
    made: dict[int, SSAValue] = {}

    def realize(item: Any) -> Any:
        if not isinstance(item, Prep):
            return item
        if id(item) not in made:  # a prep used twice (a scale) is built once
            op = OP_CLASSES[item.name].build(*[realize(o) for o in item.operands],
                                             location=root.location, **item.attrs)
            built.append(op)
            made[id(item)] = op.results[0]
        return made[id(item)]

    try:
        operands = [realize(o) for o in fused.operands]
        op: IvyOp | None = OP_CLASSES[fused.name].build(*operands, location=root.location,
                                                        **fused.attrs)
    except (InferError, AttrError):
        op = None
    if op is None or op.results[0].type != root.results[0].type:
        for dropped in reversed([*built, *([op] if op else [])]):
            dropped.erase()
        return None
    return [*built, op]


def _erase_dead(ops: list[Operation]) -> None:
    """Erase the given ops and whatever they fed alone, once nothing uses them."""
    work = list(ops)
    while work:
        op = work.pop()
        if op.parent is None or not isinstance(op, IvyOp) or any(r.uses for r in op.results):
            continue
        owners = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
        op.detach()
        op.erase()
        work += owners


def try_rewrite(root: IvyOp, rules: tuple[Rule, ...]) -> bool:
    if not root.results or not is_float(root.results[0]):
        return False
    for rule in rules:
        try:
            fused = rule(root)
        except NoMatch:
            continue
        interior = fused.interior - {root}
        if not _private(root, interior):
            continue
        if not fused.name:  # the root is its operand (a neutral op): no new op
            root.results[0].replace_all_uses_with(fused.operands[0])
        else:
            new = _build(root, fused)
            if new is None:
                continue
            block = root.parent_block()
            assert block is not None
            block.insert_ops_before(new, root)
            root.results[0].replace_all_uses_with(new[-1].results[0])
        _erase_dead([root, *interior])
        return True
    return False


def _sweep(module: ModuleOp, rules: dict[str, tuple[Rule, ...]], backwards: bool) -> None:
    """Try `rules` at every op until nothing changes."""
    changed = True
    while changed:
        changed = False
        ops = list(module.walk())
        for op in reversed(ops) if backwards else ops:
            if isinstance(op, IvyOp) and op.parent is not None and op.SPEC.name in rules:
                changed |= try_rewrite(op, rules[op.SPEC.name])


def recompose(module: ModuleOp, fold_batch_norm: bool = True) -> None:
    cse(module)  # a formula that computes a value twice (exp(x - max)) uses it twice
    _sweep(module, NORMALIZE, backwards=False)
    # outermost first, so the largest formula wins (a layer norm with its weight and
    # bias); further sweeps catch formulas built on inner ones (attention on softmax)
    _sweep(module, {**RULES, **(FOLD_RULES if fold_batch_norm else {})}, backwards=True)
    for fn in module.ops:
        if fn.regions:
            region_dce(fn.regions[0])


@dataclass(frozen=True)
class RecomposePass(ModulePass):
    name = "recompose"

    fold_batch_norm: bool = True  # CLI: recompose{fold-batch-norm=false}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        recompose(op, self.fold_batch_norm)
