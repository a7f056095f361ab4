"""lax's factorization primitives onto the registry's `svd`, `eigh`, `qr` and `cholesky`.

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

from .common import Rule, Unmapped
from .jax_ctx import Ctx, Value


def _swap(ctx: Ctx, x: Value) -> Value:
    """`x` with its last two axes swapped."""
    rank = ctx.spec(x).rank
    return ctx.emit("permute_dims", x, axes=[*range(rank - 2), rank - 1, rank - 2])


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
    w, v = ctx.emit_all("eigh", x if lower else _swap(ctx, x))
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
        x = ctx.emit("multiply", ctx.emit("add", x, _swap(ctx, x)),
                     ctx.const(0.5, ctx.spec(x).dtype))
    return ctx.emit("cholesky", x)


LINALG: dict[str, Rule] = {"svd": _svd, "eigh": _eigh, "qr": _qr, "cholesky": _cholesky}
"""Factorizing lax primitive name -> rule."""
