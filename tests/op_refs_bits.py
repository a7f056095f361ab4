"""References for the bit-level ops: `bitcast` (NumPy's `view`), `erfinv` (SciPy's, in
float64), `nextafter` (NumPy's, in the operands' dtype), `threefry2x32` (JAX's own
primitive, which the op promises to equal bit for bit) and `population_count` (Python's
`int.bit_count` of each value's two's-complement bits)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_refs_common import FLOAT, INT, arr, bshapes, case, f64, like, pick, shape

SAME_WIDTH = [("float32", "int32"), ("float32", "uint32"), ("int32", "float32"),
              ("uint32", "float32"), ("float64", "int64"), ("int64", "float64"),
              ("int32", "uint32"), ("uint8", "int8"), ("int16", "uint16")]
"""(from, to) pairs of one width the differential tests draw."""


def _bitcast(d):
    src, dst = pick(d, SAME_WIDTH)
    if src.startswith("float"):
        x = arr(d, src, shape(d), -1e6, 1e6)
    else:
        info = np.iinfo(src)
        x = d.draw(hnp.arrays(src, shape(d), elements=st.integers(int(info.min), int(info.max))))
    return [x], {"dtype": dst}


def _erfinv(d):
    return [arr(d, pick(d, FLOAT), shape(d), -0.999, 0.999)], {}


def _erfinv_ref(x):
    from scipy.special import erfinv
    return like(erfinv(f64(x)), x)


def _nextafter(d):
    dt, (sx, sy) = pick(d, FLOAT), bshapes(d, 2)
    x, y = arr(d, dt, sx, -3, 3), arr(d, dt, sy, -3, 3)
    if sx == sy:  # ties (y == x gives y) on purpose
        y = np.where(arr(d, "bool", sy), x, y)
    return [x, y], {}


def _counted(d):
    dtype = pick(d, INT)
    info = np.iinfo(dtype)
    x = d.draw(hnp.arrays(dtype, shape(d), elements=st.integers(int(info.min), int(info.max))))
    return [x], {}


def _population_count_ref(x):
    width = 8 * x.dtype.itemsize
    return np.array([(int(v) % 2**width).bit_count() for v in x.flat],
                    dtype=x.dtype).reshape(x.shape)


def _words(d):
    words = st.integers(0, 2**32 - 1)
    return [d.draw(hnp.arrays(np.uint32, s, elements=words)) for s in bshapes(d, 4)], {}


def _threefry_ref(k0, k1, x0, x1):
    import jax.numpy as jnp
    from jax.extend.random import threefry2x32_p
    return [np.asarray(y) for y in threefry2x32_p.bind(*jnp.broadcast_arrays(k0, k1, x0, x1))]


case("bitcast", _bitcast, lambda x, dtype: x.view(dtype))
# float32: Giles' polynomial as XLA and the decomposition compute it, within a few ulp
case("erfinv", _erfinv, _erfinv_ref, tol={"float32": (2e-6, 1e-7), "float64": (1e-9, 1e-12)})
case("threefry2x32", _words, _threefry_ref)
case("population_count", _counted, _population_count_ref)
# in the operands' own dtype (float64 arithmetic would step by a float64 ulp); exact but
# for subnormal results, which XLA flushes to zero
case("nextafter", _nextafter, lambda x, y: np.nextafter(x, y),
     tol={"float32": (0.0, 1.2e-38), "float64": (0.0, 2.3e-308)})
