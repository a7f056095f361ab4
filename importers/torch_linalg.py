"""ATen factorizations onto the registry's `svd`, `eigh`, `qr` and `lu` (with what torch
derives from LU: slogdet, logdet, lu_solve), and the `_ex` forms of solve, inverse,
determinant and Cholesky (`torch.linalg.solve` decomposes to them).

The registry ops have one meaning on every target (ops.spec): singular and eigen
vectors signed so that their largest-magnitude component is positive, which is not
torch's own rule (LAPACK's output as it comes), so an imported program's vectors may
differ in sign from torch's, as the frameworks' differ among themselves. QR's signs are
LAPACK's Householder ones on every target, torch's included. A result the call was
asked not to compute (`compute_uv=False`, `mode="r"`) is None: reading it is reported.
The `_ex` forms' LU factors and pivots are None too; their `info` (nonzero where torch
found the matrix singular, which `check_errors` turns into an exception) is zeros: the
program returns what the target's solver gives for such a matrix, as NumPy's would.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import SSAValue

from ivy_ir.core.linalg_compositions import householder_product, pinv
from ivy_ir.dialect.types import FLOATS

from .common import Rule, Unmapped, real_reflectors, spec_of, swapped, traced
from .lu_results import (
    pivots_to_permutation,
    rows_of,
    solve_factored,
    triangle_solve,
    triangles,
)
from .torch_ctx import Ctx


def _matrix(x: SSAValue) -> SSAValue:
    if spec_of(x).dtype not in FLOATS:
        raise Unmapped(f"{spec_of(x).dtype} matrices")
    return x


def _svd(full_default: bool) -> Rule:
    """`linalg_svd` (full by default) and `_linalg_svd` (reduced by default): (U, S, Vh)."""
    def emit(c: Ctx, a: SSAValue, full_matrices: bool = full_default, compute_uv: bool = True,
             **_: Any) -> list[SSAValue | None]:
        u, s, vh = c.emit_all("svd", _matrix(a), full_matrices=bool(full_matrices and compute_uv))
        return [u, s, vh] if compute_uv else [None, s, None]
    return emit


def _svd_v(c: Ctx, a: SSAValue, some: bool = True, compute_uv: bool = True
           ) -> list[SSAValue | None]:
    """`torch.svd`: (U, S, V), V untransposed, reduced unless `some=False`."""
    u, s, vh = c.emit_all("svd", _matrix(a), full_matrices=not (some and compute_uv))
    return [u, s, swapped(c, vh)] if compute_uv else [None, s, None]


def _eigh(c: Ctx, a: SSAValue, UPLO: str = "L", compute_v: bool = True
          ) -> list[SSAValue | None]:
    """UPLO="U" reads the upper triangle: the lower one of the transpose (the registry's
    eigh is defined on symmetric input, where the two agree)."""
    a = _matrix(a)
    w, v = c.emit_all("eigh", swapped(c, a) if UPLO == "U" else a)
    return [w, v if compute_v else None]


def _qr(c: Ctx, a: SSAValue, mode: str = "reduced") -> list[SSAValue | None]:
    q, r = c.emit_all("qr", _matrix(a), mode="complete" if mode == "complete" else "reduced")
    return [None if mode == "r" else q, r]


def _info(c: Ctx, a: SSAValue) -> SSAValue:
    """The `info` of an `_ex` op: int32 zeros over the batch (see the module docstring)."""
    return c.emit("full", shape=list(spec_of(a).shape[:-2]), fill_value=0.0, dtype="int32")


def _solve_ex(c: Ctx, a: SSAValue, b: SSAValue, *, left: bool = True, **_: Any
              ) -> list[SSAValue | None]:
    """(X, LU, pivots, info) of A X = B (X A = B when not `left`); a B of one rank less
    than A is a batch of vectors, as torch reads it."""
    a, b = _matrix(a), _matrix(b)
    vector = spec_of(b).rank == spec_of(a).rank - 1
    if vector:
        b = c.emit("expand_dims", b, axis=[-1])
    x = c.emit("solve", a, b) if left else swapped(c, c.emit("solve", swapped(c, a), swapped(c, b)))
    if vector:
        x = c.emit("squeeze", x, axis=[-1])
    return [x, None, None, _info(c, a)]


def _lu(c: Ctx, a: SSAValue, pivot: bool = True) -> list[SSAValue]:
    """The registry's lu (square matrices, with pivoting): torch counts pivots from 1."""
    m, n = spec_of(_matrix(a)).shape[-2:]
    if not pivot or m != n:
        raise Unmapped("LU without pivoting" if not pivot else "LU of a non-square matrix")
    return c.emit_all("lu", a)


def _lu_factor_ex(c: Ctx, a: SSAValue, *, pivot: bool = True, **_: Any) -> list[SSAValue]:
    factors, pivots, _order = _lu(c, a, pivot)
    return [factors, c.emit("add", pivots, c.const(1, "int32")), _info(c, a)]


def _lu_unpacked(c: Ctx, a: SSAValue, *, pivot: bool = True) -> list[SSAValue]:
    """(P, L, U) with A = P L U."""
    factors, _pivots, order = _lu(c, a, pivot)
    return [rows_of(c, order, spec_of(a).dtype), *triangles(c, factors)]


def _slogdet(c: Ctx, a: SSAValue) -> list[SSAValue]:
    """(sign, log |det|, LU, pivots): `slogdet` and `logdet` both decompose to it."""
    factors, pivots, _order = _lu(c, a)
    return [*c.emit_all("slogdet", a), factors, c.emit("add", pivots, c.const(1, "int32"))]


def _lu_solve(c: Ctx, factors: SSAValue, pivots: SSAValue, b: SSAValue, *, left: bool = True,
              adjoint: bool = False) -> SSAValue:
    """A X = B (X A = B when not `left`; A^H with `adjoint`) for A given by its factors."""
    order = pivots_to_permutation(c, c.emit("subtract", pivots, c.const(1, "int32")),
                                  spec_of(factors).shape[-1])
    if left:
        return solve_factored(c, factors, order, b, transposed=adjoint)
    return swapped(c, solve_factored(c, factors, order, swapped(c, b), transposed=not adjoint))


def _pinv(c: Ctx, a: SSAValue, atol: Any = None, rtol: Any = None, hermitian: bool = False
          ) -> SSAValue:
    """torch's cutoff is max(atol, rtol x the largest singular value): atol refused."""
    if atol is not None or hermitian:
        raise Unmapped("an absolute tolerance" if atol is not None else "hermitian")
    return traced(c.b.graph, pinv, _matrix(a), rtol=rtol)


def _solve_triangular(c: Ctx, a: SSAValue, b: SSAValue, *, upper: bool, left: bool = True,
                      unitriangular: bool = False) -> SSAValue:
    """The triangle `upper` names (and not its diagonal when `unitriangular`), as the
    registry's solve; X A = B when not `left`."""
    return triangle_solve(c, _matrix(a), b, lower=not upper, unit=unitriangular, left=left)


def _cholesky_solve(c: Ctx, b: SSAValue, factor: SSAValue, upper: bool = False) -> SSAValue:
    """A X = B with A = L L^T (U^T U when `upper`) given by its factor."""
    low = swapped(c, factor) if upper else factor
    return c.emit("solve", swapped(c, low), c.emit("solve", low, _matrix(b)))


def _cholesky_inverse(c: Ctx, factor: SSAValue, upper: bool = False) -> SSAValue:
    low = swapped(c, factor) if upper else factor
    return c.emit("inv", c.emit("matmul", low, swapped(c, low)))


LINALG: dict[str, Rule] = {
    "linalg_pinv.atol_rtol_tensor": _pinv,
    "linalg_pinv.atol_rtol_float": _pinv,
    "linalg_solve_triangular.default": _solve_triangular,
    "cholesky_solve.default": _cholesky_solve,
    "cholesky_inverse.default": _cholesky_inverse,
    "linalg_lu_factor_ex.default": _lu_factor_ex,
    "linalg_lu.default": _lu_unpacked,
    "_linalg_slogdet.default": _slogdet,
    "linalg_lu_solve.default": _lu_solve,
    "_linalg_solve_ex.default": _solve_ex,
    "linalg_inv_ex.default": lambda c, a, **_: [c.emit("inv", _matrix(a)), _info(c, a)],
    "_linalg_det.default": lambda c, a, **_: [c.emit("det", _matrix(a)), None, None],
    "linalg_matrix_exp.default": lambda c, a: c.emit("matrix_exp", _matrix(a)),
    "linalg_householder_product.default": lambda c, a, tau: traced(
        c.b.graph, householder_product, real_reflectors(a), tau),
    "linalg_cholesky_ex.default": lambda c, a, upper=False, **_: [
        c.emit("cholesky", _matrix(a), upper=bool(upper)), _info(c, a)],
    "linalg_svd.default": _svd(True),
    "_linalg_svd.default": _svd(False),
    "svd.default": _svd_v,
    "linalg_eigh.default": _eigh,
    "_linalg_eigh.default": _eigh,
    "linalg_qr.default": _qr,
}
"""ATen overload -> rule: matrix factorizations."""
