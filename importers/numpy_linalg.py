"""NumPy's products and `np.linalg` on traced arrays.

`np.dot`/`np.inner`/`np.tensordot` become `matmul` or `tensordot` by operand rank,
exactly as NumPy defines them; `np.matmul`/`np.vecdot` are ufuncs (`numpy_math`).
Decompositions and solvers run the oracle on identity matrices (`on_identities`), so
NumPy's argument checks apply without failing on singular stand-ins. `svd`/`eigh` map
onto the IR's ops, whose vectors follow one sign rule on every target (ops.spec), not
LAPACK's as NumPy returns them: an imported program's vectors may differ in sign from
NumPy's own, as the frameworks' differ among themselves. `LINALG` is the function table
of this family.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core import linalg_compositions as LC

from .common import Rule, Unmapped, spec_of, traced
from .numpy_array import NpArray
from .numpy_context import Call, axes_of, on_identities

MATRIX_ORD = {None: "fro", "fro": "fro", "nuc": "nuc", 1: "1", -1: "-1", 2: "2", -2: "-2",
              math.inf: "inf", -math.inf: "-inf"}
"""NumPy's matrix-norm `ord` values and the registry's names for them."""


def _rank(v: SSAValue) -> int:
    return len(spec_of(v).shape)


# ---- products ----

def _dot(c: Call, a: Any, b: Any, out: Any = None) -> NpArray:
    x, y = c.val(a), c.val(b)
    ra, rb = _rank(x), _rank(y)
    if ra == 0 or rb == 0:
        return c.new(c.emit("multiply", x, y))
    if rb == 1 or (ra <= 2 and rb <= 2):
        return c.new(c.emit("matmul", x, y))
    # N-d . M-d: sum over the last axis of a and the second-to-last of b
    return c.new(c.emit("tensordot", x, y, axes_x=[ra - 1], axes_y=[rb - 2]))


def _vdot(c: Call, a: Any, b: Any) -> NpArray:
    x, y = (c.emit("reshape", c.val(v), shape=[-1]) for v in (a, b))
    return c.new(c.emit("matmul", x, y))


def _inner(c: Call, a: Any, b: Any) -> NpArray:
    x, y = c.val(a), c.val(b)
    ra, rb = _rank(x), _rank(y)
    if ra == 0 or rb == 0:
        return c.new(c.emit("multiply", x, y))
    return c.new(c.emit("tensordot", x, y, axes_x=[ra - 1], axes_y=[rb - 1]))


def _outer(c: Call, a: Any, b: Any, out: Any = None) -> NpArray:
    x, y = (c.emit("reshape", c.val(v), shape=[-1]) for v in (a, b))
    return c.new(c.emit("outer", x, y))


def _tensordot(c: Call, a: Any, b: Any, axes: Any = 2) -> NpArray:
    x, y = c.val(a), c.val(b)
    ra = _rank(x)
    if isinstance(axes, (int, np.integer)):
        ax, ay = list(range(ra - int(axes), ra)), list(range(int(axes)))
    else:
        ax, ay = (list(np.atleast_1d(v).astype(int)) for v in axes)
    return c.new(c.emit("tensordot", x, y, axes_x=ax, axes_y=ay))


def _einsum(c: Call, *operands: Any, out: Any = None, optimize: Any = False,
            **kwargs: Any) -> NpArray:
    if not operands or not isinstance(operands[0], str):
        raise Unmapped("operands")
    values = [c.val(v) for v in operands[1:]]
    return c.new(c.emit("einsum", values, equation=operands[0].replace(" ", "")))


def _multi_dot(c: Call, arrays: Any, *, out: Any = None) -> NpArray:
    values = [c.val(v) for v in arrays]
    acc = values[0]
    for v in values[1:]:
        acc = c.emit("matmul", acc, v)
    return c.new(acc)


# ---- norms ----

def _matrix_norm(c: Call, x: SSAValue, ord: Any, axes: list[int], keepdims: bool) -> NpArray:
    if ord not in MATRIX_ORD:
        raise Unmapped("ord")
    rank = _rank(x)
    rest = [d for d in range(rank) if d not in axes]
    if axes != [rank - 2, rank - 1]:
        x = c.emit("permute_dims", x, axes=rest + axes)
    r = c.emit("matrix_norm", x, ord=MATRIX_ORD[ord])
    if keepdims:
        r = c.emit("reshape", r, shape=list(c.shape))
    return c.new(r)


def _norm(c: Call, x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> NpArray:
    v = c.val(x)
    rank = _rank(v)
    axes = axes_of(axis, rank)
    if axes is None and ord is not None:
        axes = list(range(rank))
    if axes is not None and len(axes) == 2:
        return _matrix_norm(c, v, ord, axes, bool(keepdims))
    if isinstance(ord, str):
        raise Unmapped("ord")
    p = 2.0 if ord is None else float(ord)
    return c.new(c.emit("vector_norm", v, ord=p, axis=axes, keepdims=bool(keepdims)))


def _vector_norm(c: Call, x: Any, *, axis: Any = None, keepdims: bool = False,
                 ord: Any = 2) -> NpArray:
    v = c.val(x)
    return c.new(c.emit("vector_norm", v, ord=float(ord), axis=axes_of(axis, _rank(v)),
                        keepdims=bool(keepdims)))


def _matrix_norm_fn(c: Call, x: Any, *, keepdims: bool = False, ord: Any = "fro") -> NpArray:
    v = c.val(x)
    return _matrix_norm(c, v, ord, [_rank(v) - 2, _rank(v) - 1], bool(keepdims))


# ---- decompositions and solvers ----

@on_identities
def _inv(c: Call, a: Any) -> NpArray:
    return c.new(c.emit(c.name.split(".")[1], c.val(a)))


@on_identities
def _cholesky(c: Call, a: Any, *, upper: bool = False) -> NpArray:
    return c.new(c.emit("cholesky", c.val(a), upper=bool(upper)))


@on_identities
def _solve(c: Call, a: Any, b: Any) -> NpArray:
    return c.new(c.emit("solve", c.val(a), c.val(b)))


def _results(c: Call, values: list[SSAValue]) -> tuple[NpArray, ...]:
    return tuple(c.s.new(c.s.cast(v, o.dtype)) for v, o in zip(values, c.examples))


@on_identities
def _qr(c: Call, a: Any, mode: str = "reduced") -> tuple[NpArray, ...]:
    if mode not in ("reduced", "complete"):
        raise Unmapped("mode")
    return _results(c, c.emit_all("qr", c.val(a), mode=mode))


@on_identities
def _svd(c: Call, a: Any, full_matrices: bool = True, compute_uv: bool = True,
         hermitian: bool = False) -> Any:
    if hermitian:
        raise Unmapped("hermitian")
    u, s, vh = c.emit_all("svd", c.val(a), full_matrices=bool(full_matrices))
    return _results(c, [u, s, vh]) if compute_uv else c.new(s)


@on_identities
def _eigh(c: Call, a: Any, UPLO: str = "L") -> tuple[NpArray, ...]:
    if UPLO != "L":
        raise Unmapped("UPLO")
    return _results(c, c.emit_all("eigh", c.val(a)))


@on_identities
def _slogdet(c: Call, a: Any) -> tuple[NpArray, ...]:
    return _results(c, c.emit_all("slogdet", c.val(a)))


def _composed(fn: Any, c: Call, *operands: Any, **attrs: Any) -> NpArray:
    """A composition of `ivy_ir.core.linalg_compositions` on the operands (each in its
    own dtype), its result in NumPy's."""
    values = [c.val(a, a.dtype) if hasattr(a, "dtype") else a for a in operands]
    return c.new(traced(c.s.builder.graph, fn, *values, **attrs))


def _tolerance(rcond: Any, rtol: Any) -> Any:
    if rcond is not None and rtol is not None:
        raise Unmapped("both rcond and rtol")
    return rcond if rtol is None else rtol


@on_identities
def _pinv(c: Call, a: Any, rcond: Any = None, hermitian: bool = False, *,
          rtol: Any = None) -> NpArray:
    if hermitian:
        raise Unmapped("hermitian")
    return _composed(LC.pinv, c, a, rtol=_tolerance(rcond, rtol))


@on_identities
def _matrix_rank(c: Call, A: Any, tol: Any = None, hermitian: bool = False, *,  # noqa: N803
                 rtol: Any = None) -> NpArray:
    if tol is not None or hermitian:
        raise Unmapped("an absolute tolerance" if tol is not None else "hermitian")
    if c.s.array(A).ndim < 2:  # NumPy's rank of a vector or scalar: 1 unless all zeros
        x = c.s.lift(A)
        nonzero = c.emit("any", c.emit("not_equal", x, c.s.lift(0, c.s.array(A).dtype)))
        return c.new(nonzero, np.int64)  # a Python int from NumPy: int64 here
    return _composed(LC.matrix_rank, c, A, rtol=rtol)


@on_identities
def _eigvalsh(c: Call, a: Any, UPLO: str = "L") -> NpArray:  # noqa: N803
    if UPLO != "L":
        raise Unmapped("UPLO")
    return _composed(LC.eigvalsh, c, a)


@on_identities
def _matrix_power(c: Call, a: Any, n: int) -> NpArray:
    return _composed(LC.matrix_power, c, a, n=int(n))


def _cross(c: Call, a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
           axis: int | None = None) -> NpArray:
    if axis is None and not axisa == axisb == axisc:
        raise Unmapped("different axes for a, b and the result")
    axis = axisa if axis is None else axis
    if np.shape(a)[axis] != 3 or np.shape(b)[axis] != 3:
        raise Unmapped("vectors of two components")
    return _composed(LC.cross, c, a, b, axis=axis)


@on_identities
def _cond(c: Call, x: Any, p: Any = None) -> NpArray:
    if p is not None:
        raise Unmapped("a norm other than the 2-norm")
    return _composed(LC.condition_number, c, x)


def _vander(c: Call, x: Any, N: int | None = None, increasing: bool = False  # noqa: N803
            ) -> NpArray:
    """The powers as NumPy builds them, a running product along each row (its
    `multiply.accumulate`), so floats round the same way."""
    column = c.emit("expand_dims", c.val(x), axis=[1])
    n = c.spec(column).shape[0] if N is None else int(N)
    if n < 1:
        raise Unmapped("no columns")
    powers = c.emit("cumprod", c.emit("concat", [c.emit("ones_like", column)] + [column] * (n - 1),
                                      axis=1), axis=1)
    return c.new(powers if increasing else c.emit("flip", powers, axis=[1]))


LINALG: dict[str, Rule] = {
    "dot": _dot, "vdot": _vdot, "inner": _inner, "outer": _outer, "tensordot": _tensordot,
    "einsum": _einsum, "linalg.multi_dot": _multi_dot, "linalg.norm": _norm,
    "linalg.vector_norm": _vector_norm, "linalg.matrix_norm": _matrix_norm_fn,
    "linalg.inv": _inv, "linalg.det": _inv, "linalg.cholesky": _cholesky,
    "linalg.solve": _solve, "linalg.qr": _qr, "linalg.svd": _svd, "linalg.eigh": _eigh,
    "linalg.slogdet": _slogdet, "linalg.pinv": _pinv, "linalg.matrix_rank": _matrix_rank,
    "linalg.eigvalsh": _eigvalsh, "linalg.matrix_power": _matrix_power, "cross": _cross,
    "linalg.cross": _cross, "linalg.cond": _cond, "vander": _vander,
}
"""NumPy function name -> its rule (see `numpy_context`)."""
