"""Symbolic sizes in the IR: dynamic dims named on the entry's inputs (`{ivy.dims}`),
size expressions over those names in shape attributes, and one lowered program that
serves every batch and sequence length on every target (ONNX computes the sizes in the
graph from its inputs' `Shape`)."""

from __future__ import annotations

import numpy as np
import pytest

import ivy_ir
from ivy_ir.core.errors import IRError
from ivy_ir.dialect.symbolic import SymbolicError, SymDim

T = "tensor<?x?x16xf32>"
ATTENTION = f"""
func.func @main(%x: {T} {{ivy.dims = ["batch", "seq", ""]}},
                %wq: tensor<16x16xf32> {{ivy.param = "wq"}},
                %wk: tensor<16x16xf32> {{ivy.param = "wk"}}) -> ({T}, tensor<?x16xf32>) {{
  %q = ivy.matmul %x, %wq : ({T}, tensor<16x16xf32>) -> {T}
  %k = ivy.matmul %x, %wk : ({T}, tensor<16x16xf32>) -> {T}
  %qh = ivy.reshape %q {{shape = ["batch", "seq", 2, 8]}} : ({T}) -> tensor<?x?x2x8xf32>
  %kh = ivy.reshape %k {{shape = ["batch", -1, 2, 8]}} : ({T}) -> tensor<?x?x2x8xf32>
  %qt = ivy.permute_dims %qh {{axes = [0, 2, 1, 3]}} : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %kt = ivy.permute_dims %kh {{axes = [0, 2, 3, 1]}} : (tensor<?x?x2x8xf32>) -> tensor<?x2x8x?xf32>
  %s = ivy.matmul %qt, %kt : (tensor<?x2x?x8xf32>, tensor<?x2x8x?xf32>) -> tensor<?x2x?x?xf32>
  %p = ivy.softmax %s {{axis = 3}} : (tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %o = ivy.matmul %p, %qt : (tensor<?x2x?x?xf32>, tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
  %ot = ivy.permute_dims %o {{axes = [0, 2, 1, 3]}} : (tensor<?x2x?x8xf32>) -> tensor<?x?x2x8xf32>
  %y = ivy.reshape %ot {{shape = ["batch", "seq", 16]}} : (tensor<?x?x2x8xf32>) -> {T}
  %half = ivy.full {{shape = ["batch", 1, 16], fill_value = 0.5, dtype = f32}} : () -> tensor<?x1x16xf32>
  %r = ivy.add %y, %half : ({T}, tensor<?x1x16xf32>) -> {T}
  %flat = ivy.reshape %r {{shape = ["batch * seq", 16]}} : ({T}) -> tensor<?x16xf32>
  func.return %r, %flat : {T}, tensor<?x16xf32>
}}
"""
rng = np.random.default_rng(3)
WEIGHTS = {n: rng.standard_normal((16, 16)).astype(np.float32) * 0.3 for n in ("wq", "wk")}
SIZES = [(1, 5), (3, 40), (8, 5), (17, 40)]


def _reference(x):
    b, s, _ = x.shape
    q = (x @ WEIGHTS["wq"]).reshape(b, s, 2, 8).transpose(0, 2, 1, 3)
    k = (x @ WEIGHTS["wk"]).reshape(b, s, 2, 8).transpose(0, 2, 3, 1)
    scores = q @ k
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    y = (p @ q).transpose(0, 2, 1, 3).reshape(b, s, 16) + 0.5
    return y, y.reshape(b * s, 16)


def _module():
    module = ivy_ir.parse(ATTENTION)
    module.params.update(WEIGHTS)
    return module


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_one_program_serves_every_batch_and_sequence_length(target):  # onnx: below
    compiled = ivy_ir.compile(_module(), target=target)
    assert "_dim_batch * _dim_seq" in compiled.source
    for b, s in SIZES:
        x = rng.standard_normal((b, s, 16)).astype(np.float32)
        got = [_np(v) for v in compiled(x)]
        for g, w in zip(got, _reference(x)):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert not compiled._variants  # no input took the retrace path


def test_a_static_dim_of_a_dynamic_input_is_still_checked():
    compiled = ivy_ir.compile(_module(), target="numpy")
    with pytest.raises(TypeError, match=r"input 0 has type tensor<2x3x8xf32>.*tensor<\?x\?x16xf32>"):
        compiled(np.zeros((2, 3, 8), np.float32))


def test_symbolic_sizes_print_and_parse_back():
    text = str(_module())
    assert 'shape = ["batch * seq", 16]' in text and 'ivy.dims = ["batch", "seq", ""]' in text
    assert str(ivy_ir.parse(text)) == text


def test_onnx_export_computes_symbolic_sizes_from_the_inputs():
    compiled = ivy_ir.compile(_module(), target="onnx")
    graph = compiled.model.graph
    assert [d.dim_param for d in graph.input[0].type.tensor_type.shape.dim[:2]] == \
        ["batch", "seq"]
    assert {"Shape", "Mul", "Concat", "ConstantOfShape"} <= {n.op_type for n in graph.node}
    for b, s in SIZES:
        x = rng.standard_normal((b, s, 16)).astype(np.float32)
        for g, w in zip(compiled(x), _reference(x)):
            np.testing.assert_allclose(_np(g), w, rtol=1e-5, atol=1e-5)


BAD = {
    "an undeclared dim": ('"batch", "seq", ""', '"batch * len"', "names len, which no input"),
    "a static dim named": ('"batch", "seq", "width"', '"batch * seq"', "one identifier per "
                           "dynamic dim"),
    "an expression beyond shape arithmetic": ('"batch", "seq", ""', '"batch ** 2"',
                                              "is not integer arithmetic on dim names"),
}


@pytest.mark.parametrize("case", BAD)
def test_malformed_symbolic_sizes_are_reported(case):
    dims, flat, message = BAD[case]
    text = ATTENTION.replace('"batch", "seq", ""', dims).replace('"batch * seq"', flat)
    with pytest.raises(IRError, match=message):
        ivy_ir.parse(text)


def test_size_expressions_are_shape_arithmetic():
    batch, seq = SymDim("batch"), SymDim("seq")
    size = (batch * seq * 12 - 1) // 2 + 1
    assert size.expr == "(batch * seq * 12 - 1) // 2 + 1"
    assert size.evaluate({"batch": 3, "seq": 5}) == 90
    assert size.names == {"batch", "seq"}
    assert size.python() == "((_dim_batch * _dim_seq * 12 - 1) // 2 + 1)"
    assert batch * 1 is batch and 0 + seq is seq
    with pytest.raises(SymbolicError, match="no value while tracing"):
        range(batch)
    with pytest.raises(SymbolicError, match="no Python branch"):
        bool(batch > 0 if False else batch)
    with pytest.raises(SymbolicError, match="not integer arithmetic"):
        SymDim("max(batch, 2)")


# ---- from torch.export: `ivy_ir.compile(model, args=..., dynamic=...)` ----

torch = pytest.importorskip("torch")
TARGETS = ["numpy", "jax", "torch", "tensorflow", "onnx"]


class Block(torch.nn.Module):
    """A transformer block whose shape code reads the input's sizes (`b, s, d = x.shape`),
    as model code does."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.norm = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 32), torch.nn.GELU(),
                                       torch.nn.Linear(32, d))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1) @ v
        x = self.norm(x + self.out(a.transpose(1, 2).reshape(b, s, d)))
        return x + self.mlp(x)


def _cnn():
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, stride=2), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)).eval()


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(0)
    return Block().eval()


def _check_sizes(model, compiled, shapes, target):
    for shape in shapes:
        x = torch.randn(*shape)
        got = compiled(x if target == "torch" else x.numpy())
        np.testing.assert_allclose(_np(got), model(x).detach().numpy(), rtol=1e-5, atol=2e-5,
                                   err_msg=f"{target} at {shape}")
    assert compiled.traces == 1


@pytest.mark.parametrize("target", TARGETS)
def test_a_torch_transformer_imported_once_serves_every_batch_and_length(block, target):
    compiled = ivy_ir.compile(block, target=target, args=(torch.randn(2, 7, 16),),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    assert 'ivy.dims = ["batch", "seq", ""]' in compiled.ir
    assert 'shape = ["batch", "seq", 2, 8]' in compiled.ir
    _check_sizes(block, compiled, [(b, s, 16) for b, s in SIZES], target)


@pytest.mark.parametrize("target", TARGETS)
def test_a_torch_cnn_imported_once_serves_every_batch(target):
    torch.manual_seed(1)
    model = _cnn()
    compiled = ivy_ir.compile(model, target=target, args=(torch.randn(2, 3, 12, 12),),
                              dynamic=True)
    assert 'shape = ["batch", 8]' in compiled.ir  # the flatten
    _check_sizes(model, compiled, [(b, 3, 12, 12) for b in (1, 3, 8, 17)], target)


def test_dynamic_names_an_input_or_says_which_exist(block):
    with pytest.raises(TypeError, match=r"'y' names no array argument .*'x'"):
        ivy_ir.compile(block, args=(torch.randn(2, 7, 16),), dynamic={"y": {0: "batch"}})
    with pytest.raises(TypeError, match="axis 3 of 'x' is out of range for rank 3"):
        ivy_ir.compile(block, args=(torch.randn(2, 7, 16),), dynamic={"x": {3: "batch"}})
    with pytest.raises(TypeError, match="dim name 'two words' is not an identifier"):
        ivy_ir.compile(block, args=(torch.randn(2, 7, 16),), dynamic={"x": {0: "two words"}})


def test_a_model_that_fixes_a_dynamic_dim_is_reported(block):
    with pytest.raises(ivy_ir.TraceError, match=r"torch.export failed.*Constraints violated"):
        ivy_ir.compile(block, args=(torch.randn(2, 7, 16),), dynamic={"x": {2: "width"}})


def test_dynamic_is_refused_for_sources_that_do_not_take_it_yet():
    with pytest.raises(NotImplementedError, match="dynamic= is taken from ivy, torch, jax, "
                                                  "tensorflow, onnx programs so far; this "
                                                  "one is numpy"):
        ivy_ir.compile(lambda x: np.tanh(x), args=(np.zeros((2, 3), np.float32),),
                       dynamic=True)


def test_a_lazy_compile_with_dynamic_dims_builds_one_entry(block):
    compiled = ivy_ir.compile(block, target="numpy", dynamic={"x": {0: "batch", 1: "seq"}})
    for b, s in SIZES:
        x = torch.randn(b, s, 16)
        np.testing.assert_allclose(_np(compiled(x.numpy())), block(x).detach().numpy(),
                                   rtol=1e-5, atol=2e-5)
    info = compiled.cache_info()
    assert (info.misses, info.hits, info.entries) == (1, len(SIZES) - 1, 1)


# ---- from JAX: `jax.export` symbolic dims through `jax.make_jaxpr` ----


@pytest.fixture(scope="module")
def flax_models():
    jax = pytest.importorskip("jax")
    nn = pytest.importorskip("flax.linen")
    jnp = jax.numpy

    class FlaxBlock(nn.Module):
        @nn.compact
        def __call__(self, x):
            b, s, d = x.shape
            heads = [t.reshape(b, s, 2, d // 2).transpose(0, 2, 1, 3)
                     for t in jnp.split(nn.Dense(3 * d)(x), 3, axis=-1)]
            q, k, v = heads
            a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (d // 2) ** 0.5, axis=-1) @ v
            x = nn.LayerNorm()(x + nn.Dense(d)(a.transpose(0, 2, 1, 3).reshape(b, s, d)))
            return x + nn.Dense(d)(nn.gelu(nn.Dense(32)(x)))

    class FlaxCNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(8, (3, 3))(x))
            x = nn.max_pool(x, (2, 2), strides=(2, 2))
            return nn.Dense(5)(x.reshape((x.shape[0], -1)))

    out = {}
    for model, shape in ((FlaxBlock(), (2, 7, 16)), (FlaxCNN(), (2, 8, 8, 3))):
        # the reference jitted: one compile per size, where eager would compile each op
        out[type(model).__name__] = (model, model.init(jax.random.key(0), jnp.ones(shape)),
                                     jax.jit(model.apply))
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name, dynamic, shapes", [
    ("FlaxBlock", {0: {0: "batch", 1: "seq"}}, [(b, s, 16) for b, s in SIZES]),
    ("FlaxCNN", True, [(b, 8, 8, 3) for b in (1, 3, 8, 17)]),
])
def test_a_flax_model_imported_once_serves_every_size(flax_models, target, name, dynamic,
                                                      shapes):
    model, params, reference = flax_models[name]
    example = np.ones((2, *shapes[0][1:]), np.float32)
    compiled = ivy_ir.compile(model.apply, target=target, args=(example,), params=params,
                              dynamic=dynamic)
    assert '{ivy.dims = ["batch"' in compiled.ir
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(_np(compiled(x)), np.asarray(reference(params, x)),
                                   rtol=1e-5, atol=2e-5, err_msg=f"{target} at {shape}")
    assert compiled.traces == 1


def test_inputs_sharing_a_dim_name_must_agree_on_its_size():
    text = """
    func.func @main(%x: tensor<?x4xf32> {ivy.dims = ["batch", ""]},
                    %m: tensor<?xf32> {ivy.dims = ["batch"]}) -> tensor<?x4xf32> {
      %e = ivy.reshape %m {shape = ["batch", 1]} : (tensor<?xf32>) -> tensor<?x1xf32>
      %y = ivy.multiply %x, %e : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
      func.return %y : tensor<?x4xf32>
    }"""
    compiled = ivy_ir.compile(text, target="numpy")
    x, m = np.ones((3, 4), np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(compiled(x, m), x * m[:, None])
    with pytest.raises(TypeError, match=r"inputs x and m must agree on the size of dim "
                                        r"'batch' \(their dims 0 and 0\), got 3 and 5"):
        compiled(x, np.ones(5, np.float32))


@pytest.mark.parametrize("target", ["jax", "onnx"])
def test_torch_transformer_encoder_layer_with_dynamic_batch_and_length(target):
    torch.manual_seed(2)
    layer = torch.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True)
    layer = layer.eval()
    compiled = ivy_ir.compile(layer, target=target, args=(torch.randn(2, 6, 32),),
                              dynamic={"src": {0: "batch", 1: "seq"}})
    _check_sizes(layer, compiled, [(b, s, 32) for b, s in SIZES], target)


@pytest.mark.parametrize("target", ["numpy", "torch"])
def test_training_dropout_draws_a_mask_of_the_dynamic_size(target):
    drop = torch.nn.Dropout(0.5).train()
    compiled = ivy_ir.compile(drop, target=target, args=(torch.ones(2, 16),), dynamic=True)
    for b in (1, 64):
        y = _np(compiled(np.ones((b, 16), np.float32)))
        assert y.shape == (b, 16) and set(np.unique(y)) <= {0.0, 2.0}
    assert 0.35 < float(np.mean(y == 0)) < 0.65  # 1,024 draws at p = 0.5
    assert compiled.traces == 1


@pytest.mark.parametrize("target", ["numpy", "onnx"])
def test_hf_bert_with_dynamic_batch_and_length(target):
    # position ids are a slice of a buffer to the symbolic length (`[:, :seq]`)
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(3)
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=37,
                                     max_position_embeddings=64)
    model = transformers.BertModel(config).eval()
    compiled = ivy_ir.compile(model, target=target, args=(torch.randint(0, 100, (2, 7)),),
                              dynamic={"input_ids": {0: "batch", 1: "seq"}})
    assert 'ivy.dims = ["batch", "seq"]' in compiled.ir
    for b, s in SIZES:
        ids = torch.randint(0, 100, (b, s))
        got = compiled(ids.numpy())
        got = got["last_hidden_state"] if isinstance(got, dict) else got[0]
        np.testing.assert_allclose(_np(got), model(ids)[0].detach().numpy(), rtol=1e-5,
                                   atol=2e-5, err_msg=f"{target} at {(b, s)}")
    assert compiled.traces == 1
