"""Pure-NumPy kernels for ops that NumPy has no single function for.

The emitter copies the source of each kernel a program uses into the generated code,
so these functions may only use `np` and `math` and each other.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "one_hot"]


def erf(x):
    # math.erf is correctly rounded; NumPy has no erf of its own
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


def one_hot(indices, depth, axis, dtype):
    hot = np.arange(depth) == np.expand_dims(indices, -1)
    return np.moveaxis(hot, -1, axis).astype(dtype)
