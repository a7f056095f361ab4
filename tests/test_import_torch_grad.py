"""The backward kernels of torch's core ATen set (`importers/torch_grad.py`) against
torch's own kernels, on the NumPy target and a sample on JAX and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_import_torch_segment import _check

A = torch.ops.aten
RNG = np.random.default_rng(5)


def _f32(*shape: int) -> torch.Tensor:
    return torch.as_tensor(RNG.standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("n,stride,padding,dilation,groups,mask", [
    (2, [2, 1], [1, 0], [1, 2], 1, [True, True, True]),
    (2, [1, 1], [1, 1], [1, 1], 2, [True, True, False]),
    (1, [3], [2], [1], 3, [False, True, True]),
    (3, [2, 1, 1], [0, 1, 0], [1, 1, 1], 1, [True, False, True]),
])
def test_convolution_backward(n, stride, padding, dilation, groups, mask):
    size = [7, 6, 5][:n]
    x, w = _f32(2, 6, *size), _f32(3 * groups, 6 // groups, *[3, 2, 2][:n])
    with torch.no_grad():
        out = torch.ops.aten.convolution(x, w, None, stride, padding, dilation, False,
                                         [0] * n, groups)
    grad = _f32(*out.shape)

    def fn(g, x, w):
        res = A.convolution_backward(g, x, w, [w.shape[0]], stride, padding, dilation, False,
                                     [0] * n, groups, mask)
        return tuple(r for r, m in zip(res, mask) if m)
    _check(fn, (grad, x, w), targets=("numpy", "torch") if n == 2 else ("numpy",), tol=1e-4)


@pytest.mark.parametrize("kernel,stride,padding,ceil,include_pad,divisor", [
    ([3, 2], [2, 2], [1, 1], False, True, None),
    ([3, 3], [2, 1], [1, 0], True, False, None),
    ([2, 2], [1, 2], [0, 1], True, True, 3),
])
def test_avg_pool2d_backward(kernel, stride, padding, ceil, include_pad, divisor):
    x = _f32(2, 3, 7, 6)
    with torch.no_grad():
        out = A.avg_pool2d(x, kernel, stride, padding, ceil, include_pad, divisor)
    grad = _f32(*out.shape)
    _check(lambda g, x: A.avg_pool2d_backward(g, x, kernel, stride, padding, ceil,
                                              include_pad, divisor), (grad, x))


def test_adaptive_and_max_pool_backward():
    x = _f32(2, 3, 7, 5)
    _check(lambda g, x: A._adaptive_avg_pool2d_backward(g, x), (_f32(2, 3, 3, 4), x),
           targets=("numpy", "jax"))

    def fn(g, x):  # overlapping windows: one input gets several outputs' gradients
        idx = A.max_pool2d_with_indices(x, [3, 3], [1, 2], [1, 1])[1]
        return A.max_pool2d_with_indices_backward(g, x, [3, 3], [1, 2], [1, 1], [1, 1], False,
                                                  idx)
    _check(fn, (_f32(2, 3, 7, 3), x), targets=("numpy", "torch"))
