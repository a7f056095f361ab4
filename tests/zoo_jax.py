"""The JAX zoo: programs written the way JAX users write them (jnp, jax.nn, lax).

Functions take JAX arrays (the matrix converts the NumPy inputs); model programs are
Flax/Haiku-style `apply(params, x)` functions over a params pytree. Inputs are float32
or int32 explicitly, so the dtypes do not depend on `jax_enable_x64`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from zoo_common import ZooProgram
from zoo_jax_models import MODEL_PROGRAMS, build_500_op

__all__ = ["PROGRAMS", "build_500_op"]

rng = np.random.default_rng(11)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def ints(low: int, high: int, *shape: int) -> np.ndarray:
    return rng.integers(low, high, shape).astype(np.int32)


def elementwise_math(x):
    y = jnp.exp(-jnp.abs(x)) + jnp.log1p(x ** 2) - jnp.sin(x) * jnp.cos(x)
    return jnp.tanh(y) + jnp.sqrt(jnp.abs(x) + 1.0) * lax.rsqrt(jnp.abs(x) + 2.0)


def unary_misc(x):
    return (jnp.sign(x) / (jnp.abs(x) + 1.0), jnp.floor(x * 3), jnp.ceil(x * 3),
            jnp.round(x * 2), lax.round(x * 2), jax.scipy.special.erf(x), jnp.expm1(x / 4),
            jnp.exp2(x), jnp.arctan2(x, x + 1), jnp.square(x))


def activations(x):
    return (jax.nn.relu(x), jax.nn.gelu(x), jax.nn.gelu(x, approximate=False),
            jax.nn.silu(x), jax.nn.softplus(x), jax.nn.elu(x), jax.nn.leaky_relu(x, 0.1),
            jax.nn.sigmoid(x), jax.nn.relu6(x * 4), jax.nn.hard_tanh(x))


def broadcasting(x, y):
    # (3, 1, 4) against (5, 4)
    return jnp.maximum(x, y) * 2.0 - jnp.minimum(x, y) / (jnp.abs(y) + 1.0)


def powers(x, y):
    a = jnp.abs(x) + 0.5
    return a ** y, x ** 3, a ** -2, jnp.power(a, 0.5), lax.integer_pow(x, 5)


def reductions(x):
    return (x.sum(), x.mean(axis=0), jnp.max(x, axis=(1, 2)), x.min(axis=-1, keepdims=True),
            jnp.prod(x[:, :2], axis=1), jnp.var(x, axis=1), jnp.std(x, axis=-1, ddof=1),
            jnp.linalg.norm(x, axis=-1))


def softmax_family(x):
    return jax.nn.softmax(x, axis=-1), jax.nn.log_softmax(x, axis=1), \
        jax.nn.logsumexp(x, axis=-1, keepdims=True)


def arg_reductions(x):
    # integer outputs
    return jnp.argmax(x, axis=1), jnp.argmin(x, axis=-1), jnp.argmax(x.reshape(-1))


def slicing(x):
    return x[1:, ::2], x[-1], x[::-1, 1:-1], x[:, None, 2], x[:, -3::-2], x[None, 0, 1:]


def static_mask(x):
    # boolean mask known while tracing: a NumPy mask selects fixed rows
    keep = np.array([True, False, True, True, False, True])
    return x[keep], jnp.where(x > 0, x, 0.0).sum(axis=0)


def gather_indexing(x, idx):
    return x[idx], x[:, idx], jnp.take(x, idx, axis=1), x[idx, idx], x[idx, 1:3]


def take_along(x, idx):
    order = jnp.argsort(x, axis=1)
    return jnp.take_along_axis(x, idx, axis=1), jnp.take_along_axis(x, order, axis=1)


def scatter_updates(x, idx, v):
    return x.at[idx].set(v), x.at[idx].add(1.0), x.at[0, :2].set(-1.0), x.at[:, 1].add(x[:, 2])


def matmul_einsum(a, b, c):
    return (a @ b, jnp.einsum("bij,bjk->bik", c, c.transpose(0, 2, 1)), jnp.dot(a, b[:, 0]),
            jnp.einsum("ij,kj->ik", a, a), jnp.einsum("bij->bj", c), jnp.outer(a[0], b[0]),
            jnp.tensordot(c, b, axes=([2], [0])))


def dtype_promotion(i, x, d):
    # int32 + float32 -> float32; float32 + float64 -> float64 with x64 (float32 without);
    # weak Python scalars keep the array's dtype
    return i + x, x * d, i * 2, i / 2, x + 1, (i > 1) + i


def integer_ops(a, b):
    # integer outputs: floor division, modulo (sign of b), rem (sign of a), bit ops
    return (a // b, a % b, lax.rem(a, b), lax.div(a, b), a & b, a | b, a ^ b, ~a, a << 1,
            a >> 1, jnp.abs(a) * b - a)


def float_division(x, y):
    return x // y, x % y, lax.rem(x, y), jnp.fmod(x, y)


def logic(x, y):
    # bool outputs
    a, b = x > 0, y < 0.5
    return a & b, a | ~b, a ^ b, x == y, jnp.logical_not(a), jnp.isfinite(x / y), jnp.all(a),\
        jnp.any(b, axis=0)


def shape_ops(x):
    y = jnp.concatenate([x, x * 2], axis=1)
    s1, s2 = jnp.split(y, [3], axis=1)
    return (jnp.stack([x, -x], axis=-1), s1, s2, x.reshape(4, -1).T, jnp.squeeze(x[:, :1]),
            jnp.expand_dims(x, 0), jnp.tile(x[:1], (2, 1)), jnp.repeat(x, 2, axis=0),
            jnp.moveaxis(x[None], 0, -1), jnp.flip(x, 1), jnp.roll(x, 1, axis=1))


def padding(x):
    return (jnp.pad(x, ((1, 2), (0, 1))), jnp.pad(x, 1, constant_values=-1.0),
            lax.pad(x, np.float32(0.5), [(1, -1, 1), (-1, 2, 2)]), jnp.pad(x, ((0, 0), (2, 2)), mode="edge"))


def scans_and_sorts(x):
    return (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0), lax.cumsum(x, axis=1, reverse=True),
            jnp.sort(x, axis=-1), jnp.sort(x, axis=0, descending=True), jnp.argsort(x, axis=1),
            *lax.top_k(x, 2))


def clipping(x):
    return jnp.clip(x, -0.5, 0.5), lax.clamp(np.float32(-1), x, np.float32(1)), jnp.clip(x, min=0.0), \
        jnp.where(jnp.abs(x) > 1, jnp.sign(x), x)


def dynamic_slices(x):
    patch = lax.dynamic_slice(x, (1, 2), (2, 3))
    return patch, lax.dynamic_update_slice(x, patch * 10, (3, 0)), \
        lax.dynamic_slice_in_dim(x, -2, 2, axis=0)


def creation(x):
    n = x.shape[0]
    mask = jnp.tril(jnp.ones((n, n), x.dtype))
    pos = jnp.arange(n, dtype=jnp.float32)[:, None] * jnp.linspace(0.0, 1.0, x.shape[1])
    return mask @ x + pos, jnp.eye(n, dtype=x.dtype) * x[:, :n], jnp.zeros_like(x) + 3.0, \
        jnp.triu(x, 1), jnp.full((2, 3), 7, jnp.int32)


@jax.jit
def _inner(x, y):
    return jnp.tanh(x @ y) * 0.5


@jax.custom_jvp
def _soft_sign(x):
    return x / (1.0 + jnp.abs(x))


_soft_sign.defjvp(lambda primals, tangents: (_soft_sign(primals[0]),
                                             tangents[0] / (1 + jnp.abs(primals[0])) ** 2))


def nested_calls(x, y):
    # jit-in-jit, custom_jvp, checkpoint and stop_gradient are walked into
    z = _inner(x, y)
    z = jax.checkpoint(lambda t: jnp.sin(t) * t)(z)
    return _soft_sign(z) + lax.stop_gradient(z)


def fori_loop(x):
    # static trip count: staged to a scan, imported as ivy.scan
    return lax.fori_loop(0, 4, lambda i, acc: acc * 0.5 + jnp.sin(acc) * i, x)


def scan_cumulative(xs, h0):
    def step(h, x):
        h = jnp.tanh(h * 0.9 + x)
        return h, h.sum()
    return lax.scan(step, h0, xs)


def multiple_outputs(x):
    # float, float and integer outputs of one program
    return x.mean(axis=0), x.max(axis=0), (x > 0).sum(axis=0)


def one_hot_lookup(idx, x):
    return jax.nn.one_hot(idx, 5) @ x, jax.nn.one_hot(idx, 4, dtype=jnp.int32)


PROGRAMS: list[ZooProgram] = [
    ZooProgram("elementwise_math", elementwise_math, (f32(4, 5),)),
    ZooProgram("unary_misc", unary_misc, (f32(4, 5),)),
    ZooProgram("activations", activations, (f32(3, 7),)),
    ZooProgram("broadcasting", broadcasting, (f32(3, 1, 4), f32(5, 4))),
    ZooProgram("powers", powers, (f32(3, 4), f32(3, 4))),
    ZooProgram("reductions", reductions, (f32(3, 4, 5),)),
    ZooProgram("softmax_family", softmax_family, (f32(3, 6),)),
    ZooProgram("arg_reductions", arg_reductions, (f32(4, 6),)),
    ZooProgram("slicing", slicing, (f32(5, 6),)),
    ZooProgram("static_mask", static_mask, (f32(6, 3),)),
    ZooProgram("gather_indexing", gather_indexing, (f32(5, 4), ints(-3, 3, 3))),
    ZooProgram("take_along", take_along, (f32(3, 5), ints(0, 5, 3, 2))),
    ZooProgram("scatter_updates", scatter_updates, (f32(5, 3), ints(-5, 5, 4), f32(4, 3))),
    ZooProgram("matmul_einsum", matmul_einsum, (f32(3, 4), f32(4, 5), f32(2, 3, 4))),
    ZooProgram("dtype_promotion", dtype_promotion,
               (ints(-5, 5, 3, 4), f32(3, 4), rng.standard_normal((3, 4)))),
    ZooProgram("integer_ops", integer_ops, (ints(-20, 20, 4, 5), ints(1, 7, 4, 5))),
    ZooProgram("float_division", float_division, (f32(4, 5) * 4, np.abs(f32(4, 5)) + 0.5)),
    ZooProgram("logic", logic, (f32(4, 5), f32(4, 5))),
    ZooProgram("shape_ops", shape_ops, (f32(4, 6),)),
    ZooProgram("padding", padding, (f32(3, 4),)),
    ZooProgram("scans_and_sorts", scans_and_sorts, (f32(4, 5),)),
    ZooProgram("clipping", clipping, (f32(4, 5) * 2,)),
    ZooProgram("dynamic_slices", dynamic_slices, (f32(5, 6),)),
    ZooProgram("creation", creation, (f32(4, 6),)),
    ZooProgram("nested_calls", nested_calls, (f32(3, 4), f32(4, 2))),
    ZooProgram("fori_loop", fori_loop, (f32(3, 4),)),
    ZooProgram("scan_cumulative", scan_cumulative, (f32(5, 3), f32(3))),
    ZooProgram("multiple_outputs", multiple_outputs, (f32(5, 4),)),
    ZooProgram("one_hot_lookup", one_hot_lookup, (ints(0, 5, 6), f32(5, 3))),
    *MODEL_PROGRAMS,
]
