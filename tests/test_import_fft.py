"""Complex numbers and FFTs through every importer, run on every target.

Each source framework (and the `ivy` facade, whose `ivy.fft` traces to the same ops)
writes the same five programs its own way: a spectrogram-like
power spectrum (`rfft` magnitude), a circular convolution (forward transforms, a
product, the inverse), a two-axis `fftn` in "ortho" scaling, complex arithmetic with
the parts, the conjugate and the magnitude, and an inverse real transform of odd
length. Each is imported once, optimized by the default passes and lowered to every
framework target, whose results must equal the source framework's own within 1e-5
(float32 / complex64). The ONNX target refuses them all (onnxruntime has no complex
tensors), naming the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import tensorflow as tf
import torch

import ivy
import ivy_ir
from ivy_ir.core.rules import LoweringError

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
rng = np.random.default_rng(17)
SIGNAL = rng.standard_normal((3, 16)).astype(np.float32)
KERNEL = rng.standard_normal((3, 16)).astype(np.float32)
SPECTRUM = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(np.complex64)


def _torch(*arrays: np.ndarray) -> tuple[torch.Tensor, ...]:
    return tuple(torch.as_tensor(a) for a in arrays)


def _tf(*arrays: np.ndarray) -> tuple[tf.Tensor, ...]:
    return tuple(tf.constant(a) for a in arrays)


Program = tuple[Callable[..., Any], tuple[Any, ...]]

PROGRAMS: dict[str, dict[str, Program]] = {
    "numpy": {
        "power_spectrum": (lambda x: np.abs(np.fft.rfft(x * np.hanning(16).astype(np.float32)))
                           ** 2, (SIGNAL,)),
        "convolution": (lambda x, k: np.fft.ifft(np.fft.fft(x) * np.fft.fft(k)).real,
                        (SIGNAL, KERNEL)),
        "fftn_ortho": (lambda z: np.fft.fftn(z, axes=(0, 1), norm="ortho"), (SPECTRUM,)),
        "arithmetic": (lambda z: np.abs(z * np.conj(z) + 1j * z.real) - z.imag * z.real,
                       (SPECTRUM,)),
        "irfft_odd": (lambda z: np.fft.irfft(z, n=9), (SPECTRUM,)),
    },
    "jax": {
        "power_spectrum": (lambda x: jnp.abs(jnp.fft.rfft(x * jnp.hanning(16))) ** 2, (SIGNAL,)),
        "convolution": (lambda x, k: jnp.fft.ifft(jnp.fft.fft(x) * jnp.fft.fft(k)).real,
                        (SIGNAL, KERNEL)),
        "fftn_ortho": (lambda z: jnp.fft.fftn(z, axes=(0, 1), norm="ortho"), (SPECTRUM,)),
        "arithmetic": (lambda z: jnp.abs(z * jnp.conj(z) + 1j * z.real) - z.imag * z.real
                       + jnp.abs(jax.lax.complex(z.imag, z.real)), (SPECTRUM,)),
        "irfft_odd": (lambda z: jnp.fft.irfft(z, n=9), (SPECTRUM,)),
    },
    "torch": {
        "power_spectrum": (lambda x: torch.fft.rfft(x * torch.hann_window(16)).abs() ** 2,
                           _torch(SIGNAL)),
        "convolution": (lambda x, k: torch.fft.ifft(torch.fft.fft(x) * torch.fft.fft(k)).real,
                        _torch(SIGNAL, KERNEL)),
        "fftn_ortho": (lambda z: torch.fft.fftn(z, dim=(0, 1), norm="ortho"), _torch(SPECTRUM)),
        "arithmetic": (lambda z: (z * z.conj() + 1j * z.real).abs() - z.imag * z.real
                       + torch.view_as_real(torch.complex(z.imag, z.real)).sum(-1),
                       _torch(SPECTRUM)),
        "irfft_odd": (lambda z: torch.fft.irfft(z, n=9), _torch(SPECTRUM)),
    },
    "ivy": {  # the facade's `ivy.fft` (the Array API extension), traced
        "power_spectrum": (lambda x: ivy.abs(ivy.fft.rfft(x * np.hanning(16).astype(np.float32)))
                           ** 2, (SIGNAL,)),
        "convolution": (lambda x, k: ivy.real(ivy.fft.ifft(ivy.fft.fft(x) * ivy.fft.fft(k))),
                        (SIGNAL, KERNEL)),
        "fftn_ortho": (lambda z: ivy.fft.fftn(z, axes=(0, 1), norm="ortho"), (SPECTRUM,)),
        "arithmetic": (lambda z: ivy.abs(z * ivy.conj(z) + 1j * ivy.real(z))
                       - ivy.imag(z) * ivy.real(z), (SPECTRUM,)),
        "irfft_odd": (lambda z: ivy.fft.irfft(z, n=9), (SPECTRUM,)),
    },
    "tensorflow": {
        "power_spectrum": (lambda x: tf.abs(tf.signal.rfft(x * tf.signal.hann_window(16)))
                           ** 2, _tf(SIGNAL)),
        "convolution": (lambda x, k: tf.math.real(tf.signal.ifft(
            tf.signal.fft(tf.complex(x, tf.zeros_like(x))) * tf.signal.fft(
                tf.complex(k, tf.zeros_like(k))))), _tf(SIGNAL, KERNEL)),
        "fftn_ortho": (lambda z: tf.signal.fft2d(z) / tf.complex(tf.sqrt(15.0), 0.0),
                       _tf(SPECTRUM)),
        "arithmetic": (lambda z: tf.abs(z * tf.math.conj(z) + tf.complex(
            tf.zeros_like(tf.math.real(z)), tf.math.real(z))) - tf.math.imag(z)
            * tf.math.real(z), _tf(SPECTRUM)),
        "irfft_odd": (lambda z: tf.signal.irfft(z, [9]), _tf(SPECTRUM)),
    },
}
CASES = [(source, name) for source, programs in PROGRAMS.items() for name in programs]


def _numpy(value: Any) -> np.ndarray:
    return np.asarray(value.detach().resolve_conj() if hasattr(value, "detach") else value)


@pytest.mark.parametrize("source, name", CASES)
def test_program_on_every_target(source: str, name: str) -> None:
    fn, args = PROGRAMS[source][name]
    want = _numpy(fn(*args))
    module = ivy_ir.trace(fn, args, source=source)
    inputs = [_numpy(a) for a in args]
    scale = max(1.0, float(np.abs(want).max()))
    for target in TARGETS:
        got = _numpy(ivy_ir.compile(module, target)(*inputs))  # the default passes too
        assert got.dtype == want.dtype and got.shape == want.shape, target
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale, err_msg=target)


def test_onnx_refuses_complex_values_naming_the_reason() -> None:
    fn, args = PROGRAMS["numpy"]["power_spectrum"]
    with pytest.raises(LoweringError, match=r"ivy\.rfft at .*onnxruntime has no complex"):
        ivy_ir.compile(fn, "onnx", args=args, source="numpy")


def test_numpy_part_views_write_through() -> None:
    """`z.real` is a view: writing it changes `z`, as in NumPy."""
    def fn(z: np.ndarray) -> np.ndarray:
        w = z.copy()
        w.real[:, 1:] = 0.0
        w.imag *= 2.0
        return w
    c = ivy_ir.compile(fn, "numpy", args=(SPECTRUM,), source="numpy")
    np.testing.assert_array_equal(c(SPECTRUM), fn(SPECTRUM.copy()))
