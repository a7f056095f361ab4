"""References for complex numbers and the discrete Fourier transforms.

Unlike the other families these draw complex64/complex128 operands too (the complex
dtypes are what the ops are for), so the differential matrix carries complex arrays
across every target's call boundary. The references are `np.fft` in float64 /
complex128, cast back to the result's width.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from op_refs_common import FLOAT, arr, boolean, bshapes, case, integer, pick, shape

COMPLEX = ["complex64", "complex128"]
INEXACT = FLOAT + COMPLEX
WIDTH = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
         "complex128": "complex128"}
"""The complex dtype of a dtype's width."""
REAL = {"complex64": "float32", "complex128": "float64", "float32": "float32",
        "float64": "float64"}
NORMS = ["backward", "ortho", "forward"]
# FFT sums grow with the signal: absolute tolerances for float32's rounding of sums
FFT_TOL = {"float32": (1e-5, 1e-4), "complex64": (1e-5, 1e-4),
           "float64": (1e-10, 1e-11), "complex128": (1e-10, 1e-11)}


def carr(d, dtype: str, shp: tuple[int, ...], lo: float = -4, hi: float = 4) -> np.ndarray:
    """An array of `dtype` (real or complex: parts drawn independently) in [lo, hi]."""
    if dtype in FLOAT:
        return arr(d, dtype, shp, lo, hi)
    re, im = arr(d, "float64", shp, lo, hi), arr(d, "float64", shp, lo, hi)
    return np.asarray(re + 1j * im).astype(dtype)  # 0-d: an array, not a NumPy scalar


def wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


# ---- parts ----

def _unary(d):
    dt = pick(d, INEXACT)
    return [carr(d, dt, shape(d))], {}


case("real", _unary, lambda x: np.real(x).astype(REAL[x.dtype.name]))
case("imag", _unary, lambda x: np.imag(x).astype(REAL[x.dtype.name]))
case("conj", _unary, lambda x: np.conj(x))


def _complex(d):
    dt = pick(d, FLOAT)
    sx, sy = bshapes(d)
    return [arr(d, dt, sx), arr(d, dt, sy)], {}


def _complex_ref(re, im):
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), WIDTH[re.dtype.name])
    out.real, out.imag = re, im
    return out


case("complex", _complex, _complex_ref)


# ---- transforms ----

def _fftn(d):
    dt = pick(d, INEXACT)
    x = carr(d, dt, shape(d, 1, 3, 0, 5))
    rank = x.ndim
    axes = d.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [a - rank if boolean(d) else a for a in axes]
    lengths = [integer(d, 1, 6) for _ in axes]
    return [x], {"axes": axes, "lengths": lengths, "inverse": boolean(d),
                 "norm": pick(d, NORMS)}


def _fftn_ref(x, axes, lengths, inverse, norm):
    fn = np.fft.ifftn if inverse else np.fft.fftn
    return fn(wide(x), s=lengths, axes=axes, norm=norm).astype(WIDTH[x.dtype.name])


case("fftn", _fftn, _fftn_ref, tol=FFT_TOL)


def _one_axis(dtypes):
    def draw(d):
        x = carr(d, pick(d, dtypes), shape(d, 1, 3, 0, 5))
        return [x], {"axis": integer(d, -x.ndim, x.ndim - 1), "n": integer(d, 1, 9),
                     "norm": pick(d, NORMS)}
    return draw


case("rfft", _one_axis(FLOAT),
     lambda x, axis, n, norm: np.fft.rfft(wide(x), n, axis, norm).astype(WIDTH[x.dtype.name]),
     tol=FFT_TOL)
def _irfft_ref(x, axis, n, norm):
    # the spectrum cut or padded here: NumPy 2.4's irfft of an empty one reads
    # uninitialised memory
    bins, size = n // 2 + 1, x.shape[axis]
    spectrum = np.moveaxis(wide(x), axis, -1)[..., :bins]
    spectrum = np.pad(spectrum, [(0, 0)] * (x.ndim - 1) + [(0, max(bins - size, 0))])
    out = np.fft.irfft(spectrum, n, -1, norm)
    return np.moveaxis(out, -1, axis).astype(REAL[x.dtype.name])


case("irfft", _one_axis(INEXACT), _irfft_ref, tol=FFT_TOL)
