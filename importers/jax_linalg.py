"""lax's factorization primitives onto the registry's `svd`, `eigh`, `qr`, `cholesky` and `lu`,
and `custom_linear_solve` (`jnp.linalg.solve`, `inv`) and `triangular_solve`
(`solve_triangular`, `cho_solve`) onto its `solve`.

The registry ops have one meaning on every target (ops.spec): singular and eigen
vectors signed so that their largest-magnitude component is positive, which is not
JAX's own rule (its solver's output as it comes), so an imported program's vectors may
differ in sign from JAX's, as the frameworks' differ among themselves. QR's signs are
LAPACK's Householder ones on every target, JAX's included. For the same reason the
walker never folds `svd`/`eigh` by running JAX on known inputs (`jax_walk.UNFOLDED`).
The primitives' results come in lax's order: svd (s, u, vh), eigh (vectors, values).
"""

from __future__ import annotations

from typing import Any

from ivy_ir.core.linalg_compositions import householder_product

from .common import Rule, Unmapped, real_reflectors, swapped, traced
from .jax_ctx import Ctx, Value
from .lu_results import pivots_to_permutation, triangle_solve


def _svd(ctx: Ctx, x: Value, *, full_matrices: bool, compute_uv: bool,
         subset_by_index: Any = None, **_: Any) -> list[Value]:
    if subset_by_index is not None:
        raise Unmapped("subset_by_index")
    u, s, vh = ctx.emit_all("svd", x, full_matrices=bool(full_matrices and compute_uv))
    return [s, u, vh] if compute_uv else [s]


def _eigh(ctx: Ctx, x: Value, *, lower: bool = True, sort_eigenvalues: bool = True,
          subset_by_index: Any = None, **_: Any) -> list[Value]:
    """lower=False reads the upper triangle: the lower one of the transpose."""
    if not sort_eigenvalues or subset_by_index is not None:
        raise Unmapped("unsorted or partial eigendecomposition")
    w, v = ctx.emit_all("eigh", x if lower else swapped(ctx, x))
    return [v, w]


def _qr(ctx: Ctx, x: Value, *, full_matrices: bool, pivoting: bool = False,
        **_: Any) -> list[Value]:
    if pivoting:
        raise Unmapped("pivoting")
    return ctx.emit_all("qr", x, mode="complete" if full_matrices else "reduced")


def _cholesky(ctx: Ctx, x: Value, *, symmetrize_input: bool = False, **_: Any) -> Value:
    """The lower factor, read from the lower triangle (`jnp.linalg.cholesky` symmetrizes
    first in equations of its own); lax leaves the upper triangle unspecified, the
    registry op zeros it."""
    if symmetrize_input:  # older JAX: the averaging is the primitive's own
        x = ctx.emit("multiply", ctx.emit("add", x, swapped(ctx, x)),
                     ctx.const(0.5, ctx.spec(x).dtype))
    return ctx.emit("cholesky", x)


def matvec_axis(matvec: Any) -> tuple[int, int] | None:
    """(axis, batch): the axis of the unknown x that the `matvec` jaxpr of a
    `custom_linear_solve` applies its matrix along (its first input, square, after
    `batch` leading axes that it shares with x: `jnp.linalg.solve` under `vmap`), or
    None if it is no such map: a `dot_general` contracting the matrix's columns with
    axis j of x, then the transpose that puts the matrix's rows back at axis j (none
    when j is x's first axis after the batch)."""
    jaxpr = matvec.jaxpr
    if len(jaxpr.invars) != 2 or not jaxpr.eqns or len(jaxpr.eqns) > 2:
        return None
    dot, *rest = jaxpr.eqns
    if dot.primitive.name != "dot_general" or list(dot.invars) != list(jaxpr.invars):
        return None
    (contract_a, contract_x), (batch_a, batch_x) = dot.params["dimension_numbers"]
    nb = len(batch_a)
    if tuple(batch_a) != tuple(range(nb)) or tuple(batch_x) != tuple(range(nb)) or \
            tuple(contract_a) != (nb + 1,) or len(jaxpr.invars[0].aval.shape) != nb + 2 or \
            len(contract_x) != 1 or int(contract_x[0]) < nb:
        return None
    axis, rank = int(contract_x[0]), len(jaxpr.invars[1].aval.shape)
    back = [*range(nb), *range(nb + 1, axis + 1), nb, *range(axis + 1, rank)]
    last = dot
    if rest:
        last = rest[0]
        if last.primitive.name != "transpose" or \
                list(last.params["permutation"]) != back or last.invars[0] != dot.outvars[0]:
            return None
    elif axis != nb:
        return None
    return (axis, nb) if list(jaxpr.outvars) == [last.outvars[0]] else None


def from_the_right(matvec: Any) -> int | None:
    """The batch size when the `matvec` jaxpr is x A: a `dot_general` of the unknown x
    (second input) and the matrix A (first), contracting x's last axis with A's rows
    after shared batch axes (a transposed solve: `jax.grad` through `jnp.linalg.solve`,
    `inv`, `slogdet`), maybe followed by an empty `reduce_sum`; else None."""
    jaxpr = matvec.jaxpr
    if len(jaxpr.invars) != 2 or not jaxpr.eqns or len(jaxpr.eqns) > 2:
        return None
    dot, *rest = jaxpr.eqns
    if dot.primitive.name != "dot_general" or list(dot.invars) != list(jaxpr.invars)[::-1]:
        return None
    (contract_x, contract_a), (batch_x, batch_a) = dot.params["dimension_numbers"]
    nb, rank = len(batch_x), len(jaxpr.invars[1].aval.shape)
    if tuple(batch_x) != tuple(range(nb)) or tuple(batch_a) != tuple(range(nb)) or \
            tuple(contract_x) != (rank - 1,) or tuple(contract_a) != (nb,) or \
            len(jaxpr.invars[0].aval.shape) != nb + 2:
        return None
    last = dot
    if rest:
        last = rest[0]
        if last.primitive.name != "reduce_sum" or tuple(last.params["axes"]) or \
                last.invars[0] != dot.outvars[0]:
            return None
    return nb if list(jaxpr.outvars) == [last.outvars[0]] else None


def _linear_solve(ctx: Ctx, *ins: Value, const_lengths: Any, jaxprs: Any, **_: Any
                  ) -> list[Value]:
    """x with matvec(x) = b, where `matvec` is a matrix A applied along one axis of x
    (`matvec_axis`) or from the right (`from_the_right`: A^T along x's last axis): the
    registry's `solve` of A and b with that axis first. JAX's own solver (an LU
    factorization passed in as the `solve` consts) is never imported: the walker leaves
    it dead (`jax_walk._inputs`)."""
    found, a, b = matvec_axis(jaxprs.matvec), ins[0], ins[-1]
    right = from_the_right(jaxprs.matvec) if found is None else None
    if right is not None:
        found, a = (ctx.spec(b).rank - 1, right), swapped(ctx, a)
    if found is None or const_lengths.matvec != 1 or len(ins) != sum(const_lengths) + 1:
        raise Unmapped("a linear map other than a matrix along one axis")
    axis, batch = found
    rank = ctx.spec(b).rank
    if rank > batch + 2:
        raise Unmapped("an unknown of more than two axes")
    if rank == batch + 1 and batch:  # a stack of vectors: columns of one row each
        column = ctx.emit("solve", a, ctx.emit("expand_dims", b, axis=[rank]))
        return [ctx.emit("squeeze", column, axis=[rank])]
    if axis != batch:  # (k, n) -> (n, k) and back
        return [swapped(ctx, ctx.emit("solve", a, swapped(ctx, b)))]
    return [ctx.emit("solve", a, b)]


def _triangular_solve(ctx: Ctx, a: Value, b: Value, *, left_side: bool, lower: bool,
                      transpose_a: bool, conjugate_a: bool, unit_diagonal: bool, **_: Any
                      ) -> Value:
    """op(a) x = b (x op(a) = b unless `left_side`) for the triangle of a that `lower`
    names (XLA never reads the other one; with `unit_diagonal` not the diagonal either),
    as the registry's general solve of that triangle."""
    if conjugate_a and ctx.spec(a).dtype.startswith("complex"):
        raise Unmapped("the conjugate of a complex matrix")
    return triangle_solve(ctx, a, b, lower=lower, unit=unit_diagonal, transpose=transpose_a,
                          left=left_side)


def _lu(ctx: Ctx, x: Value, **_: Any) -> list[Value]:
    """The registry op is lax's (factors, pivots, permutation), for square matrices."""
    m, n = ctx.spec(x).shape[-2:]
    if m != n:
        raise Unmapped("the LU factorization of a non-square matrix")
    return ctx.emit_all("lu", x)


def _pivots_to_permutation(ctx: Ctx, pivots: Value, *, permutation_size: int, **_: Any
                           ) -> Value:
    return pivots_to_permutation(ctx, pivots, int(permutation_size))


def _householder_product(ctx: Ctx, a: Value, taus: Value, **_: Any) -> Value:
    """Q's columns from geqrf's reflectors, composed (real floats: no conjugates; not
    half floats, which would round at every reflector)."""
    return traced(ctx.b.graph, householder_product, real_reflectors(ctx.ssa(a)), ctx.ssa(taus))


LINALG: dict[str, Rule] = {"svd": _svd, "eigh": _eigh, "qr": _qr, "cholesky": _cholesky,
                           "lu": _lu, "lu_pivots_to_permutation": _pivots_to_permutation,
                           "custom_linear_solve": _linear_solve,
                           "triangular_solve": _triangular_solve,
                           "householder_product": _householder_product}
"""Factorizing lax primitive name -> rule."""
