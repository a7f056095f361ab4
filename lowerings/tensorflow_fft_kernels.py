"""TensorFlow helpers of the discrete Fourier transforms.

`tf.signal`'s transforms run along the innermost axis only (`fft2d`/`fft3d`: the
innermost two or three), leave the forward transform unscaled and divide the inverse
by n, and take no real input to `fft`. These helpers move the transformed axis last
and back, cut or pad the signal, cast a real one to complex, and rescale to the IR's
`norm`. They use only `tf`, `np` and each other (the emitter copies them into the
generated code); shapes are static, so the index math is Python at trace time.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = ["fft_axes", "fft_scale", "irfft_axis", "resized", "rfft_axis", "transform_along"]


def resized(x, axis, n):
    # x cut or zero-padded to n along axis, as np.fft reads its n
    size = x.shape[axis]
    if size > n:
        return x[(slice(None),) * axis + (slice(0, n),)]
    if size < n:
        pads = [[0, 0]] * len(x.shape)
        pads[axis] = [0, n - size]
        return tf.pad(x, pads)
    return x


def transform_along(fn, x, axis):
    # fn (a transform of the innermost axis) applied along `axis`
    rank = len(x.shape)
    if axis == rank - 1:
        return fn(x)
    perm = [i for i in range(rank) if i != axis] + [axis]
    back = [int(i) for i in np.argsort(perm)]
    return tf.transpose(fn(tf.transpose(x, perm)), back)


def fft_scale(x, n, inverse, norm):
    # from TF's scaling (forward 1, inverse 1/n) to the one `norm` names
    factor = {"backward": 1.0, "ortho": n ** 0.5 if inverse else n ** -0.5,
              "forward": float(n) if inverse else 1.0 / n}[norm]
    return x if factor == 1.0 else x * tf.constant(factor, x.dtype)  # tf.cast: via float32


def fft_axes(x, axes, lengths, inverse, norm, dtype):
    x = tf.cast(x, dtype)  # a real signal as complex
    fn = tf.signal.ifft if inverse else tf.signal.fft
    for axis, n in zip(axes, lengths):
        x = transform_along(fn, resized(x, axis, n), axis)
    return fft_scale(x, int(np.prod(lengths)), inverse, norm)


def rfft_axis(x, axis, n, norm):
    # cut or padded here: tf.signal.rfft pads an empty signal with uninitialised memory
    out = transform_along(lambda v: tf.signal.rfft(v, [n]), resized(x, axis, n), axis)
    return fft_scale(out, n, False, norm)


def irfft_axis(x, axis, n, norm, dtype):
    # the spectrum cut or padded to n // 2 + 1 bins here, as for rfft_axis
    spectrum = resized(tf.cast(x, dtype), axis, n // 2 + 1)
    return fft_scale(transform_along(lambda v: tf.signal.irfft(v, [n]), spectrum, axis),
                     n, True, norm)
