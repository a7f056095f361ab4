"""Symbolic `arange` bounds: `arange(seq)`, the position ids of GPT-2 and Llama, as a
size expression over the entry's dim names (attribute kind `bound`), printed and parsed,
verified, never folded, run by every target at every size, and produced by the torch,
JAX, TensorFlow and ONNX importers, so one trace serves every batch and length."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import ivy_ir
from ivy_ir.core.errors import IRError

TARGETS = ["numpy", "jax", "torch", "tensorflow", "onnx"]
SIZES = [(1, 5), (3, 40), (8, 5), (17, 40)]
rng = np.random.default_rng(5)


def _program(*aranges: tuple[str, str, str, str]) -> str:
    """One entry returning an arange per (start, stop, step, dtype)."""
    types = [f"tensor<?x{dtype}>" for *_, dtype in aranges]
    body = "".join(f"  %a{i} = ivy.arange {{start = {start}, stop = {stop}, step = {step}, "
                   f"dtype = {dtype}}} : () -> {t}\n"
                   for i, ((start, stop, step, dtype), t) in enumerate(zip(aranges, types)))
    names = ", ".join(f"%a{i}" for i in range(len(aranges)))
    return (f'func.func @main(%x: tensor<?x?xf32> {{ivy.dims = ["batch", "seq"]}}) -> '
            f'({", ".join(types)}) {{\n{body}  func.return {names} : {", ".join(types)}\n}}')


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


# bounds, and NumPy's arange of them at (batch, seq); a stop lying against the step
# (seq - 3 at seq < 3) is an empty range on every target, as NumPy's, where torch and
# TensorFlow would refuse it
CASES = {
    "arange(seq)": (("0.0", '"seq"', "1.0", "i64"), lambda b, s: np.arange(s)),
    "empty below 3": (("0.0", '"seq - 3"', "1.0", "i32"),
                      lambda b, s: np.arange(0, s - 3).astype(np.int32)),
    "both symbolic": (('"seq - 2"', '"batch * seq + 1"', "2.0", "i32"),
                      lambda b, s: np.arange(s - 2, b * s + 1, 2).astype(np.int32)),
    "counting down": (('"seq"', "0.0", "-1.0", "f32"),
                      lambda b, s: np.arange(s, 0, -1).astype(np.float32)),
    "from a fraction": (("0.5", '"seq"', "1.0", "f32"),
                        lambda b, s: np.arange(0.5, s).astype(np.float32)),
}


@pytest.mark.parametrize("target", TARGETS)
def test_every_target_computes_a_symbolic_arange_at_every_size(target):
    compiled = ivy_ir.compile(_program(*(bounds for bounds, _ in CASES.values())),
                              target=target)
    for b, s in [(2, 5), (3, 1), (1, 0), (4, 12)]:
        for got, (case, (_, want)) in zip(compiled(np.zeros((b, s), np.float32)),
                                          CASES.items()):
            np.testing.assert_array_equal(_np(got), want(b, s), err_msg=f"{case} at {(b, s)}")
            assert _np(got).dtype == want(b, s).dtype
    assert compiled.traces == 1


def test_a_symbolic_arange_prints_parses_and_stays_unfolded():
    text = _program(("1.0", '"seq + 1"', "1.0", "i64"))
    printed = str(ivy_ir.parse(text))
    assert 'ivy.arange {start = 1.0, stop = "seq + 1", step = 1.0, dtype = i64}' in printed
    assert str(ivy_ir.parse(printed)) == printed
    # the canonicalizer folds an op of a static arange and a constant into a constant;
    # a symbolic arange has no value before the program runs
    shifted = """func.func @main(%x: tensor<?xf32> {ivy.dims = ["seq"]}) -> tensor<?xi64> {
  %a = ivy.arange {start = 1.0, stop = "seq + 1"} : () -> tensor<?xi64>
  %c = ivy.constant {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %y = ivy.add %a, %c : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  func.return %y : tensor<?xi64>
}"""
    compiled = ivy_ir.compile(shifted, target="numpy")
    assert 'stop = "seq + 1"' in compiled.ir and "_dim_seq + 1" in compiled.source
    np.testing.assert_array_equal(compiled(np.zeros(4, np.float32)), [3, 4, 5, 6])
    static = ivy_ir.compile(shifted.replace('"seq + 1"', "5.0").replace("<?xi64>", "<4xi64>"),
                            target="numpy")
    assert "ivy.arange" not in static.ir


@pytest.mark.parametrize("bound, message", [
    ('"len"', "names len, which no input"),
    ('"seq ** 2"', "is not integer arithmetic on dim names"),
    ("[1]", "Expected float literal"),
])
def test_malformed_arange_bounds_are_reported(bound, message):
    with pytest.raises(IRError, match=message):
        ivy_ir.parse(_program(("0.0", bound, "1.0", "i64")))


def test_parameter_work_over_a_symbolic_arange_is_not_hoisted():
    """embedding(table, arange(seq)) reads only a parameter and an op without operands,
    but its size is the input's: it stays in the per-call program."""
    text = """func.func @main(%x: tensor<?x?xf32> {ivy.dims = ["batch", "seq"]},
                %w: tensor<64x8xf32> {ivy.param = "w"}) -> tensor<?x8xf32> {
  %i = ivy.arange {start = 0.0, stop = "seq"} : () -> tensor<?xi64>
  %e = ivy.embedding %i, %w : (tensor<?xi64>, tensor<64x8xf32>) -> tensor<?x8xf32>
  func.return %e : tensor<?x8xf32>
}"""
    module = ivy_ir.parse(text)
    module.params["w"] = w = rng.standard_normal((64, 8)).astype(np.float32)
    for target in ("torch", "jax"):
        compiled = ivy_ir.compile(module, target=target)
        assert "prepare" not in compiled.source
        for s in (3, 9):
            np.testing.assert_array_equal(_np(compiled(np.zeros((2, s), np.float32))), w[:s])


# ---- importers ----

torch = pytest.importorskip("torch")


def _check(compiled, fn, shapes, reference, target):
    """float32 sums of products: frameworks may fuse them (one rounding, not two)."""
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(_np(compiled(x)), reference(fn, x), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{target} at {shape}")
    assert compiled.traces == 1


def _torch_positions(x):
    b, n = x.shape
    ids = torch.arange(n) + torch.arange(2, n + 2) * 2
    return x * ids + torch.ones(b, n).cumsum(1) + torch.arange(b)[:, None]


@pytest.mark.parametrize("target", TARGETS)
def test_torch_arange_and_factories_to_a_symbolic_size(target):
    compiled = ivy_ir.compile(_torch_positions, target=target, args=(torch.ones(2, 7),),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    assert 'stop = "seq + 2"' in compiled.ir and 'shape = ["batch", "seq"]' in compiled.ir
    _check(compiled, _torch_positions, SIZES,
           lambda f, x: f(torch.from_numpy(x)).numpy(), target)


def _causal(x):
    n = x.shape[1]
    keep = torch.tril(torch.ones(n, n, dtype=torch.bool))
    scores = (x[:, :, None] * x[:, None, :]).masked_fill(~keep, -1e9)
    return torch.triu(scores, diagonal=1) + torch.tril(scores.softmax(-1), -1)


@pytest.mark.parametrize("target", ["numpy", "onnx"])
def test_a_causal_mask_of_a_dynamic_length(target):
    """tril/triu of a dynamic size: the ONNX export builds the triangle in the graph."""
    compiled = ivy_ir.compile(_causal, target=target, args=(torch.ones(2, 7),),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    _check(compiled, _causal, SIZES, lambda f, x: f(torch.from_numpy(x)).numpy(), target)


def test_a_pad_of_dynamic_width_is_reported():
    def pad(x):
        return torch.nn.functional.pad(x, (0, x.shape[0]))

    with pytest.raises(ivy_ir.UnsupportedOpsError,
                       match=r"pad widths \(0, batch\) holding a dynamic size"):
        ivy_ir.compile(pad, args=(torch.ones(3, 4),), dynamic=True)


@pytest.mark.parametrize("target", TARGETS)
def test_jax_iota_of_a_symbolic_size(target):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def positions(x):
        pos = jnp.arange(x.shape[1])
        flat = jnp.arange(x.shape[0] * x.shape[1]).reshape(x.shape)
        odd = jax.lax.broadcasted_iota(jnp.int32, x.shape, 1) % 2 == 1
        return jnp.where(odd, x * pos[None, :], flat.astype(x.dtype)) + \
            jnp.arange(x.shape[0])[:, None]

    compiled = ivy_ir.compile(positions, target=target, args=(np.ones((2, 3), np.float32),),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    assert 'stop = "batch * seq"' in compiled.ir
    _check(compiled, positions, SIZES, lambda f, x: np.asarray(f(jnp.asarray(x))), target)


@pytest.mark.parametrize("target", TARGETS)
def test_tensorflow_range_to_a_symbolic_size(target):
    tf = pytest.importorskip("tensorflow")

    def positions(x):
        n = tf.shape(x)[1]
        pos = tf.cast(tf.range(n), tf.float32)
        backwards = tf.gather(x, tf.range(n - 1, -1, -1), axis=1)
        # TF asks for the size of the range: followed as `seq`
        return backwards + tf.reshape(pos, [1, tf.shape(pos)[0]])

    compiled = ivy_ir.compile(positions, target=target, args=(np.ones((2, 3), np.float32),),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    assert 'start = "seq - 1", stop = -1.0, step = -1.0' in compiled.ir
    _check(compiled, positions, SIZES, lambda f, x: f(tf.constant(x)).numpy(), target)


def test_onnx_range_between_sizes_imports_as_a_symbolic_arange():
    """Range(seq, 2 * seq, 2): both bounds are sizes, and the count that follows
    (`Shape` of the range) is a size expression too."""
    def node(op, ins, out, **kw):
        return helper.make_node(op, ins, [out], **kw)

    def ints(name, value):
        return helper.make_tensor(name, TensorProto.INT64, np.shape(value),
                                  np.ravel(value).tolist())

    nodes = [node("Shape", ["x"], "shape"), node("Gather", ["shape", "one"], "seq"),
             node("Mul", ["seq", "two"], "twice"), node("Range", ["seq", "twice", "two"], "r"),
             node("Shape", ["r"], "count"), node("Cast", ["r"], "rf", to=TensorProto.FLOAT),
             node("Expand", ["rf", "count"], "y")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [ints("one", 1), ints("two", 2)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    compiled = ivy_ir.compile(model, target="numpy", args=(np.zeros((2, 3), np.float32),))
    assert 'start = "n", stop = "n * 2", step = 2.0' in compiled.ir
    for n in (1, 4, 7):
        np.testing.assert_array_equal(compiled(np.zeros((2, n), np.float32)),
                                      np.arange(n, 2 * n, 2, dtype=np.float32))
    assert compiled.traces == 1


# ---- Hugging Face decoders: position ids and causal masks from arange(seq) ----


def _gpt2(transformers):
    config = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=100,
                                     n_positions=64, use_cache=False)
    return transformers.GPT2Model(config)


def _llama(transformers):
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=1, num_attention_heads=2,
                                      num_key_value_heads=1, max_position_embeddings=64,
                                      use_cache=False)
    return transformers.LlamaModel(config)


@pytest.fixture(scope="module", params=[_gpt2, _llama], ids=["gpt2", "llama"])
def decoder(request):
    """The model and its program traced once with dynamic batch and length (compiled
    for NumPy from the model itself, so `traces` counts its retraces)."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(4)
    model = request.param(transformers).eval()
    compiled = ivy_ir.compile(model, target="numpy", args=(torch.randint(0, 100, (2, 7)),),
                              dynamic={"input_ids": {0: "batch", 1: "seq"}})
    return model, compiled


@pytest.mark.parametrize("target", TARGETS)
def test_hf_decoder_with_dynamic_batch_and_length(decoder, target):
    model, traced = decoder
    assert 'ivy.dims = ["batch", "seq"]' in traced.ir
    assert 'ivy.arange {start = 0.0, stop = "seq"}' in traced.ir
    compiled = traced if target == "numpy" else ivy_ir.compile(traced.ir_module, target=target)
    for b, s in SIZES:
        ids = torch.randint(0, 100, (b, s))
        got = compiled(ids.numpy())
        got = got["last_hidden_state"] if isinstance(got, dict) else got[0]
        with torch.no_grad():
            want = model(ids)[0].numpy()
        np.testing.assert_allclose(_np(got), want, rtol=1e-4, atol=1e-4,
                                   err_msg=f"{target} at {(b, s)}")
    assert compiled.traces == 1
