"""The NumPy zoo: programs written the way NumPy users write them (float64 by default),
each imported once by the any-to-any matrix and lowered to every target.

Float64 programs compare at rtol 1e-10, atol 1e-12 (`F64_TOL`). The networks (MLP, CNN,
transformer encoder, RNN cells) live in `zoo_numpy_models`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from zoo_common import ZooProgram
from zoo_numpy_models import F64_TOL, MODELS, ints, normal

# ---- elementwise math ----

def elementwise_math(x):
    return np.exp(np.sin(x)) + np.log1p(np.abs(x)) * np.tanh(x) - np.sqrt(x * x + 1.0)


def elementwise_more(x, y):
    a = np.maximum(x, y) - np.minimum(x, 0.5) + np.arctan2(x, y)
    b = np.floor(x * 3) + np.ceil(y) + np.round(x * 10) / 10 + np.sign(y) * np.square(x)
    return a, b, np.power(np.abs(x), 1.5) + np.reciprocal(y + 5.0)


def operators(x, y):
    z = -x + 2 * y - x / (1 + abs(y)) + x**2 - 3.0 // (abs(y) + 1) + x % 0.7 + np.e
    return z, +z, x @ y.T


def inplace_updates(x):
    y = x * 2.0
    y += 1
    y *= x
    y -= x.mean()
    y /= 4
    np.add(y, 1.5, out=y)
    y **= 2
    return y


# ---- reductions ----

def reductions(x):
    return (x.sum(axis=0), x.mean(axis=1, keepdims=True), x.max(), np.min(x, axis=(0, 2)),
            np.prod(x[0], axis=-1), x.std(), np.var(x, axis=1, ddof=1), np.ptp(x, axis=2))


def arg_reductions(x):
    return np.argmax(x, axis=1), x.argmin(), np.argmax(x, axis=0, keepdims=True)


def scans(x):
    return np.cumsum(x, axis=1), np.cumprod(x[:, :4], axis=0), np.cumsum(x)


def ufunc_methods(x, y):
    return (np.add.reduce(x), np.maximum.reduce(x, axis=1), np.multiply.outer(x[0], y),
            np.add.accumulate(x, axis=1), np.minimum.reduce(x, axis=None))


# ---- indexing ----

def basic_indexing(x):
    return (x[1:, ::2], x[::-1], x[..., -1], x[np.newaxis, 0], x[:, 1:-1:2, None], x[-2, 3],
            x[::-2, 1])


def fancy_indexing(x):
    rows = np.array([0, 2, 3, 2])
    a = x[rows]
    b = x[:, [1, 0, -1]]
    c = x[np.array([[0, 1], [2, 3]]), np.array([1, 2])]
    d = x[[0, 1], :, [2, 3]]
    return a, b, c, d


def mask_indexing(x):
    keep = np.array([True, False, True, True, False])
    cols = np.arange(x.shape[1]) % 2 == 0
    return x[keep], x[:, cols], x[keep][:, cols].sum(axis=1)


def traced_index_arrays(x, idx):
    return x[idx], np.take(x, idx, axis=1), x[idx, idx[::-1]], ((idx % 6)[:, None] == np.arange(6)).astype(float)


def setitem(x):
    y = x.copy()
    y[0] = 0.0
    y[:, 1:3] = np.arange(2.0)
    y[y < -1.0] = -1.0
    y[[1, 3]] = 5.0
    y[::2, -1] += 10.0
    y[2, [0, 0]] = [7.0, 8.0]
    return y


def views_alias(x):
    y = np.copy(x)
    row = y[1]
    row *= 2.0
    col = y.T[:, 2]
    col[:] = -1.0
    z = y[::-1]
    y += 1.0
    return y, z, row


# ---- broadcasting and linear algebra ----

def pairwise_distances(a, b):
    d = a[:, None, :] - b[None, :, :]
    return np.sqrt((d**2).sum(axis=-1))


def products(a, b, v):
    return a @ b, np.dot(a, b), np.dot(v, v), np.inner(a, a), np.outer(v, v), np.vdot(a, a)


def einsums(a, b, m):
    return (np.einsum("bij,bjk->bik", a, b), np.einsum("ii->i", m), np.einsum("ij,j->i", m, m[0]),
            np.einsum("bij->j", a))


def tensordots(a, b):
    return np.tensordot(a, b, axes=([1, 2], [0, 1])), np.tensordot(a, b[0], axes=1)


def linalg_solvers(a, b):
    spd = a @ a.T + 4.0 * np.eye(a.shape[0])
    return (np.linalg.inv(spd), np.linalg.det(spd), np.linalg.solve(spd, b),
            np.linalg.cholesky(spd))


def norms(x):
    return (np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, ord=1, axis=0),
            np.linalg.norm(x, "fro"), np.linalg.norm(x, np.inf, axis=1, keepdims=True))


def cosine_similarity(a, b):
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    return an @ bn.T


# ---- shapes ----

def reshapes(x):
    return (x.reshape(4, 6), x.reshape(-1), np.transpose(x, (2, 0, 1)), np.swapaxes(x, 0, 2),
            np.moveaxis(x, 0, -1), np.expand_dims(x, 1), np.squeeze(x[:, :1]), x.ravel(),
            x.T.flatten())


def joins(a, b):
    return (np.concatenate([a, b], axis=0), np.stack([a, b], axis=-1), np.hstack([a, b]),
            np.vstack([a, b[0]]), np.concatenate([a, b], axis=None), np.split(a, 2, axis=1)[1])


def tiles_and_pads(x):
    return (np.tile(x, (2, 1)), np.repeat(x, 2, axis=0), np.flip(x, axis=1), np.roll(x, 2, axis=1),
            np.pad(x, ((1, 0), (2, 2))), np.pad(x, 1, mode="reflect"), np.pad(x, 2, mode="edge"),
            np.fliplr(x) + np.flipud(x))


def where_clip(x, y):
    return np.where(x > y, x, y), np.clip(x, -0.5, 0.5), np.where(x > 0, x, 0.0), x.clip(y, 1.0)


def sorting(x):
    order = np.argsort(x, axis=1)
    top = np.take_along_axis(x, order[:, ::-1][:, :3], axis=1)
    return np.sort(x, axis=0), order, top, np.sort(x, axis=None)


def creation_like(x):
    mask = np.tril(np.ones((x.shape[0], x.shape[0])))
    return (np.zeros_like(x), np.ones_like(x, dtype=np.int32), np.full_like(x, 2.5),
            np.triu(x, k=1), mask @ x, np.tril(x, -1))


def diagonals_and_differences(x, v):
    return (np.diag(v), np.diag(v, 1), np.diag(x, -1), np.trace(x), np.diff(x, axis=0),
            np.diff(v, 2), np.count_nonzero(x > 0, axis=1), np.count_nonzero(v))


# ---- dtype promotion, integers and booleans ----

def promote_int_float(i32, f64, i64):
    return i32 + f64, i64 * 0.5, i32 / 3, i64 / i32, np.sqrt(np.abs(i32)), i32.mean(), i32.sum()


def promote_f32_f64(a32, b64):
    return (a32 + b64, a32 * 2.0, a32 * np.float64(2.0), a32 + np.float32(1.0), a32 / 3,
            np.exp(a32).astype(np.float64) + 1)


def integer_math(a, b):
    return a // 3, a % 5, -a, np.abs(a - 20), a * b + 7, (a & 12) | (b ^ 3), a << 2, a >> 1


def boolean_outputs(x, y):
    p, q = x > 0, y < 0.5
    return (p & q, p | ~q, np.logical_xor(p, q), np.isfinite(x / y), np.any(p, axis=1),
            np.all(q), (p == q).sum(axis=0), p.astype(np.int64) + q)


def divmod_outputs(a, b):
    q, r = np.divmod(a, b)
    fq, fr = divmod(a.astype(np.float64) * 1.5, 2.0)
    return q, r, fq, fr


def static_python_control(x):
    out = x
    for i in range(len(x)):
        if np.shape(x)[1] > 2:
            out = out + x[i] * (i + 1)
    return out if x.ndim == 2 else -out


def closed_over_constants(x):
    return x @ _W_CONST + _B_CONST, x * np.arange(1, 5)


_W_CONST = normal(4, 8)
_B_CONST = normal(8)


PROGRAMS: list[ZooProgram] = [
    ZooProgram("elementwise_math", elementwise_math, (normal(4, 5),), **F64_TOL),
    ZooProgram("elementwise_more", elementwise_more, (normal(3, 4), normal(3, 4)), **F64_TOL),
    ZooProgram("operators", operators, (normal(3, 4), normal(3, 4)), **F64_TOL),
    ZooProgram("inplace_updates", inplace_updates, (normal(4, 3),), **F64_TOL),
    ZooProgram("reductions", reductions, (normal(3, 4, 5),), **F64_TOL),
    ZooProgram("arg_reductions", arg_reductions, (normal(4, 6),), **F64_TOL),
    ZooProgram("scans", scans, (normal(3, 5),), **F64_TOL),
    ZooProgram("ufunc_methods", ufunc_methods, (normal(3, 4), normal(5)), **F64_TOL),
    ZooProgram("basic_indexing", basic_indexing, (normal(5, 6, 4),), **F64_TOL),
    ZooProgram("fancy_indexing", fancy_indexing, (normal(4, 5, 6),), **F64_TOL),
    ZooProgram("mask_indexing", mask_indexing, (normal(5, 6),), **F64_TOL),
    ZooProgram("traced_index_arrays", traced_index_arrays,
               (normal(6, 6), ints(-6, 6, 4)), **F64_TOL),
    ZooProgram("setitem", setitem, (normal(4, 5),), **F64_TOL),
    ZooProgram("views_alias", views_alias, (normal(3, 4),), **F64_TOL),
    ZooProgram("pairwise_distances", pairwise_distances, (normal(5, 3), normal(4, 3)), **F64_TOL),
    ZooProgram("products", products, (normal(3, 3), normal(3, 3), normal(3)), **F64_TOL),
    ZooProgram("einsums", einsums, (normal(2, 3, 4), normal(2, 4, 5), normal(4, 4)), **F64_TOL),
    ZooProgram("tensordots", tensordots, (normal(2, 3, 4), normal(3, 4, 5)), **F64_TOL),
    ZooProgram("linalg_solvers", linalg_solvers, (normal(4, 4), normal(4, 2)), **F64_TOL),
    ZooProgram("norms", norms, (normal(4, 5),), **F64_TOL),
    ZooProgram("cosine_similarity", cosine_similarity, (normal(4, 6), normal(3, 6)), **F64_TOL),
    ZooProgram("reshapes", reshapes, (normal(2, 3, 4),), **F64_TOL),
    ZooProgram("joins", joins, (normal(2, 4), normal(2, 4)), **F64_TOL),
    ZooProgram("tiles_and_pads", tiles_and_pads, (normal(3, 4),), **F64_TOL),
    ZooProgram("where_clip", where_clip, (normal(3, 4), normal(3, 4)), **F64_TOL),
    ZooProgram("sorting", sorting, (normal(4, 6),), **F64_TOL),
    ZooProgram("creation_like", creation_like, (normal(4, 4),), **F64_TOL),
    ZooProgram("diagonals_and_differences", diagonals_and_differences,
               (normal(4, 4), normal(5)), **F64_TOL),
    ZooProgram("promote_int_float", promote_int_float,
               (ints(-9, 9, 3, 4, dtype=np.int32), normal(3, 4), ints(1, 9, 3, 4)), **F64_TOL),
    ZooProgram("promote_f32_f64", promote_f32_f64,
               (normal(3, 4, dtype=np.float32), normal(3, 4))),
    ZooProgram("integer_math", integer_math, (ints(-50, 50, 3, 4), ints(0, 9, 3, 4))),
    ZooProgram("boolean_outputs", boolean_outputs, (normal(3, 4), normal(3, 4)), **F64_TOL),
    ZooProgram("divmod_outputs", divmod_outputs,
               (ints(-20, 20, 3, 4, dtype=np.int32), ints(1, 6, 3, 4, dtype=np.int32)),
               **F64_TOL),
    ZooProgram("static_python_control", static_python_control, (normal(3, 4),), **F64_TOL),
    ZooProgram("closed_over_constants", closed_over_constants, (normal(3, 4),), **F64_TOL),
    *MODELS,
]


def build_500_op(layers: int = 125, width: int = 16) -> tuple[Any, tuple[np.ndarray, ...],
                                                               dict[str, Any]]:
    """A deep residual MLP of about 500 recorded ops (4 per layer): matmul, add, tanh,
    residual add."""
    params = {f"layer{i}": {"w": normal(width, width) * 0.1, "b": normal(width) * 0.1}
              for i in range(layers)}

    def deep_mlp(params, x):
        for i in range(layers):
            layer = params[f"layer{i}"]
            x = x + np.tanh(x @ layer["w"] + layer["b"])
        return x

    return deep_mlp, (normal(8, width),), params
