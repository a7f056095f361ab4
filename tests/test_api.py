"""The public API: trace, parse, lower, compile, list_ops, and the compiled object."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import ivy
import ivy_ir

ISSUE_OPS = """constant arange full zeros ones eye linspace tril triu one_hot zeros_like ones_like
full_like astype broadcast_to abs negative sign sqrt rsqrt square reciprocal exp expm1 log log1p
log2 log10 sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf floor ceil round trunc
isnan isinf isfinite logical_not bitwise_invert add subtract multiply divide floor_divide
remainder pow maximum minimum atan2 equal not_equal less less_equal greater greater_equal
logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift where clip sum prod mean var std min max all any argmax argmin cumsum cumprod
logsumexp matmul tensordot vecdot einsum outer diagonal vector_norm matrix_norm cholesky inv det
solve qr svd eigh reshape permute_dims expand_dims squeeze concat stack split flip roll tile
repeat pad slice take take_along_axis gather_nd scatter_nd scatter_add sort argsort top_k relu
relu6 leaky_relu elu gelu silu sigmoid hard_sigmoid hardswish mish softplus softmax log_softmax
linear conv conv_transpose max_pool avg_pool adaptive_avg_pool interpolate layer_norm rms_norm
batch_norm group_norm scaled_dot_product_attention embedding random_uniform random_normal""".split()


def mlp(p, x):
    h = ivy.relu(ivy.linear(x, p["fc1"]["weight"], p["fc1"]["bias"]))
    return ivy.softmax(ivy.matmul(h, ivy.permute_dims(p["fc2"]["weight"], axes=[1, 0])))


@pytest.fixture
def params():
    rng = np.random.default_rng(0)
    return {"fc1": {"weight": rng.standard_normal((16, 8)).astype(np.float32),
                    "bias": rng.standard_normal(16).astype(np.float32)},
            "fc2": {"weight": rng.standard_normal((4, 16)).astype(np.float32)}}


@pytest.fixture
def x():
    return np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)


def test_list_ops_is_sorted_and_complete():
    ops = ivy_ir.list_ops()
    assert ops == sorted(ops)
    assert sorted(set(ISSUE_OPS) - set(ops)) == []


def test_trace_marks_parameters_and_locations(params, x):
    m = ivy_ir.trace(mlp, (x,), params=params)
    text = str(m)
    assert '{ivy.param = "fc1.weight"}' in text and '{ivy.param = "fc2.weight"}' in text
    assert "%x: tensor<3x8xf32>" in text
    assert 'loc("tests/test_api.py":' in text or "test_api.py" in text
    assert set(m.params) == {"fc1.weight", "fc1.bias", "fc2.weight"}
    assert "dense<" not in text  # weights never print inline


def test_parse_round_trip_is_structurally_equal(params, x):
    m = ivy_ir.trace(mlp, (x,), params=params)
    again = ivy_ir.parse(str(m))
    assert again.op.is_structurally_equivalent(m.op)
    assert str(again) == str(m)


def test_compile_matches_eager(params, x):
    c = ivy_ir.compile(mlp, target="numpy", args=(x,), params=params)
    np.testing.assert_allclose(c(x), mlp(params, x), rtol=1e-6, atol=1e-6)
    assert c(x).dtype == np.float32
    assert "def main(params, x):" in c.source
    assert "fc1_weight = params['fc1.weight']" in c.source
    assert set(c.params) == {"fc1.weight", "fc1.bias", "fc2.weight"}
    assert "ivy.linear" in c.ir


def test_lower_parsed_ir_with_explicit_params(params, x):
    text = str(ivy_ir.trace(mlp, (x,), params=params))
    c = ivy_ir.lower(ivy_ir.parse(text), target="numpy")
    with pytest.raises(ValueError, match="no value for parameter"):
        c(x)
    flat = {"fc1.weight": params["fc1"]["weight"], "fc1.bias": params["fc1"]["bias"],
            "fc2.weight": params["fc2"]["weight"]}
    np.testing.assert_allclose(c.apply(flat, x), mlp(params, x), rtol=1e-6, atol=1e-6)


def test_compiled_retraces_for_new_shapes(x):
    c = ivy_ir.compile(lambda a: ivy.sum(a * 2, axis=[0]), args=(x,))
    y = np.ones((5, 2), np.float64)
    np.testing.assert_allclose(c(y), np.full(2, 10.0))
    assert c(y).dtype == np.float64


def test_compiled_ir_text_refuses_other_types(x):
    c = ivy_ir.compile(str(ivy_ir.trace(lambda a: ivy.exp(a), (x,))))
    with pytest.raises(TypeError, match="compiled for tensor<3x8xf32>"):
        c(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"takes 1 input\(s\) \(a\), got 2"):
        c(x, x)


def test_passes_empty_string_runs_nothing(x):
    def f(a):
        return a * 1.0 + 0.0
    raw = ivy_ir.trace(f, (x,))
    c = ivy_ir.compile(f, args=(x,), passes="")
    assert c.ir_module.op_count() == raw.op_count()


def test_print_ir_after_all(x, capsys):
    ivy_ir.compile(lambda a: ivy.exp(a), args=(x,), passes="cse,dce", print_ir_after_all=True)
    out = capsys.readouterr().out
    assert "IR after cse" in out and "IR after dce" in out


def test_data_dependent_branch_names_the_line(x):
    def f(a):
        if ivy.sum(a) > 0:
            return a
        return -a
    with pytest.raises(ivy_ir.TraceError, match=r"test_api.py:\d+"):
        ivy_ir.trace(f, (x,))


def test_indexing_traces_to_slices(x):
    def f(a):
        return a[1, ::-2], a[..., None, 2], a[-1:]
    c = ivy_ir.compile(f, args=(x,))
    for got, want in zip(c(x), (x[1, ::-2], x[..., None, 2], x[-1:])):
        np.testing.assert_array_equal(got, want)


def test_scalar_and_dtype_promotion(x):
    c = ivy_ir.compile(lambda a, b: a * 2 + b, args=(x, np.ones(8, np.float64)))
    assert c(x, np.ones(8, np.float64)).dtype == np.float64
    i = np.arange(4, dtype=np.int32)
    assert ivy.add(i, 1).dtype == np.int32
    # traced, an integer operand of a float op becomes the default float of the IR
    assert ivy_ir.compile(lambda a: ivy.sqrt(a), args=(i,))(i).dtype == np.float32


def test_facade_errors_are_clear():
    assert ivy.sum(np.ones((2, 3)), 0).tolist() == [2.0, 2.0, 2.0]  # the standard's positions
    with pytest.raises(ValueError, match=r"matmul"):
        ivy.matmul(np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(TypeError, match=r"sum\(\) got an unexpected keyword argument 'axes'"):
        ivy.sum(np.ones(3), axes=[0])
    with pytest.raises(ValueError, match=r"ivy.matmul: .*contracted dims"):
        ivy_ir.trace(lambda a, b: ivy.matmul(a, b), (np.ones((2, 3)), np.ones((4, 5))))


def test_import_loads_no_framework():
    code = ("import sys, ivy_ir, ivy, lowerings, importers, importers.common; "
            "print([m for m in sys.modules if m.split('.')[0] in ('torch','jax','tensorflow')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_sequence_outputs_keep_their_structure(x):
    c = ivy_ir.compile(lambda a: ivy.split(a, sizes=[8], axis=1), args=(x,))
    out = c(x)
    assert isinstance(out, tuple) and len(out) == 1
    np.testing.assert_array_equal(out[0], x)
    assert [p.shape for p in ivy.split(x, sizes=[8], axis=1)] == [(3, 8)]


def test_empty_constants_keep_their_shape():
    c = ivy_ir.compile(lambda: ivy.zeros(shape=[0, 3]))
    assert c().shape == (0, 3)


def test_attention_mask_can_add_batch_dims():
    q = np.random.default_rng(2).standard_normal((4, 8)).astype(np.float32)
    mask = np.zeros((2, 4, 4), np.float32)
    mask[1, :, 1:] = -np.inf
    out = ivy.scaled_dot_product_attention(q, q, q, mask)
    assert out.shape == (2, 4, 8)
    np.testing.assert_allclose(out[1], np.broadcast_to(q[0], (4, 8)), rtol=1e-6)
    with pytest.raises(ValueError, match="do not broadcast"):
        ivy.scaled_dot_product_attention(q, q, q, np.zeros((4, 5), np.float32))
    one = q[:1]  # a mask must not grow the (L, S) score matrix: (3, 1) vs (1, 1)
    with pytest.raises(ValueError, match="does not fit scores"):
        ivy.scaled_dot_product_attention(one, one, one, np.zeros((3, 1), np.float32))


def test_zero_d_results_are_arrays(x):
    c = ivy_ir.compile(lambda a: (ivy.sum(a), ivy.matmul(a[0], a[1])), args=(x,))
    for out in c(x):
        assert isinstance(out, np.ndarray) and out.shape == ()
    # eager, NumPy's own convention: a 0-d reduction is a NumPy scalar (np.generic)
    assert isinstance(ivy.max(x), np.generic) and ivy.max(x).shape == ()


def test_numpy_writes_in_place_only_into_its_own_temporaries():
    x = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)
    w = np.random.default_rng(6).standard_normal((6,)).astype(np.float32)

    def f(p, a):
        t = ivy.exp(ivy.tanh(a) * 2.0)          # a chain of fresh temporaries: in place
        v = ivy.reshape(a, shape=[6, 4])         # a view of the input: never written
        return t + 1.0, ivy.negative(v) * p["w"][0], ivy.abs(p["w"]) - 1.0

    x0, w0 = x.copy(), w.copy()
    c = ivy_ir.compile(f, args=(x,), params={"w": w})
    assert ", out=" in c.source
    got = c(x)
    want = f({"w": w}, x)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(c.params["w"], w0)


def test_closed_over_arrays_become_buffers_in_the_promoted_dtype():
    big = np.arange(32, dtype=np.int64)  # large: a buffer, cast to the input's float32
    x = np.ones(32, np.float32)
    c = ivy_ir.compile(lambda a: a + big + big, args=(x,))
    np.testing.assert_array_equal(c(x), 1 + 2 * np.arange(32, dtype=np.float32))
    assert [v.dtype for v in c.params.values()] == [np.float32]  # one buffer, reused


def test_non_finite_constants_survive_print_and_parse():
    """inf/NaN print as hex bit patterns, which must parse back as those floats."""
    values = np.array([[1.5, -np.inf], [np.nan, np.inf]], np.float32)
    m = ivy_ir.trace(lambda a: a + values, (np.ones((2, 2), np.float32),))
    again = ivy_ir.parse(str(m))
    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(ivy_ir.lower(again)(x), ivy_ir.lower(m)(x))
    assert str(again) == str(m)
