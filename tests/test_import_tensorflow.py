"""The TensorFlow / Keras importer: detection, parameters, promotion, errors, locations,
and Keras models on every target."""

from __future__ import annotations

import functools
import time

import keras
import numpy as np
import pytest
import tensorflow as tf
import zoo_tensorflow_models as models
from tensorflow.python.framework import op_def_registry
from zoo_common import TARGETS

import ivy_ir
from importers.tensorflow import ONE_TO_ONE, TABLE
from ivy_ir.core.errors import TraceError, UnsupportedOpsError
from ivy_ir.dialect import SPECS
from ivy_ir.dialect.ops import location_text

HERE = "tests/test_import_tensorflow.py"
rng = np.random.default_rng(3)


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _line(fn, offset: int) -> int:
    """The source line `offset` lines below `def fn`."""
    return fn.__code__.co_firstlineno + offset


def _scaled(x):
    return tf.nn.relu(x) * 3.0


def test_source_is_detected_without_source_argument():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    # numpy inputs: the function's own references name TF
    c = ivy_ir.compile(_scaled, target="numpy", args=(x,))
    np.testing.assert_allclose(c(x), _scaled(x).numpy(), rtol=1e-6)
    assert "ivy.relu" in c.ir
    # a Keras model is detected from its class
    model = models.keras_mlp()
    m = ivy_ir.trace(model, (x[:, :2].repeat(3, axis=1),))
    assert set(m.params) == {v.path for v in model.variables}


def test_retrace_on_new_shapes_with_numpy_inputs():
    c = ivy_ir.compile(_scaled, target="jax", args=(np.ones((2, 3), np.float32),))
    y = rng.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(_np(c(y)), _scaled(y).numpy(), rtol=1e-6)


@functools.cache
def _keras_models() -> dict[str, tuple[keras.Model, np.ndarray]]:
    return {"cnn": (models.keras_cnn(), rng.standard_normal((2, 8, 8, 3)).astype(np.float32)),
            "encoder": (models.keras_transformer_encoder(),
                        rng.standard_normal((2, 6, 8)).astype(np.float32))}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["cnn", "encoder"])
def test_keras_model_on_every_target(name, target):
    # Dense, Conv2D + pooling, BatchNormalization (inference), LayerNormalization and
    # MultiHeadAttention against Keras' own output
    model, x = _keras_models()[name]
    c = ivy_ir.compile(model, target=target, args=(x,))
    np.testing.assert_allclose(_np(c(x)), np.asarray(model(x)), rtol=1e-4, atol=1e-5)
    paths = {v.path: v.trainable for v in model.variables}
    assert set(c.params) == set(paths)
    if target == "tensorflow":
        assert {k: v.trainable for k, v in c.params.items()} == paths
    if target == "torch":
        assert {k: v.requires_grad for k, v in c.params.items()} == paths


def test_keras_params_trainable_and_buffers():
    model, x = _keras_models()["cnn"]
    m = ivy_ir.trace(model, (x,))
    kinds = {a.param: a.trainable for a in m.args() if a.param is not None}
    bn = next(la for la in model.layers if isinstance(la, keras.layers.BatchNormalization))
    conv = model.layers[0]
    assert kinds[bn.moving_mean.path] is False
    assert kinds[bn.moving_variance.path] is False
    assert kinds[bn.gamma.path] is True
    assert kinds[conv.kernel.path] is True
    assert conv.kernel.path.endswith("/kernel") and "/" in bn.moving_mean.path
    np.testing.assert_array_equal(m.params[conv.kernel.path], conv.kernel.numpy())
    assert f'ivy.buffer = "{bn.moving_mean.path}"' in str(m)


def test_tf_variables_named_by_variable_name():
    scaler = models.Scaler()
    x = rng.standard_normal((3, 4)).astype(np.float32)
    ids = np.array([5, 0, 2], np.int64)
    c = ivy_ir.compile(scaler, target="tensorflow", args=(x, ids))
    assert {k: v.trainable for k, v in c.params.items()} == {"w": True, "b": True,
                                                             "scale": False, "table": True}
    np.testing.assert_allclose(_np(c(x, ids)), scaler(x, ids).numpy(), rtol=1e-6)


def test_params_tree_argument():
    def apply(params, x):
        return tf.matmul(x, params["dense"]["w"]) + params["dense"]["b"]
    params = {"dense": {"w": rng.standard_normal((3, 2)).astype(np.float32),
                        "b": np.ones(2, np.float32)}}
    x = rng.standard_normal((4, 3)).astype(np.float32)
    m = ivy_ir.trace(apply, (tf.constant(x),), params=params)
    assert set(m.params) == {"dense.w", "dense.b"}
    c = ivy_ir.compile(m, target="numpy")
    np.testing.assert_allclose(c(x), x @ params["dense"]["w"] + 1.0, rtol=1e-6)


def _promote(a, b, x):
    y = tf.cast(a, tf.float32) * x
    return y, tf.math.truediv(a, b), keras.ops.add(a, x)


def test_dtype_promotion_is_explicit_astype():
    a = rng.integers(-5, 5, (2, 3)).astype(np.int32)
    b = rng.integers(1, 5, (2, 3)).astype(np.int32)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    ir = str(ivy_ir.trace(_promote, (tf.constant(a), tf.constant(b), tf.constant(x))))
    casts = [line for line in ir.splitlines() if "ivy.astype" in line]
    # cast(a) for the product; truediv casts both ints to float64; keras.ops.add casts a
    assert len(casts) == 4, ir
    assert sum("-> tensor<2x3xf64>" in line for line in casts) == 2
    assert sum("(tensor<2x3xi32>) -> tensor<2x3xf32>" in line for line in casts) == 2
    assert "ivy.add" in ir and "ivy.divide" in ir
    want = [t.numpy() for t in _promote(a, b, x)]
    for target in TARGETS:
        got = ivy_ir.compile(_promote, target=target, args=(a, b, x))(a, b, x)
        for g, w in zip(got, want):
            assert _np(g).dtype == w.dtype
            np.testing.assert_allclose(_np(g), w, rtol=1e-6)


def _unmapped(x):
    y = tf.math.bessel_i1e(x)
    z = tf.math.special.bessel_k0e(x) + y
    return tf.math.bessel_i1e(z)


def test_unsupported_ops_listed_all_at_once_before_lowering(monkeypatch):
    import lowerings

    def no_lowering(*a, **k):
        raise AssertionError("lowered despite unsupported ops")
    monkeypatch.setattr(lowerings, "lower", no_lowering)
    x = np.ones((2, 2), np.float32)
    with pytest.raises(UnsupportedOpsError) as info:
        ivy_ir.compile(_unmapped, target="numpy", args=(x,))
    msg = str(info.value)
    assert "3 tensorflow ops of 2 kinds" in msg
    assert f"BesselI1e (x2): {HERE}:{_line(_unmapped, 1)}, {HERE}:{_line(_unmapped, 3)}" \
        in msg
    assert f"BesselK0e (x1): {HERE}:{_line(_unmapped, 2)}" in msg
    assert info.value.missing["BesselI1e"] == [f"{HERE}:{_line(_unmapped, 1)}",
                                               f"{HERE}:{_line(_unmapped, 3)}"]


def _branchy(x):
    y = x * 2.0
    if tf.reduce_sum(x) > 0:
        y = y + 1.0
    return y


def test_data_dependent_if_is_a_cond_at_the_users_line():
    module = ivy_ir.trace(_branchy, (tf.ones((2, 3)),))
    (cond,) = [op for op in module.entry.walk() if op.name == "ivy.cond"]
    assert location_text(cond.location) == f"{HERE}:{_line(_branchy, 2)}:0"
    c = ivy_ir.compile(_branchy, args=(tf.ones((2, 3)),), target="numpy")
    for x in (np.ones((2, 3), np.float32), -np.ones((2, 3), np.float32)):
        np.testing.assert_allclose(c(x), _branchy(tf.constant(x)).numpy())


def test_data_dependent_if_without_autograph_names_the_line():
    plain = tf.function(_branchy, autograph=False)
    with pytest.raises(TraceError, match=f"data-dependent Python control flow at "
                                         f"{HERE}:{_line(_branchy, 2)}: the truth value"):
        ivy_ir.trace(plain, (tf.ones((2, 3)),), source="tensorflow")


def _loop(x):
    for _ in tf.range(tf.shape(x)[0] + tf.cast(tf.reduce_sum(x) > 0, tf.int32)):
        x = x * 2.0
    return x


def test_tensor_loop_is_one_while_loop():
    module = ivy_ir.trace(_loop, (tf.ones((2, 2)),))
    assert str(module).count("ivy.while_loop") == 1
    c = ivy_ir.compile(_loop, args=(tf.ones((2, 2)),), target="numpy")
    for x in (np.ones((2, 2), np.float32), -np.ones((3, 2), np.float32)[:2]):
        np.testing.assert_allclose(c(x), _loop(tf.constant(x)).numpy())


def _located(x):
    h = tf.exp(x)
    return tf.reduce_sum(h, axis=0)


def test_locations_point_at_user_lines():
    ir = str(ivy_ir.trace(_located, (tf.ones((2, 3)),)))
    exp = next(line for line in ir.splitlines() if "ivy.exp" in line)
    total = next(line for line in ir.splitlines() if "ivy.sum" in line)
    assert f'loc("{HERE}":{_line(_located, 1)}:0)' in exp
    assert f'loc("{HERE}":{_line(_located, 2)}:0)' in total


def test_nested_tf_function_is_inlined():
    @tf.function
    def inner(x):
        return tf.nn.relu(x) * 2.0

    def outer(x):
        return inner(x) + inner(-x)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    m = ivy_ir.trace(outer, (tf.constant(x),))
    assert str(m).count("ivy.relu") == 2
    np.testing.assert_allclose(ivy_ir.compile(m)(x), outer(x).numpy(), rtol=1e-6)


def test_large_captured_constant_is_a_buffer():
    table = rng.standard_normal((8, 8)).astype(np.float32)

    def f(x):
        return tf.matmul(x, tf.constant(table))
    m = ivy_ir.trace(f, (tf.ones((2, 8)),))
    assert list(m.params) == ["const0"]
    np.testing.assert_array_equal(m.params["const0"], table)
    assert "ivy.constant" not in str(m)


def test_text_input_reaches_the_op_report():
    """A tf.string input is the IR's `string` dtype; TF's text ops have no mapping yet,
    so the report names the op rather than the dtype."""
    with pytest.raises(UnsupportedOpsError, match=r"StringLength \(x1\)"):
        ivy_ir.trace(lambda x: tf.strings.length(x), (tf.constant(["a", "bc"]),))


def test_500_op_program_imports():
    fn, args, params = models.build_500_op()
    start = time.perf_counter()
    m = ivy_ir.trace(fn, args, params=params, source="tensorflow")
    elapsed = time.perf_counter() - start
    assert m.op_count() >= 450, m.op_count()
    assert len(m.params) == 200
    print(f"500-op TF program: {m.op_count()} ops imported in {elapsed:.2f}s")


def test_channels_first_conv_and_pool():
    # TF's CPU kernels run NHWC only, so the NCHW program is checked against its NHWC twin
    w = rng.standard_normal((3, 3, 4, 5)).astype(np.float32) * 0.3
    b = rng.standard_normal(5).astype(np.float32)

    def nchw(x):
        y = tf.nn.conv2d(x, w, strides=[1, 1, 2, 2], padding="SAME", data_format="NCHW")
        y = tf.nn.bias_add(y, b, data_format="NCHW")
        return tf.nn.max_pool2d(y, 2, 1, "VALID", data_format="NCHW")

    def nhwc(x):
        y = tf.nn.bias_add(tf.nn.conv2d(x, w, strides=2, padding="SAME"), b)
        return tf.nn.max_pool2d(y, 2, 1, "VALID")
    x = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    m = ivy_ir.trace(nchw, (tf.constant(x),))
    ir = str(m)
    assert "ivy.conv" in ir and "ivy.max_pool" in ir and "channels_last" not in ir
    want = np.transpose(nhwc(np.transpose(x, (0, 2, 3, 1))).numpy(), (0, 3, 1, 2))
    for target in TARGETS:
        got = _np(ivy_ir.compile(m, target=target)(x))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_list_of_arrays_argument_is_refused():
    with pytest.raises(TypeError, match="argument 0 is a list holding arrays"):
        ivy_ir.trace(lambda xs: xs[0] + xs[1], ([tf.ones(2), tf.ones(2)],), source="tensorflow")


def _is_raw_op(name: str) -> bool:
    # TF's op registry holds every op a graph can contain, also those tf.raw_ops leaves out
    return hasattr(tf.raw_ops, name) or op_def_registry.get(name) is not None


def test_every_table_key_is_a_tf_raw_op_and_every_mapping_a_registry_op():
    assert not _is_raw_op("AddV3") and not _is_raw_op("Logaddexp")  # the check can fail
    assert [k for k in TABLE if not _is_raw_op(k)] == []
    assert [k for k in ONE_TO_ONE if k not in TABLE] == []
    assert {k: v for k, v in ONE_TO_ONE.items() if v not in SPECS} == {}
