"""TF linear-algebra ops -> ivy ops: decompositions and solvers.

`adjoint` asks for the conjugate transpose of the matrix operand; for the real dtypes
the registry ops take, that is the transpose of the last two axes. The factorizations
whose factors are unique only up to signs (Svd, SelfAdjointEigV2) map onto the IR's
meaning (ops.spec: each singular/eigen vector's largest-magnitude component positive),
so an imported program's vectors may differ in sign from TF's own, as the frameworks'
differ among themselves; Qr's Householder signs are every target's (ops.spec).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped, swapped
from .lu_results import triangle_solve
from .tensorflow_ctx import Ctx


def _matrix(c: Ctx, x: Any, adjoint: bool) -> Any:
    x = c.operand(x)
    if c.spec(x).dtype.startswith("complex"):
        raise Unmapped("complex matrices")
    return swapped(c, x) if adjoint else x


def _skipped(c: Ctx, i: int) -> Any:
    """TF's empty stand-in for output `i` when the op is asked not to compute it."""
    return c.const(np.zeros((0,)), c.outs[i].dtype)


def _svd(c: Ctx, x: Any, *, compute_uv: bool = True, full_matrices: bool = False,
         **_: Any) -> list[Any]:
    """Svd gives (s, u, v), v untransposed."""
    u, s, vh = c.emit_all("svd", _matrix(c, x, False),
                          full_matrices=bool(compute_uv and full_matrices))
    return [s, u, swapped(c, vh)] if compute_uv else [s, _skipped(c, 1), _skipped(c, 2)]


def _eigh(c: Ctx, x: Any, *, compute_v: bool = True, **_: Any) -> list[Any]:
    w, v = c.emit_all("eigh", _matrix(c, x, False))
    return [w, v if compute_v else _skipped(c, 1)]


def _lu(c: Ctx, x: Any, **_: Any) -> list[Any]:
    """(lu, p): the registry's factors, and its permutation in TF's index dtype."""
    x = _matrix(c, x, False)
    m, n = c.spec(x).shape[-2:]
    if m != n:
        raise Unmapped("LU of a non-square matrix")
    factors, _pivots, order = c.emit_all("lu", x)
    return [factors, c.cast(order, c.outs[1].dtype)]


def _triangular_solve(c: Ctx, a: Any, b: Any, *, lower: bool = True, adjoint: bool = False,
                      **_: Any) -> Any:
    """TF reads only the triangle that `lower` names (the diagonal included)."""
    return triangle_solve(c, _matrix(c, a, False), _matrix(c, b, False), lower=lower,
                          transpose=adjoint)


def _set_diagonal(c: Ctx, x: Any, diagonal: Any, k: Any, **_: Any) -> Any:
    """The main diagonal replaced (tf.linalg.set_diag's default band)."""
    band = c.known(k)
    if band is None or np.any(band != 0):
        raise Unmapped("a diagonal other than the main one")
    x, spec = c.operand(x), c.spec(c.operand(x))
    m, n = spec.shape[-2:]
    eye = c.const(np.eye(m, n, dtype=bool), "bool")
    spread = c.emit("expand_dims", c.operand(diagonal), axis=[spec.rank - 2])
    return c.emit("where", eye, spread, x)


LINALG: dict[str, Rule] = {
    "Lu": _lu,
    "LogMatrixDeterminant": lambda c, x, **_: c.emit_all("slogdet", _matrix(c, x, False)),
    "MatrixTriangularSolve": _triangular_solve,
    "MatrixSetDiagV3": _set_diagonal,
    "InvertPermutation": lambda c, x, **_: c.cast(c.emit("argsort", c.operand(x)),
                                                  c.spec(c.operand(x)).dtype),
    "Cholesky": lambda c, x, **_: c.emit("cholesky", _matrix(c, x, False)),
    "MatrixInverse": lambda c, x, *, adjoint=False, **_: c.emit("inv", _matrix(c, x, adjoint)),
    "MatrixDeterminant": lambda c, x, **_: c.emit("det", _matrix(c, x, False)),
    "MatrixSolve": lambda c, a, b, *, adjoint=False, **_:
        c.emit("solve", _matrix(c, a, adjoint), _matrix(c, b, False)),
    "Qr": lambda c, x, *, full_matrices=False, **_:
        c.emit_all("qr", _matrix(c, x, False), mode="complete" if full_matrices else "reduced"),
    "Svd": _svd,
    "SelfAdjointEigV2": _eigh,
}
"""TF raw op -> rule: linear algebra."""
