"""TensorFlow rules of complex numbers and the discrete Fourier transforms.

`tf.math.real`/`imag`/`conj` take real tensors too (the registry's names, derived), and
`tf.complex` broadcasts; the transforms go through `tensorflow_fft_kernels.py`, since
`tf.signal` transforms only innermost axes, in its own scaling. TF 2.21's CPU kernels
include the float64 `rfft`/`irfft` (complex128), so no dtype needs a gap.
"""

from __future__ import annotations

from ivy_ir.core.rules import OpContext, Rule
from ivy_ir.dialect.infer_fft import COMPLEX_OF


def _complex_dtype(c: OpContext) -> str:
    """The complex dtype x is transformed in (a real x is cast to it)."""
    dtype = c.in_types["x"].dtype
    return c.target.dtype(COMPLEX_OF.get(dtype, dtype))


FFT_RULES: dict[str, Rule] = {
    "complex": "tf.complex({re}, {im})",
    "fftn": lambda c: "fft_axes({x}, {axes}, {lengths}, {inverse}, {norm}, {cplx})".format(
        **c.fields(), cplx=_complex_dtype(c)),
    "rfft": "rfft_axis({x}, {axis}, {n}, {norm})",
    "irfft": lambda c: "irfft_axis({x}, {axis}, {n}, {norm}, {cplx})".format(
        **c.fields(), cplx=_complex_dtype(c)),
}
