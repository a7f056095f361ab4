"""The discrete Fourier transforms as NumPy spells them, for NumPy and `jax.numpy`.

`np.fft` and `jnp.fft` take the IR's attributes as they are (`s`/`n` cut or zero-pad,
`norm` names the same three scalings) and keep the input's width (float32 in,
complex64 out), so one rule per op serves both tables through `{ns}`.
"""

from __future__ import annotations

from .rules import OpContext, Rule


def _fftn(c: OpContext) -> str:
    fn = "ifftn" if c.attrs["inverse"] else "fftn"
    return (f"{c.ns}.fft.{fn}({c.args['x']}, s={c.lit('lengths')}, axes={c.lit('axes')}, "
            f"norm={c.lit('norm')})")


def _irfft(c: OpContext) -> str:
    if c.in_types["x"].shape[c.attrs["axis"]] == 0:
        # an empty spectrum pads to zeros, whose signal is zeros; NumPy 2.4's irfft reads
        # uninitialised memory for it instead
        return "{ns}.zeros({out_shape}, dtype={out_dtype})".format(**c.fields())
    return "{ns}.fft.irfft({x}, n={n}, axis={axis}, norm={norm})".format(**c.fields())


FFT_API_RULES: dict[str, Rule] = {
    "fftn": _fftn,
    "rfft": "{ns}.fft.rfft({x}, n={n}, axis={axis}, norm={norm})",
    "irfft": _irfft,
}
