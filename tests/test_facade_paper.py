"""The 2021 Ivy paper's code, run as written, on every backend's own arrays.

Sections 3.1 (framework namespaces), 3.3 (local selection: `f=` and type inference),
3.4 (global selection: `set_framework`, `with ivy.<fw>.use:`) and the array code of the
drone example (appendix A.3), plus the rules around them: native arrays in and out,
dtype objects, autograd through facade calls, tracing while a backend is set, and
clear errors for arrays of two frameworks.
"""

from __future__ import annotations

import subprocess
import sys

import jax.numpy as jnp
import numpy as np
import pytest
import tensorflow as tf
import torch

import ivy
import ivy_ir

NATIVE = {"numpy": np.ndarray, "torch": torch.Tensor, "jax": type(jnp.ones(1)),
          "tensorflow": type(tf.constant(1.0))}


@pytest.fixture(autouse=True)
def no_backend_left_set():
    yield
    while ivy.current_backend() != "numpy" or ivy.backend._stack:
        ivy.unset_backend()


def close(got, want) -> None:
    np.testing.assert_allclose(ivy.to_numpy(got), want, rtol=1e-6)


def test_section_3_3_framework_argument():
    x = tf.constant([-1, 2.])
    y = ivy.clip(x, 0, 1, f='tensorflow')
    assert isinstance(y, NATIVE["tensorflow"]) and y.numpy().tolist() == [0, 1]
    y = ivy.clip(x, 0.2, 0.8, f=ivy.tensorflow)
    close(y, [0.2, 0.8])
    x = torch.tensor([-1, 2.])
    y = ivy.clip(x, 0, 1, f='torch')
    assert isinstance(y, torch.Tensor) and y.tolist() == [0, 1]
    y = ivy.clip(x, 0.2, 0.8, f=ivy.torch)
    close(y, [0.2, 0.8])


def test_section_3_3_type_inference():
    x = tf.constant([-1, 2.])
    y = ivy.clip(x, 0, 1)
    assert isinstance(y, NATIVE["tensorflow"]) and y.numpy().tolist() == [0, 1]
    x = torch.tensor([-1, 2.])
    y = ivy.clip(x, 0, 1)
    assert isinstance(y, torch.Tensor) and y.tolist() == [0, 1]
    assert isinstance(ivy.clip(jnp.asarray([-1, 2.]), 0, 1), NATIVE["jax"])


def test_section_3_4_global_framework():
    agnostic_clip = ivy.clip
    x = tf.constant([-1, 2.])
    ivy.set_framework('tensorflow')
    y = ivy.clip(x, 0, 1)
    y = ivy.clip(x, 0.2, 0.8)
    assert isinstance(y, NATIVE["tensorflow"])
    close(y, [0.2, 0.8])
    assert ivy.get_framework() is ivy.tensorflow
    ivy.unset_framework()
    x = torch.tensor([-1, 2.])
    ivy.set_framework(ivy.torch)
    y = ivy.clip(x, 0, 1)
    y = ivy.clip(x, 0.2, 0.8)
    assert isinstance(y, torch.Tensor)
    close(y, [0.2, 0.8])
    assert ivy.clip is ivy.torch.clip  # rebound: no dispatch left on the call path
    ivy.unset_framework()
    assert ivy.clip is agnostic_clip


def test_section_3_4_with_blocks():
    x = tf.constant([-1, 2.])
    with ivy.tensorflow.use:
        y = ivy.clip(x, 0, 1)
        y = ivy.clip(x, 0.2, 0.8)
    assert isinstance(y, NATIVE["tensorflow"])
    x = torch.tensor([-1, 2.])
    with ivy.torch.use:
        y = ivy.clip(x, 0, 1)
        y = ivy.clip(x, 0.2, 0.8)
        assert ivy.current_backend() == "torch"
    assert isinstance(y, torch.Tensor)
    assert ivy.current_backend() == "numpy"


def test_section_3_1_torch_namespace():
    x = torch.tensor([[-1., 2.], [3., -4.]])
    assert ivy.torch.clip(x, 0, 1).tolist() == [[0, 1], [1, 0]]
    assert ivy.torch.tile(x[0], (2,)).tolist() == [-1, 2, -1, 2]
    assert ivy.torch.cast(x, 'int32').dtype == torch.int32
    assert ivy.torch.transpose(x, (1, 0)).tolist() == [[-1, 3], [2, -4]]
    assert ivy.torch.gather_nd(x, torch.tensor([[1, 0]])).tolist() == [3]


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "tensorflow"])
def test_drone_example_array_code(backend):
    ivy.set_framework(backend)
    num_anchors, num_sample_points = 3, 100
    cuboid_dims = ivy.array([[0.40, 0.45, 0.91],
                             [0.40, 0.45, 0.91],
                             [1.60, 1.10, 0.75],
                             [0.40, 0.40, 0.56]])
    assert isinstance(cuboid_dims, NATIVE[backend])
    closest = ivy.reduce_min(cuboid_dims, -1, keepdims=True)
    close(closest, [[0.40], [0.40], [0.75], [0.40]])
    anchor_points = ivy.cast(ivy.expand_dims(ivy.linspace(0, 1, 2 + num_anchors), -1),
                             'float32')
    assert tuple(anchor_points.shape) == (5, 1) and anchor_points.dtype == ivy.float32
    query_points = ivy.cast(ivy.expand_dims(ivy.linspace(0, 1, num_sample_points), -1),
                            'float32')
    close(query_points[:, 0], np.linspace(0, 1, num_sample_points))
    start = ivy.array([-0.5, 0.7, 1.0, 0.0, 0.0, 0.0])
    goal = ivy.array([1.5, -0.7, 1.2, 0.0, 0.0, 0.3])
    anchors = ivy.cast(ivy.transpose(ivy.linspace(
        start, goal, 2 + num_anchors)[..., 1:-1], (1, 0)), 'float32')
    want = np.linspace(ivy.to_numpy(start), ivy.to_numpy(goal), 5)[1:-1]
    assert tuple(anchors.shape) == (3, 6) and isinstance(anchors, NATIVE[backend])
    close(anchors, want)
    assert bool(ivy.reduce_min(closest) < 0.5)
    assert ivy.to_numpy(ivy.reduce_mean(closest)).item() == pytest.approx(0.4875)


def test_dtype_objects():
    assert ivy.float32 == np.float32 and ivy.float32 == torch.float32
    assert ivy.float32 == tf.float32 and ivy.float32 == jnp.float32
    assert ivy.float32 != torch.float64 and ivy.int64 == "int64"
    ivy.set_backend("torch")
    assert ivy.float32 is torch.float32
    assert ivy.zeros((2, 3), dtype=ivy.float32).dtype == ivy.float32
    ivy.unset_backend()
    ivy.set_backend("tensorflow")
    assert ivy.float32 is tf.float32
    ivy.unset_backend()
    assert type(ivy.float32).__name__ == "Dtype"
    assert ivy.finfo(ivy.float32).eps == np.finfo(np.float32).eps
    # bfloat16, which NumPy's finfo does not know: 8 bits of precision, float32's range
    bf16 = ivy.finfo(ivy.bfloat16)
    assert (bf16.bits, bf16.eps, bf16.smallest_normal) == (16, 2.0 ** -7, 2.0 ** -126)
    assert ivy.finfo(ivy.complex64).bits == 32
    assert ivy.result_type(ivy.int8, ivy.uint8) == ivy.int16
    assert ivy.can_cast(ivy.int8, ivy.int16) and not ivy.can_cast(ivy.float32, ivy.int32)
    assert ivy.isdtype(ivy.uint16, "unsigned integer")


def test_autograd_flows_through_facade_calls():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    ivy.sum(ivy.exp(x)).backward()  # inferred: torch
    torch.testing.assert_close(x.grad, torch.exp(x.detach()))
    with ivy.torch.use:
        y = torch.tensor([[1.0, 2.0]], requires_grad=True)
        ivy.sum(ivy.matmul(y, ivy.permute_dims(y, (1, 0)))).backward()
    torch.testing.assert_close(y.grad, 2 * y.detach())


def test_tracing_while_a_backend_is_set():
    def f(a):
        return ivy.clip(ivy.sum(a * 2.0, 1), 0, 5)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ivy.set_backend("torch")
    c = ivy_ir.compile(f, target="torch", args=(torch.as_tensor(x),))
    assert "ivy.clip" in c.ir and "ivy.sum" in c.ir
    got = c(torch.as_tensor(x))
    # the standard's dtype= of a reduction, and torch's own dtype objects, traced
    c2 = ivy_ir.compile(lambda a: ivy.astype(ivy.sum(a, 0, dtype=ivy.float64), ivy.float32),
                        target="torch", args=(torch.as_tensor(x),))
    assert c2.ir.count("ivy.astype") == 2
    assert c2(torch.as_tensor(x)).dtype == torch.float32
    ivy.unset_backend()
    assert isinstance(got, torch.Tensor) and got.tolist() == [5.0, 5.0]
    c = ivy_ir.compile(f, target="jax", args=(jnp.asarray(x),))
    np.testing.assert_allclose(np.asarray(c(jnp.asarray(x))), [5.0, 5.0])


def test_arrays_of_two_frameworks_are_refused():
    with pytest.raises(TypeError, match="two frameworks.*(torch and tensorflow|tensorflow and"
                       " torch)"):
        ivy.add(torch.ones(2), tf.ones(2))
    with pytest.raises(TypeError, match=r"two frameworks in one call \(torch and numpy\)"):
        ivy.concat([torch.ones(2), np.ones(2)])
    with pytest.raises(ValueError, match="unknown backend 'mxnet'"):
        ivy.set_backend("mxnet")


def test_data_dependent_functions_are_eager_only():
    x = np.array([3, 1, 3, 2])
    assert sorted(ivy.unique_values(x).tolist()) == [1, 2, 3]  # order: unspecified
    with pytest.raises(TypeError, match="unique_values.*depends on the data"):
        ivy_ir.trace(lambda a: ivy.unique_values(a), (x,))


@pytest.mark.parametrize("backend", [None, "numpy", "torch", "jax", "tensorflow"])
def test_importing_and_setting_a_backend_load_only_that_framework(backend):
    def loaded(code: str) -> str:
        code += ("\nimport sys; print(sorted({m.split('.')[0] for m in sys.modules} & "
                 "{'torch', 'jax', 'tensorflow'}))")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout.strip()
    setting = f"ivy.set_backend({backend!r}); ivy.add(ivy.ones(3), 1)" if backend else ""
    # what the framework itself imports (TensorFlow imports JAX where it is installed)
    alone = loaded(f"import {backend}") if backend else "[]"
    assert loaded(f"import ivy\n{setting}") == alone


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch", "tensorflow"])
def test_2021_scatter_nd_and_gather_nd(backend):
    with getattr(ivy, backend).use:
        indices = ivy.asarray([[0, 1], [2, 0]])
        out = ivy.scatter_nd(indices, ivy.asarray([5., 7.]), (3, 2))
        assert isinstance(out, NATIVE[backend])
        close(out, [[0, 5], [0, 0], [7, 0]])
        close(ivy.gather_nd(out, indices), [5, 7])
