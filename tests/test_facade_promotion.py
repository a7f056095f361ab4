"""Functions rendered from a lowering rule (`ivy.linear`, `ivy.conv`, ...) assume the
IR's promoted operands; called eagerly on mixed dtypes they promote as the standard
says (the 2021 paper's `ivy.array([1., 2., 3.])` is float64 on torch, its layers'
weights float32), instead of the framework's dtype error."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import ivy

BACKENDS = ["numpy", "torch", "jax", "tensorflow"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_linear_promotes_mixed_float_operands(backend):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)
    with getattr(ivy, backend).use:
        wide = "float32" if backend == "jax" else "float64"  # JAX has no float64 unless x64
        y = ivy.linear(ivy.asarray(x, dtype=wide), ivy.asarray(w, dtype=ivy.float32),
                       ivy.asarray(b, dtype=ivy.float32))
        assert ivy.to_numpy(y).dtype == np.dtype(wide)
        want = x @ w.astype(np.float32).T + b.astype(np.float32)
        np.testing.assert_allclose(ivy.to_numpy(y), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
def test_conv_and_integer_operands_promote_as_the_tracer_does(backend):
    x = np.ones((1, 2, 5, 5))
    w = np.ones((3, 2, 3, 3), np.float32)
    with getattr(ivy, backend).use:
        y = ivy.conv(ivy.asarray(x), ivy.asarray(w), strides=[1, 1], padding=[0, 0, 0, 0],
                     dilations=[1, 1])
        assert ivy.to_numpy(y).dtype == np.float64
        np.testing.assert_allclose(ivy.to_numpy(y), np.full((1, 3, 3, 3), 18.0))
        # an integer operand of a float-only op takes the float's dtype, as when traced
        z = ivy.linear(ivy.asarray([[1, 2]]), ivy.asarray(np.ones((2, 2), np.float32)))
        assert ivy.to_numpy(z).dtype == np.float32
        np.testing.assert_array_equal(ivy.to_numpy(z), [[3.0, 3.0]])
    traced = ivy.trace_graph(lambda a, b: ivy.linear(a, b),
                             args=(np.array([[1, 2]]), np.ones((2, 2), np.float32)))
    assert "tensor<1x2xf32>" in traced.to_text()


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("dtype", ["flaot32", "float8_e4m3fn"])
def test_a_dtype_the_backend_lacks_is_refused_by_name(backend, dtype):
    """A misspelt or unsupported dtype name was read as "no dtype" (None), so `astype`
    returned its input unchanged; it is refused, naming the dtype."""
    with getattr(ivy, backend).use:
        x = ivy.asarray([1.0, 2.5])
        with pytest.raises(TypeError, match=f"the {backend} backend has no dtype '{dtype}'"):
            ivy.astype(x, dtype)
        with pytest.raises(TypeError, match=f"has no dtype '{dtype}'"):
            ivy.zeros((2,), dtype=dtype)


@pytest.mark.parametrize("backend", BACKENDS)
def test_running_sums_and_products_widen_small_integers_alike(backend):
    # the standard gives both the default integer of x's signedness (JAX's own
    # cumulative_prod keeps uint8 and int8 while its cumulative_sum widens them)
    with getattr(ivy, backend).use:
        for dtype in ("uint8", "int8", "int16", "bool"):
            x = ivy.asarray(np.array([1, 2, 3]).astype(dtype))
            sums, prods = ivy.cumulative_sum(x), ivy.cumulative_prod(x, include_initial=True)
            assert prods.dtype == sums.dtype == ivy.sum(x).dtype, (dtype, prods.dtype)
            want = np.cumprod(np.array([1, 1, 2, 3]).astype(dtype).astype(np.int64))
            np.testing.assert_array_equal(ivy.to_numpy(prods), want)
            assert ivy.cumulative_prod(x, dtype=ivy.int16).dtype == ivy.int16


@pytest.mark.parametrize("backend", BACKENDS)
def test_searchsorted_gives_the_default_index_dtype(backend):
    # the standard's index dtype is the default integer (jnp.searchsorted gives int32
    # even under jax_enable_x64; JAX's default integer is int64 there, int32 without)
    wide = [__import__("jax").enable_x64(True)] if backend == "jax" else []
    for scope in [contextlib.nullcontext(), *wide]:
        with scope, getattr(ivy, backend).use:
            x = ivy.asarray(np.array([1, 3, 5], np.uint8))
            got = ivy.searchsorted(x, ivy.asarray(np.array([0, 3, 9], np.uint8)), side="right")
            np.testing.assert_array_equal(ivy.to_numpy(got), [0, 2, 3])
            assert got.dtype == ivy.argmax(x).dtype, got.dtype
