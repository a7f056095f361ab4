"""Pooling on JAX folds the window's strided views elementwise (`jax_kernels.max_pool`,
`sum_pool`): XLA's CPU reduce_window is 3-9x slower and its max-pool gradient ~100x.
Values, gradients and forward-mode derivatives as torch's, ties and NaN included: the
derivative of a max pool goes to each window's first largest element (row-major), a
NaN counting as largest, where `jnp.maximum`'s own rule would split ties."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
F = torch.nn.functional

MAX = [  # (spatial, kernel, strides, padding (lo, hi per dim), dilations, ceil_mode)
    ((9, 8), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    ((9, 9), (2, 3), (1, 2), (0, 0, 1, 1), (2, 1), False),
    ((11,), (3,), (2,), (1, 1), (1,), False),
    ((5, 6, 4), (2, 2, 2), (2, 1, 2), (0, 0, 1, 1, 1, 1), (1, 1, 1), True),
]


def _ties(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Small integers (most windows hold ties), one NaN, a -inf and a -0.0."""
    x = np.random.default_rng(seed).integers(-1, 2, shape).astype(np.float32)
    x.flat[3], x.flat[-5], x.flat[7] = np.nan, -np.inf, -0.0
    return x


def _torch_max(x, case):
    spatial, kernel, strides, padding, dilations, ceil = MAX[case]
    pool = [F.max_pool1d, F.max_pool2d, F.max_pool3d][len(spatial) - 1]
    return pool(x, kernel, strides, padding[::2], dilations, ceil_mode=ceil)


def _compiled(op, x, layout, **attrs):
    if layout == "channels_last":
        x = np.moveaxis(x, 1, -1)

    def f(x):
        return op(x, layout=layout, **attrs)
    return ivy_ir.compile(f, target="jax", args=(x,)), x


def _from_layout(y, layout):
    y = np.asarray(y)
    return np.moveaxis(y, -1, 1) if layout == "channels_last" else y


@pytest.mark.parametrize("layout", ["channels_first", "channels_last"])
@pytest.mark.parametrize("case", range(len(MAX)))
def test_max_pool_values_and_derivatives_match_torch(case, layout):
    spatial, kernel, strides, padding, dilations, ceil = MAX[case]
    x = _ties((2, 3, *spatial), case)
    xt = torch.tensor(x, requires_grad=True)
    want = _torch_max(xt, case)
    w = np.random.default_rng(10 + case).standard_normal(want.shape).astype(np.float32)
    torch.nansum(want * torch.tensor(w)).backward()
    compiled, xl = _compiled(ivy.max_pool, x, layout, kernel=list(kernel),
                             strides=list(strides), padding=list(padding),
                             dilations=list(dilations), ceil_mode=ceil)
    assert "lax.reduce_window(" not in compiled.source and "max_pool(" in compiled.source
    np.testing.assert_array_equal(_from_layout(compiled(xl), layout), want.detach().numpy())

    wl = np.moveaxis(w, 1, -1) if layout == "channels_last" else w
    grad = jax.grad(lambda a: jax.numpy.nansum(compiled(a) * wl))(xl)
    np.testing.assert_array_equal(_from_layout(grad, layout), xt.grad.numpy())

    t = np.random.default_rng(20 + case).standard_normal(x.shape).astype(np.float32)
    _, want_t = torch.func.jvp(lambda a: _torch_max(a, case), (torch.tensor(x),),
                               (torch.tensor(t),))
    tl = np.moveaxis(t, 1, -1) if layout == "channels_last" else t
    _, got_t = jax.jvp(compiled, (xl,), (tl,))
    np.testing.assert_array_equal(_from_layout(got_t, layout), want_t.numpy())


AVG = [  # (spatial, kernel, strides, padding, ceil_mode, count_include_pad)
    ((9, 8), (3, 3), (2, 2), (1, 1, 1, 1), True, True),
    ((9, 8), (3, 3), (2, 2), (1, 1, 1, 1), True, False),
    ((7, 7), (2, 3), (1, 2), (1, 1, 0, 0), False, True),
    ((11,), (3,), (2,), (1, 1), True, False),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("layout", ["channels_first", "channels_last"])
@pytest.mark.parametrize("case", range(len(AVG)))
def test_avg_pool_values_and_gradients_match_torch(case, layout, dtype):
    spatial, kernel, strides, padding, ceil, count_pad = AVG[case]
    x = np.random.default_rng(case).standard_normal((2, 3, *spatial)).astype(dtype)
    pool = [F.avg_pool1d, F.avg_pool2d][len(spatial) - 1]
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    want = pool(xt, kernel, strides, padding[::2], ceil, count_pad)
    w = np.random.default_rng(10 + case).standard_normal(want.shape)
    (want * torch.tensor(w)).sum().backward()
    compiled, xl = _compiled(ivy.avg_pool, x, layout, kernel=list(kernel),
                             strides=list(strides), padding=list(padding), ceil_mode=ceil,
                             count_include_pad=count_pad)
    assert "lax.reduce_window(" not in compiled.source
    got = _from_layout(compiled(xl), layout)
    assert got.dtype == x.dtype
    # half floats add in float32 and round once: within one float16 rounding of the sum
    tol = dict(rtol=1e-3, atol=1e-3) if dtype == "float16" else dict(rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got.astype(np.float64), want.detach().numpy(), **tol)
    if dtype == "float32":
        wl = np.moveaxis(w, 1, -1) if layout == "channels_last" else w
        grad = jax.grad(lambda a: (compiled(a) * wl.astype(np.float32)).sum())(xl)
        np.testing.assert_allclose(_from_layout(grad, layout), xt.grad.numpy(),
                                   rtol=1e-6, atol=1e-6)
