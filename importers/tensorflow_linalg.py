"""TF linear-algebra ops -> ivy ops: the decompositions and solvers whose result is
unique (Cholesky's lower factor, inverse, determinant, the solution of a square
system).

`adjoint` asks for the conjugate transpose of the matrix operand; for the real dtypes
the registry ops take, that is the transpose of the last two axes. The factorizations
whose factors are unique only up to signs or order (Qr, Svd, SelfAdjointEigV2) wait for
one meaning of those in the IR and are reported until then.
"""

from __future__ import annotations

from typing import Any

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx


def _matrix(c: Ctx, x: Any, adjoint: bool) -> Any:
    x = c.operand(x)
    if c.spec(x).dtype.startswith("complex"):
        raise Unmapped("complex matrices")
    if not adjoint:
        return x
    rank = c.rank(x)
    return c.emit("permute_dims", x, axes=[*range(rank - 2), rank - 1, rank - 2])


LINALG: dict[str, Rule] = {
    "Cholesky": lambda c, x, **_: c.emit("cholesky", _matrix(c, x, False)),
    "MatrixInverse": lambda c, x, *, adjoint=False, **_: c.emit("inv", _matrix(c, x, adjoint)),
    "MatrixDeterminant": lambda c, x, **_: c.emit("det", _matrix(c, x, False)),
    "MatrixSolve": lambda c, a, b, *, adjoint=False, **_:
        c.emit("solve", _matrix(c, a, adjoint), _matrix(c, b, False)),
}
"""TF raw op -> rule: linear algebra with a unique result."""
