"""The `recompose` pass: decomposed formulas written with the facade (and as JAX, TF and
torch code traces them) become registry ops, and compute what they did before.

Every case runs through the NumPy lowering (the reference semantics) before and after
the pass, and counts the op it should recompose to.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects.builtin import FileLineColLoc

import ivy
import ivy_ir
from ivy_ir.passes import run_pipeline

RNG = np.random.default_rng(0)
F32 = np.float32


def _arr(*shape: int, dtype=F32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _ops(module: ivy_ir.Module) -> list[str]:
    return [op.name.removeprefix("ivy.") for op in module.entry.walk()
            if op.name.startswith("ivy.")]


def _run(module: ivy_ir.Module, args: tuple, params: dict | None) -> list[np.ndarray]:
    out = ivy_ir.lower(module, "numpy")(*args)
    return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]


def check(fn, args: tuple, op: str | None, count: int = 1, params: dict | None = None,
          passes: str = "recompose", tol: float = 1e-5, **trace) -> ivy_ir.Module:
    """Trace, recompose, count `op` and compare both programs on the NumPy target."""
    before = ivy_ir.trace(fn, args=args, params=params, **trace)
    after = run_pipeline(before, passes)
    if op is not None:
        assert _ops(after).count(op) == count, _ops(after)
    for want, got in zip(_run(before, args, params), _run(after, args, params)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    return after


# ---- the facade, written out ----

X = _arr(4, 8)

FORMULAS = {
    "gelu_erf": (lambda x: x * (ivy.erf(x / math.sqrt(2)) + 1) / 2, "gelu"),
    "gelu_erfc": (lambda x: 0.5 * x * (1 - ivy.erf(-x * math.sqrt(0.5))), "gelu"),
    "gelu_tanh": (lambda x: 0.5 * x * (1 + ivy.tanh(math.sqrt(2 / math.pi)
                                                    * (x + 0.044715 * x ** 3))), "gelu"),
    "sigmoid": (lambda x: 1 / (1 + ivy.exp(-x)), "sigmoid"),
    "silu_div": (lambda x: x / (1 + ivy.exp(-x)), "silu"),
    "silu_mul": (lambda x: ivy.sigmoid(x) * x, "silu"),
    "softmax": (lambda x: ivy.exp(x - ivy.max(x, axis=[1], keepdims=True))
                / ivy.sum(ivy.exp(x - ivy.max(x, axis=[1], keepdims=True)), axis=[1],
                          keepdims=True), "softmax"),
    "softmax_naive_axis0": (lambda x: ivy.exp(x) / ivy.sum(ivy.exp(x), axis=[0],
                                                           keepdims=True), "softmax"),
    "log_softmax": (lambda x: x - ivy.max(x, axis=[-1], keepdims=True) - ivy.log(
        ivy.sum(ivy.exp(x - ivy.max(x, axis=[-1], keepdims=True)), axis=[-1],
                keepdims=True)), "log_softmax"),
    "rms_norm": (lambda x: x / ivy.sqrt(ivy.mean(x * x, axis=[-1], keepdims=True) + 1e-6),
                 "rms_norm"),
}


@pytest.mark.parametrize("name", FORMULAS)
def test_formula_recomposes(name):
    fn, op = FORMULAS[name]
    after = check(fn, (X,), op)
    assert len(_ops(after)) == 1, _ops(after)  # nothing of the formula is left


def test_softmax_without_max_subtraction_no_longer_overflows():
    x = np.array([[1000.0, 0.0], [1.0, 2.0]], F32)  # exp(1000) is inf in float32
    before = ivy_ir.trace(lambda x: ivy.exp(x) / ivy.sum(ivy.exp(x), axis=[-1],
                                                         keepdims=True), args=(x,))
    after = run_pipeline(before, "recompose")
    with np.errstate(all="ignore"):
        assert np.isnan(_run(before, (x,), None)[0][0, 0])
    np.testing.assert_allclose(_run(after, (x,), None)[0],
                               np.exp(x - x.max(-1, keepdims=True))
                               / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True),
                               rtol=1e-6)


def test_gelu_in_float16_and_float64():
    for dtype in (np.float16, np.float64):
        check(FORMULAS["gelu_tanh"][0], (X.astype(dtype),), "gelu", tol=2e-3)


LN_PARAMS = {"w": _arr(8), "b": _arr(8)}


def ln_torch(p, x):  # (x - mean) / sqrt(var + eps) * w + b
    mu = ivy.mean(x, axis=[-1], keepdims=True)
    var = ivy.mean(ivy.square(x - mu), axis=[-1], keepdims=True)
    return (x - mu) / ivy.sqrt(var + 1e-5) * p["w"] + p["b"]


def ln_flax(p, x):  # var = max(0, E[x^2] - E[x]^2); (x - mean) * (rsqrt(var + eps) * w) + b
    mu = ivy.mean(x, axis=[1], keepdims=True)
    var = ivy.maximum(0.0, ivy.mean(ivy.square(x), axis=[1], keepdims=True) - mu * mu)
    return (x - mu) * (ivy.rsqrt(var + 1e-6) * p["w"]) + p["b"]


def ln_keras(p, x):  # inv = rsqrt(var + eps) * gamma; x * inv + (beta - mean * inv)
    mu = ivy.mean(x, axis=[1], keepdims=True)
    inv = ivy.rsqrt(ivy.var(x, axis=[1], keepdims=True) + 1e-3) * p["w"]
    return x * inv + (p["b"] - mu * inv)


@pytest.mark.parametrize("fn", [ln_torch, ln_flax, ln_keras])
def test_layer_norm_spellings(fn):
    after = check(fn, (X,), "layer_norm", params=LN_PARAMS)
    assert _ops(after) == ["layer_norm"]


def test_rms_norm_with_weight():
    after = check(lambda p, x: x * ivy.rsqrt(ivy.mean(ivy.square(x), axis=[-1], keepdims=True)
                                             + 1e-6) * p["w"], (X,), "rms_norm",
                  params={"w": LN_PARAMS["w"]})
    assert _ops(after) == ["rms_norm"]


def test_linear_forms():
    p = {"w": _arr(3, 8), "b": _arr(3), "k": _arr(8, 3)}
    after = check(lambda p, x: (x @ p["w"].T + p["b"], ivy.matmul(x, p["k"]) + p["b"]), (X,),
                  "linear", count=2, params=p)
    assert "matmul" not in _ops(after) and "add" not in _ops(after)


def mha(x, mask=None, causal=False):
    """Multi-head self-attention written out, heads split and merged around it."""
    b, length, _ = x.shape
    heads = ivy.permute_dims(ivy.reshape(x, shape=[b, length, 2, 4]), axes=[0, 2, 1, 3])
    s = ivy.matmul(heads, ivy.permute_dims(heads, axes=[0, 1, 3, 2])) / math.sqrt(4)
    if causal:  # masked_fill(triu(ones, 1), -inf)
        drop = ivy.triu(ivy.ones(shape=[length, length], dtype="bool"), k=1)
        s = ivy.where(drop, -math.inf, s)
    if mask is not None:
        s = ivy.where(mask, s, -math.inf) if mask.dtype == "bool" else s + mask
    o = ivy.matmul(ivy.softmax(s, axis=-1), heads)
    return ivy.reshape(ivy.permute_dims(o, axes=[0, 2, 1, 3]), shape=[b, length, 8])


@pytest.mark.parametrize("kind", ["plain", "causal", "bool", "float"])
def test_attention_recomposes(kind):
    x = _arr(2, 5, 8)
    args: tuple = (x,)
    if kind == "bool":
        args = (x, RNG.random((2, 1, 1, 5)) > 0.3)
    elif kind == "float":
        args = (x, _arr(5, 5))
    after = check(lambda x, *m: mha(x, *m, causal=kind == "causal"), args,
                  "scaled_dot_product_attention")
    assert "softmax" not in _ops(after)


def test_batch_norm_folds_into_conv_and_linear():
    p = {"w": _arr(4, 3, 3, 3), "b": _arr(4), "gamma": _arr(4), "beta": _arr(4),
         "lw": _arr(4, 8)}
    buffers = {"mean": _arr(4), "var": RNG.uniform(0.5, 2.0, 4).astype(F32)}

    def net(p, x, v):
        y = ivy.conv(x, p["w"], p["b"], strides=[1, 1], padding=[1, 1, 1, 1],
                     dilations=[1, 1])
        y = ivy.batch_norm(y, p["mean"], p["var"], p["gamma"], p["beta"], eps=1e-3)
        z = ivy.batch_norm(ivy.linear(v, p["lw"]), p["mean"], p["var"], axis=-1)
        return ivy.relu(y), z

    args = (_arr(2, 3, 6, 6), X)
    after = check(net, args, "batch_norm", count=0, params=p, buffers=buffers, tol=1e-4)
    assert _ops(after).count("conv") == 1 and _ops(after).count("linear") == 1
    kept = check(net, args, "batch_norm", count=2, params=p, buffers=buffers,
                 passes="recompose{fold-batch-norm=false}")
    assert "conv" in _ops(kept)


# ---- decompose -> recompose gives the op back ----

ROUND_TRIP = {
    "gelu": (lambda x: ivy.gelu(x), (X,)),
    "gelu_tanh": (lambda x: ivy.gelu(x, approximate="tanh"), (X,)),
    "sigmoid": (lambda x: ivy.sigmoid(x), (X,)),
    "silu": (lambda x: ivy.silu(x), (X,)),
    "softmax": (lambda x: ivy.softmax(x), (X,)),
    "softmax_axis0": (lambda x: ivy.softmax(x, axis=0), (X,)),
    "log_softmax": (lambda x: ivy.log_softmax(x, axis=-2), (X,)),
    "layer_norm": (lambda x, w: ivy.layer_norm(x, w, w, eps=1e-3), (X, _arr(8))),
    "layer_norm_axes": (lambda x, w: ivy.layer_norm(x, w, axis=[1, 2]), (_arr(2, 3, 4),
                                                                         _arr(3, 4))),
    "layer_norm_middle": (lambda x, w: ivy.layer_norm(x, None, w, axis=[1]),
                          (_arr(2, 3, 4), _arr(3))),
    "rms_norm": (lambda x, w: ivy.rms_norm(x, w), (X, _arr(8))),
    "linear": (lambda x, w: ivy.linear(x, w), (X, _arr(3, 8))),
    "linear_bias": (lambda x, w, b: ivy.linear(x, w, b), (_arr(2, 4, 8), _arr(3, 8), _arr(3))),
    "scaled_dot_product_attention": (
        lambda q, k, v: ivy.scaled_dot_product_attention(q, k, v), (_arr(2, 5, 8),) * 3),
    "sdpa_causal_scale": (
        lambda q, k, v: ivy.scaled_dot_product_attention(q, k, v, causal=True, scale=0.3),
        (_arr(2, 2, 5, 4), _arr(2, 2, 5, 4), _arr(2, 2, 5, 6))),
    "sdpa_bool_mask": (lambda q, m: ivy.scaled_dot_product_attention(q, q, q, m),
                       (_arr(2, 5, 4), RNG.random((5, 5)) > 0.3)),
    "sdpa_float_mask": (lambda q, m: ivy.scaled_dot_product_attention(q, q, q, m),
                        (_arr(2, 5, 4), _arr(2, 1, 5))),
}


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_decompose_then_recompose_round_trip(name):
    fn, args = ROUND_TRIP[name]
    original = ivy_ir.trace(fn, args=args)
    (op,) = _ops(original)
    expanded = run_pipeline(original, "decompose")
    assert op not in _ops(expanded)
    after = check(fn, args, op, passes="decompose,recompose")
    assert _ops(after) == [op]
    # the same attributes (axis, eps, causal, scale, approximate), axes up to their sign
    assert _attrs(after) == _attrs(original)


def _attrs(module: ivy_ir.Module) -> dict:
    op = module.entry.body.block.first_op
    rank = len(op.operands[0].type.get_shape())
    out = op.attr_values()
    if "axis" in out:
        out["axis"] = (out["axis"] % rank if isinstance(out["axis"], int)
                       else sorted(a % rank for a in out["axis"]))
    return out


def test_recomposed_op_keeps_the_user_location():
    after = check(FORMULAS["gelu_erf"][0], (X,), "gelu")
    op = after.entry.body.block.first_op
    assert isinstance(op.location, FileLineColLoc)
    assert op.location.filename.data.endswith("test_pass_recompose.py")


# ---- where it must not fire ----

NEGATIVE = {
    # the max over axis 0 is not constant along axis 1: only exp(z)/sum(exp(z)) is softmax
    "softmax_other_axis": (lambda x: ivy.exp(x - ivy.max(x, axis=[0], keepdims=True))
                           / ivy.sum(ivy.exp(x - ivy.max(x, axis=[0], keepdims=True)),
                                     axis=[1], keepdims=True), "max"),
    "gelu_wrong_constant": (lambda x: 0.5 * x * (1 + ivy.tanh(
        math.sqrt(2 / math.pi) * (x + 0.04 * x ** 3))), "tanh"),
    "gelu_intermediate_returned": (lambda x: (0.5 * x * (1 + ivy.erf(x / math.sqrt(2))),
                                              ivy.erf(x / math.sqrt(2))), "erf"),
    "layer_norm_var_other_axis": (lambda x: (x - ivy.mean(x, axis=[1], keepdims=True))
                                  * ivy.rsqrt(ivy.var(x, axis=[0], keepdims=True) + 1e-5),
                                  "rsqrt"),
    # without the guard a row of -inf gives NaN (-inf - -inf), the fused op -inf
    "logsumexp_unguarded": (lambda x: ivy.log(ivy.sum(ivy.exp(
        x - ivy.max(x, axis=[1], keepdims=True)), axis=[1])) + ivy.max(x, axis=[1]), "log"),
    "finite_mask_fill": (lambda q, m: ivy.matmul(ivy.softmax(ivy.where(
        m, ivy.matmul(q, ivy.permute_dims(q, axes=[1, 0])), -1e9)), q), "matmul"),
}


@pytest.mark.parametrize("name", NEGATIVE)
def test_does_not_fire(name):
    fn, kept = NEGATIVE[name]
    args = (X, RNG.random((4, 4)) > 0.5) if name == "finite_mask_fill" else (X,)
    after = check(fn, args, None)
    assert kept in _ops(after)
    assert not {"gelu", "layer_norm", "scaled_dot_product_attention"} & set(_ops(after))


def test_integer_programs_are_untouched():
    a = RNG.integers(-5, 5, (4, 8)).astype(np.int32)
    k = RNG.integers(-5, 5, (8, 3)).astype(np.int32)
    after = check(lambda a, k: ivy.matmul(a, k) + k[0], (a, k), "linear", count=0)
    assert _ops(after).count("matmul") == 1


# ---- graphs as the importers trace framework code ----

def test_jax_spellings_recompose():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def flax_layer_norm(x, scale, bias):  # flax.linen.LayerNorm's arithmetic
        mean = jnp.mean(x, -1, keepdims=True)
        var = jnp.maximum(0.0, jnp.mean(jnp.square(x), -1, keepdims=True) - jnp.square(mean))
        return (x - mean) * (jax.lax.rsqrt(var + 1e-6) * scale) + bias

    def attention(q, k, v):
        s = jnp.einsum("...qd,...kd->...qk", q, k) / jnp.sqrt(8.0)
        return jnp.einsum("...qk,...kd->...qd", jax.nn.softmax(s), v)

    q = _arr(2, 5, 8)
    for fn, args, op in ((lambda x: jax.nn.gelu(x, approximate=False), (X,), "gelu"),
                         (jax.nn.gelu, (X,), "gelu"), (jax.nn.softmax, (X,), "softmax"),
                         (jax.nn.log_softmax, (X,), "log_softmax"),
                         (lambda x: jax.nn.logsumexp(x, axis=-1), (X,), "logsumexp"),
                         (lambda x: jax.nn.logsumexp(x, 0, keepdims=True), (X,), "logsumexp"),
                         (jax.nn.logsumexp, (X,), "logsumexp"),
                         (flax_layer_norm, (X, _arr(8), _arr(8)), "layer_norm"),
                         (attention, (q, q, q), "scaled_dot_product_attention"),
                         (lambda x, k, b: x @ k + b, (X, _arr(8, 3), _arr(3)), "linear")):
        after = check(fn, args, op, source="jax")
        assert op in _ops(after) and len(_ops(after)) <= 2, _ops(after)


def test_logsumexp_of_infinite_rows_and_its_gradient():
    """JAX's guarded shift keeps rows of -inf at -inf and rows holding +inf at +inf, as
    the fused op does; its cut changes no gradient."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = _arr(5, 4)
    x[1], x[2, 1], x[3, 2], x[4, 0] = -np.inf, np.inf, np.nan, -np.inf
    after = check(lambda v: jax.nn.logsumexp(v, axis=1), (x,), "logsumexp", source="jax")
    np.testing.assert_array_equal(_run(after, (x,), None)[0][1:4], [-np.inf, np.inf, np.nan])
    w = jnp.asarray(_arr(8))
    c = ivy_ir.compile(lambda v: jax.nn.logsumexp(v, axis=0), target="jax", args=(X,))
    assert "ivy.logsumexp" in c.ir
    np.testing.assert_allclose(jax.grad(lambda v: jnp.sum(c(v) * w))(X),
                               jax.grad(lambda v: jnp.sum(jax.nn.logsumexp(v, 0) * w))(X),
                               rtol=1e-5, atol=1e-6)


def test_tensorflow_spellings_recompose():
    tf = pytest.importorskip("tensorflow")
    norm = tf.keras.layers.LayerNormalization(beta_initializer="random_normal",
                                              gamma_initializer="random_normal")
    norm.build(X.shape)
    for fn, op in ((tf.nn.gelu, "gelu"), (lambda x: tf.nn.gelu(x, approximate=True), "gelu"),
                   (tf.nn.silu, "silu"), (norm, "layer_norm"),
                   (lambda x: tf.reduce_logsumexp(x, axis=1), "logsumexp"),
                   (lambda x: tf.reduce_logsumexp(x, axis=0, keepdims=True), "logsumexp")):
        assert _ops(check(fn, (X,), op, source="tensorflow")) == [op]


def test_torch_attention_and_conv_batch_norm():
    torch = pytest.importorskip("torch")

    def attention(x):  # a hand-written causal self-attention, heads split around it
        b, length, _ = x.shape
        h = x.view(b, length, 2, 4).transpose(1, 2)
        s = h @ h.transpose(-2, -1) / math.sqrt(4)
        s = s.masked_fill(torch.triu(torch.ones(length, length, dtype=torch.bool), 1),
                          float("-inf"))
        return (torch.softmax(s, dim=-1) @ h).transpose(1, 2).reshape(b, length, 8)

    after = check(attention, (torch.from_numpy(_arr(2, 5, 8)),),
                  "scaled_dot_product_attention", source="torch")
    assert "softmax" not in _ops(after)

    class ConvBN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn(self.conv(x))

    block = ConvBN()
    with torch.no_grad():
        block.bn.running_mean.normal_()
        block.bn.running_var.uniform_(0.5, 2.0)
        block.bn.weight.normal_()
    after = check(block.eval(), (torch.from_numpy(_arr(2, 3, 6, 6)),), "batch_norm",
                  count=0, tol=1e-4, source="torch")
    assert _ops(after).count("conv") == 1


def test_long_arithmetic_chain_is_left_alone():
    def chain(x, a):  # hundreds of single-use ops: matching must stay bounded, not recurse
        y = x
        for i in range(200):
            y = y * a + x if i % 2 else y * a
        return y

    after = check(chain, (X, RNG.uniform(0.2, 0.5, X.shape).astype(F32)), None)
    assert set(_ops(after)) == {"multiply", "add"}


# ---- torch's core-ATen decomposition of its own sdpa (`_safe_softmax`, bmm on heads) ----

def _sdpa_core_aten(*args, **kw):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional

    class Attention(torch.nn.Module):
        def forward(self, *xs):
            return F.scaled_dot_product_attention(*xs, **kw)

    return torch.export.export(Attention(), args).run_decompositions()


def test_torch_core_aten_attention():
    torch = pytest.importorskip("torch")

    q, k, v = (torch.from_numpy(_arr(2, 3, 5, 8)) for _ in range(3))
    ep = _sdpa_core_aten(q, k, v, scale=0.3)
    after = check(ep, (q, k, v), "scaled_dot_product_attention", passes="default")
    assert _ops(after) == ["scaled_dot_product_attention"]
    # with a mask a row may be masked out entirely: torch's guard makes it 0, as the op
    # does, so the guarded form recomposes too and keeps the zeros
    mask = torch.as_tensor(RNG.random((5, 5)) > 0.4)
    mask[2] = False
    ep = _sdpa_core_aten(q, k, v, mask)
    with np.errstate(invalid="ignore"):  # the masked-out row's softmax, before the guard
        after = check(ep, (q, k, v, mask), "scaled_dot_product_attention", passes="default")
        out = _run(after, (q, k, v, mask), None)[0]
    assert (out[:, :, 2] == 0).all() and np.isfinite(out).all()
