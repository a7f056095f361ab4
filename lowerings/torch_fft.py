"""PyTorch rules of complex numbers and the discrete Fourier transforms.

`torch.fft` takes the IR's attributes as they are (`s`/`n` cut or zero-pad, `norm`
names the same three scalings). Three gaps need a rule: torch's `conj` only marks a
lazy view (which NumPy cannot read) and `conj_physical` returns a real x itself, so it
stays out of the in-place methods of fused groups (None in `torch.py`'s NAMES); torch's
`imag` refuses real tensors (the IR's imaginary part of a real x is 0); and its FFT
kernels fail on a batch of zero signals (MKL: "Inconsistent configuration
parameters"), whose result is an empty tensor of known shape.
"""

from __future__ import annotations

from ivy_ir.core.rules import OpContext, Rule, literal
from ivy_ir.dialect.infer_fft import COMPLEX_OF
from ivy_ir.dialect.types import COMPLEX


def _transform(call: str) -> Rule:
    """`call`, or the empty result when some batch dimension is 0."""
    def rule(c: OpContext) -> str:
        if 0 in c.out.shape:
            return (f"{c.args['x']}.new_zeros({literal(c.out.shape)}, "
                    f"dtype={c.target.dtype(c.out.dtype)})")
        return call.format(**c.fields())
    return rule


def _fftn(c: OpContext) -> str:
    fn = "ifftn" if c.attrs["inverse"] else "fftn"
    return _transform(f"torch.fft.{fn}({{x}}, s={{lengths}}, dim={{axes}}, norm={{norm}})")(c)


def _imag(c: OpContext) -> str:
    """A real x is read as complex: its imaginary part is 0, and stays connected to x for
    autograd (a gradient of zeros, not a detached tensor)."""
    x, dtype = c.args["x"], c.in_types["x"].dtype
    if dtype in COMPLEX:
        return f"torch.imag({x})"
    # float16 and bfloat16 through complex64 (torch's complex32 has few kernels)
    zero = f"torch.imag({x}.to({c.target.dtype(COMPLEX_OF.get(dtype, 'complex64'))}))"
    return zero if dtype in COMPLEX_OF else f"{zero}.to({c.target.dtype(dtype)})"


FFT_RULES: dict[str, Rule] = {
    "conj": "torch.conj_physical({x})",
    "imag": _imag,
    "complex": "torch.complex({re}, {im})",
    "fftn": _fftn,
    "rfft": _transform("torch.fft.rfft({x}, n={n}, dim={axis}, norm={norm})"),
    "irfft": _transform("torch.fft.irfft({x}, n={n}, dim={axis}, norm={norm})"),
}
