"""The recurrent and attention layers, Embedding, Dropout, Sequential, the activation
modules and the initializers against torch, Keras and Flax, with the comparison
helpers of test_ivy_layers.py."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import flax.linen as fnn
import jax
import keras
import numpy as np
import pytest
import torch
from test_ivy_layers import (
    Mapping,
    assert_close,
    check,
    get,
    host,
    load,
    npy,
    probe,
    run_flax,
    run_keras,
    run_torch,
)

import ivy
from ivy import initializers as init
from ivy.container import Container
from ivy.layers import ACTIVATIONS, Dropout, Embedding, Linear, Sequential
from ivy.layers_attention import MultiHeadAttention
from ivy.layers_recurrent import GRU, LSTM, lstm_update

H = 4  # hidden width of every recurrent test


def first(result: Any) -> Any:
    return result[0]


def torch_recurrent(layers: int) -> Mapping:
    """torch keeps (gates * hidden, features) matrices: the kernels transposed."""
    return {f"layer_{i}/{kc}": get(f"{name}_l{i}", f) for i in range(layers)
            for kc, name, f in (("kernel", "weight_ih", np.transpose),
                                ("recurrent_kernel", "weight_hh", np.transpose),
                                ("bias", "bias_ih", np.asarray),
                                ("recurrent_bias", "bias_hh", np.asarray))}


def one_bias(kernel: Any, recurrent: Any, bias: Any) -> Mapping:
    """A framework with one bias per gate: ivy's other bias holds zeros and its
    gradient is that of the one bias (both are added to the same gate input)."""
    return {"layer_0/kernel": kernel, "layer_0/recurrent_kernel": recurrent,
            "layer_0/bias": bias, "layer_0/recurrent_bias": (lambda w: 0 * bias(w), bias)}


def flax_cat(*names: str, part: str = "kernel") -> Any:
    return lambda w: np.concatenate([w[f"cell/{n}/{part}"] for n in names], axis=-1)


def test_lstm_matches_torch_keras_and_flax() -> None:
    x = host(3, 6, 5)
    ref = torch.nn.LSTM(5, H, num_layers=2, batch_first=True)
    check("torch", lambda: LSTM(5, H, 2), run_torch(ref, x, lambda t: ref(t)[0]),
          torch_recurrent(2), x, pick=first)
    check("tensorflow", lambda: LSTM(5, H),
          run_keras(keras.layers.LSTM(H, return_sequences=True), x),
          one_bias(get("kernel"), get("recurrent_kernel"), get("bias")), x, pick=first)
    gates = ("i", "f", "g", "o")
    check("jax", lambda: LSTM(5, H),
          run_flax(fnn.RNN(fnn.LSTMCell(H)), x),
          one_bias(flax_cat(*(f"i{g}" for g in gates)), flax_cat(*(f"h{g}" for g in gates)),
                   flax_cat(*(f"h{g}" for g in gates), part="bias")), x, pick=first)


def test_lstm_final_state_and_initial_state_match_torch() -> None:
    x, h0, c0 = host(3, 6, 5), host(2, 3, H, seed=1), host(2, 3, H, seed=2)
    ref = torch.nn.LSTM(5, H, num_layers=2, batch_first=True)
    seq, (h, c) = ref(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    weights = {kc: how(dict((n, npy(p)) for n, p in ref.named_parameters()))
               for kc, how in torch_recurrent(2).items()}
    with ivy.with_backend("torch"):
        layer = LSTM(5, H, 2)
        load(layer, weights)
        got, (got_h, got_c) = layer(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
        # the functional form, with no biases at all (torch's bias=False)
        plain = torch.nn.LSTM(5, H, batch_first=True, bias=False)
        all_h, (last_h, last_c) = lstm_update(torch.tensor(x), torch.tensor(h0[0]),
                                              torch.tensor(c0[0]), plain.weight_ih_l0.T,
                                              plain.weight_hh_l0.T)
    assert_close(got, seq)
    assert_close(got_h, h)
    assert_close(got_c, c)
    ref_all, (ref_h, ref_c) = plain(torch.tensor(x), (torch.tensor(h0[:1]), torch.tensor(c0[:1])))
    assert_close(all_h, ref_all)
    assert_close(last_h, ref_h[0])
    assert_close(last_c, ref_c[0])


def keras_gru_order(a: np.ndarray) -> np.ndarray:
    """Keras's GRU gate blocks z, r, h -> ivy's (and torch's) r, z, n."""
    return np.concatenate([a[..., H:2 * H], a[..., :H], a[..., 2 * H:]], axis=-1)


def test_gru_matches_torch_and_keras() -> None:
    x = host(3, 6, 5)
    ref = torch.nn.GRU(5, H, num_layers=2, batch_first=True)
    check("torch", lambda: GRU(5, H, 2), run_torch(ref, x, lambda t: ref(t)[0]),
          torch_recurrent(2), x, pick=first)
    check("tensorflow", lambda: GRU(5, H),
          run_keras(keras.layers.GRU(H, return_sequences=True), x),
          {"layer_0/kernel": get("kernel", keras_gru_order),
           "layer_0/recurrent_kernel": get("recurrent_kernel", keras_gru_order),
           "layer_0/bias": get("bias", lambda b: keras_gru_order(b[0])),
           "layer_0/recurrent_bias": get("bias", lambda b: keras_gru_order(b[1]))}, x,
          pick=first)
    with ivy.with_backend("torch"):
        _, h_n = GRU(5, H, 2, seed=0)(torch.tensor(x))
    assert tuple(h_n.shape) == (2, 3, H)


def mha_mapping(separate: bool) -> Mapping:
    """torch stacks q, k and v in `in_proj_weight` when they share a width."""
    rows = {"q": slice(0, 8), "k": slice(8, 16), "v": slice(16, 24)}
    out: Mapping = {"to_out/w": get("out_proj.weight"), "to_out/b": get("out_proj.bias")}
    for p, part in rows.items():
        out[f"to_{p}/w"] = get(f"{p}_proj_weight") if separate else \
            get("in_proj_weight", lambda a, s=part: a[s])
        out[f"to_{p}/b"] = get("in_proj_bias", lambda a, s=part: a[s])
    return out


def test_multi_head_attention_matches_torch() -> None:
    x, context = host(2, 5, 8), host(2, 7, 6, seed=1)
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    check("torch", lambda: MultiHeadAttention(8, 2, 4),
          run_torch(ref, x, lambda t: ref(t, t, t, need_weights=False)[0]),
          mha_mapping(False), x)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)  # torch: True blocks
    check("torch", lambda: MultiHeadAttention(8, 2, 4),
          run_torch(ref, x, lambda t: ref(t, t, t, attn_mask=causal, need_weights=False)[0]),
          mha_mapping(False), x, causal=True)
    cross = torch.nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=6)
    keep = np.random.default_rng(3).random((5, 7)) > 0.3
    ctx = torch.tensor(context)
    check("torch", lambda: MultiHeadAttention(8, 2, 4, key_dim=6),
          run_torch(cross, x, lambda t: cross(t, ctx, ctx, attn_mask=torch.tensor(~keep),
                                              need_weights=False)[0]),
          mha_mapping(True), x, key=context, mask=keep)


# ---- embedding ----
def test_embedding_matches_torch_and_freezes_the_padding_row() -> None:
    idx = np.array([[1, 0, 3], [3, 3, 2]])
    ref = torch.nn.Embedding(5, 4, padding_idx=3)
    out = ref(torch.tensor(idx))
    (out * torch.tensor(probe(out.shape))).sum().backward()
    with ivy.with_backend("torch"):
        layer = Embedding(5, 4, padding_idx=3)
        assert_close(layer.v.w[3], np.zeros(4))
        load(layer, {"w": npy(ref.weight)})

        def loss(v: Container) -> Any:
            return ivy.sum(layer(torch.tensor(idx), v=v) * torch.tensor(probe(out.shape)))
        _, grads = ivy.execute_with_gradients(loss, layer.v)
        assert_close(layer(torch.tensor(idx)), out)
        assert_close(grads.w, ref.weight.grad)
        assert not npy(grads.w)[3].any() and npy(grads.w)[0].any()
        assert layer(torch.tensor(idx)).dtype == torch.float32


# ---- dropout ----
def test_dropout_is_identity_in_eval_and_scales_kept_values_in_training() -> None:
    x = np.abs(host(200, 500)) + 0.5
    with ivy.with_backend("torch"):
        layer = Dropout(0.3, seed=0)
        first, second = npy(layer(torch.tensor(x))), npy(layer(torch.tensor(x)))
        kept = first != 0
        assert abs(kept.mean() - 0.7) < 0.01
        assert_close(first[kept], x[kept] / 0.7)
        assert (kept != (second != 0)).mean() > 0.3  # a fresh mask per call
        layer.eval()
        assert_close(layer(torch.tensor(x)), x, 0)
    with ivy.with_backend("jax"):  # the same seed, the same masks on another backend
        assert_close(Dropout(0.3, seed=0)(jax.numpy.asarray(x)), first, 0)
    with pytest.raises(ValueError, match="probability"):
        Dropout(1.0)


# ---- containers of layers ----
def test_sequential_names_variables_by_position_and_matches_torch() -> None:
    x = host(6, 4)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2),
                              torch.nn.Softmax(-1))
    acts = ACTIVATIONS
    mapping = {f"submodules/{i}/{k}": get(f"{i}.{n}") for i in (0, 2)
               for k, n in (("w", "weight"), ("b", "bias"))}
    check("torch", lambda: Sequential(Linear(4, 8), acts["GELU"](), Linear(8, 2),
                                      acts["Softmax"](-1)), run_torch(ref, x), mapping, x)
    with ivy.with_backend("torch"):
        stack = Sequential(Linear(4, 8), Dropout(0.5), acts["Tanh"]())
    assert len(stack) == 3 and isinstance(stack[1], Dropout) and stack[1].training
    assert list(stack.v.flatten()) == ["submodules/0/w", "submodules/0/b"]
    stack.eval()
    assert not stack[1].training
    with pytest.raises(TypeError, match="ivy.Modules"):
        Sequential(Linear(4, 8), ivy.relu)


ACTIVATION_REFS = {
    "ReLU": ({}, torch.nn.ReLU()), "ReLU6": ({}, torch.nn.ReLU6()),
    "LeakyReLU": ({"alpha": 0.2}, torch.nn.LeakyReLU(0.2)), "ELU": ((0.5,), torch.nn.ELU(0.5)),
    "GELU": ({"approximate": "tanh"}, torch.nn.GELU("tanh")), "SiLU": ({}, torch.nn.SiLU()),
    "Mish": ({}, torch.nn.Mish()), "Sigmoid": ({}, torch.nn.Sigmoid()),
    "HardSigmoid": ({}, torch.nn.Hardsigmoid()), "HardSwish": ({}, torch.nn.Hardswish()),
    "Softplus": ({"beta": 2.0}, torch.nn.Softplus(2.0)), "Tanh": ({}, torch.nn.Tanh()),
    "Softmax": ((0,), torch.nn.Softmax(0)), "LogSoftmax": ({}, torch.nn.LogSoftmax(-1)),
}


def test_every_activation_module_matches_torch() -> None:
    assert set(ACTIVATION_REFS) == set(ACTIVATIONS)
    x = host(5, 6) * 4
    for name, (options, ref) in ACTIVATION_REFS.items():
        args, kwargs = (options, {}) if isinstance(options, tuple) else ((), options)
        check("torch", partial(ACTIVATIONS[name], *args, **kwargs), run_torch(ref, x), {}, x)
        assert ACTIVATIONS[name].__name__ == name
    with pytest.raises(TypeError, match="unknown or repeated"):
        ACTIVATIONS["Softmax"](-1, axis=0)


# ---- initializers ----
def draw(initializer: init.Initializer, shape: tuple[int, ...] = (200, 300), fan_in: int = 200,
         fan_out: int = 300, seed: int = 0, **options: Any) -> np.ndarray:
    with ivy.with_backend("torch"):
        out = initializer(shape, fan_in, fan_out, seed=seed, **options)
        assert isinstance(out, torch.Tensor) and not out.requires_grad
        assert out.dtype == options.get("dtype", torch.float32)
        assert tuple(out.shape) == shape
    return npy(out).astype(np.float64)


@pytest.mark.parametrize("initializer,bound,variance", [
    (init.GlorotUniform(), math.sqrt(6 / 500), 2 / 500),
    (init.KaimingUniform(), math.sqrt(6 / 200), 2 / 200),
    (init.Uniform(-0.2, 0.6), None, 0.8 ** 2 / 12),
    (init.Siren(w0=30.0), math.sqrt(6 / 200) / 30, 2 / 200 / 900),
    (init.FirstLayerSiren(), 1 / 200, (1 / 200) ** 2 / 3),
    (init.GlorotNormal(), None, 2 / 500),
    (init.KaimingNormal(), None, 2 / 200),
    (init.KaimingNormal(gain=1.0, mode="fan_out"), None, 1 / 300),
    (init.RandomNormal(0.5, 0.1), None, 0.01),
])
def test_random_initializers_keep_their_bounds_and_variance(
        initializer: init.Initializer, bound: float | None, variance: float) -> None:
    values = draw(initializer)
    if bound is not None:
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.99 * bound
    assert abs(values.var() / variance - 1) < 0.03
    expected_mean = getattr(initializer, "mean", None) or \
        (getattr(initializer, "low", 0) + getattr(initializer, "high", 0)) / 2
    assert abs(values.mean() - expected_mean) < 4 * math.sqrt(variance / values.size)


def test_initializers_are_seeded_typed_and_need_their_fans() -> None:
    assert (draw(init.Zeros()) == 0).all() and (draw(init.Ones()) == 1).all()
    assert (draw(init.Constant(2.5), dtype=torch.float64) == 2.5).all()
    assert np.array_equal(draw(init.GlorotUniform(), seed=5), draw(init.GlorotUniform(), seed=5))
    assert not np.array_equal(draw(init.GlorotUniform(), seed=5), draw(init.GlorotUniform()))
    with ivy.with_backend("jax"):
        on_jax = init.GlorotUniform()((200, 300), 200, 300, seed=5)
        assert on_jax.dtype == np.float32
    assert_close(on_jax, draw(init.GlorotUniform(), seed=5).astype(np.float32), 0)
    for shape in ((6, 4), (4, 6), (2, 3, 4)):
        q = draw(init.Orthogonal(gain=2.0), shape).reshape(-1, shape[-1]) / 2
        small = min(q.shape)
        gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
        assert_close(gram, np.eye(small))
    with pytest.raises(ValueError, match="fan_in and fan_out"):
        init.GlorotUniform()((3, 4))


def test_layers_use_their_documented_default_initializers() -> None:
    with ivy.with_backend("torch"):
        linear = Linear(300, 200, seed=0)
        lstm = LSTM(6, 5, seed=0)
    w = npy(linear.v.w)
    assert np.abs(w).max() <= math.sqrt(6 / 500) and abs(w.var() * 500 / 2 - 1) < 0.03
    assert not npy(linear.v.b).any()
    recurrent = npy(lstm.v["layer_0/recurrent_kernel"])
    assert_close(recurrent @ recurrent.T, np.eye(5))

