"""Static index math shared by the pooling and resampling kernels of several targets.

Pure Python and NumPy on static sizes: the NumPy target runs it at call time, the JAX
and TensorFlow targets while tracing. Like every helper kernel, its source is copied
into each generated program that uses it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["adaptive_weights", "even_windows", "pool_out_dim", "resample_taps"]


def pool_out_dim(d, k, s, lo, hi, dil, ceil_mode):
    # the output length rule of the `pool`/`conv` inference (PyTorch's ceil_mode rule)
    span = d + lo + hi - dil * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= d + lo:
        out -= 1
    return out


def adaptive_weights(d, o, dtype):
    # (o, d) averaging matrix: row i averages [floor(i*d/o), ceil((i+1)*d/o))
    j = np.arange(o)
    start, end = (j * d) // o, -((-(j + 1) * d) // o)
    cols = np.arange(d)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def even_windows(shape, first, output_size):
    # when every spatial size is a multiple of its output size, adaptive pooling is a
    # mean over equal windows: the shape that splits each size d into (o, d // o), and
    # the axes of the window parts; None otherwise
    spatial = shape[first:first + len(output_size)]
    if any(o == 0 or d % o for d, o in zip(spatial, output_size)):
        return None
    split = list(shape[:first])
    for d, o in zip(spatial, output_size):
        split += [o, d // o]
    split += list(shape[first + len(output_size):])
    return split, tuple(first + 2 * i + 1 for i in range(len(output_size)))


def resample_taps(d, o, mode, align_corners, dtype):
    # source indices i0, i1 and weight lam of x[i0] * (1 - lam) + x[i1] * lam for each of
    # the o outputs, by PyTorch's rules in its float precision (lam is None for nearest)
    if mode == "nearest":
        ft = np.float64 if dtype == np.float64 else np.float32
        # torch floors in float32 (floorf) even when it multiplies in float64
        src = np.floor((np.arange(o, dtype=ft) * (ft(d) / ft(o))).astype(np.float32))
        i0 = np.minimum(src.astype(np.int64), d - 1)
        return i0, i0, None
    ft = np.dtype(dtype).type
    dst = np.arange(o, dtype=dtype)
    if align_corners:
        src = dst * ft((d - 1) / (o - 1) if o > 1 else 0.0)
    else:
        src = np.maximum((dst + ft(0.5)) * ft(d / o) - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(np.int64), d - 1)
    return i0, np.minimum(i0 + 1, d - 1), (src - i0).astype(dtype)
