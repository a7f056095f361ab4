"""ONNX `DFT` and `STFT` -> ivy ops: discrete Fourier transforms as matrix products.

ONNX holds complex signals as real tensors with a trailing axis of 1 (real) or 2
(real, imaginary). Along the transformed axis, a length-n DFT is a product with the
cosine and sine matrices cos(2 pi j k / n), sin(2 pi j k / n), computed in float64 (known
at import, so they fold to constants) and applied in float64, then cast back, as
ONNX's definition (NumPy's FFT) does. Zero-padding to `dft_length` drops the matrix
rows past the signal; truncation drops the signal past n; `onesided` keeps the
frequencies k <= n / 2; the inverse of a one-sided spectrum is the real inverse FFT.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx
from .onnx_index import position


def _part(c: Ctx, x: Any, index: int) -> Any:
    """The real (0) or imaginary (1) part, in float64, without the trailing axis."""
    return c.cast(c.emit("take", x, np.asarray(index, np.int64), axis=-1), "float64")


def _dft(c: Ctx, x: Any, dft_length: Any = None, axis: Any = None, inverse: int = 0,
         onesided: int = 0) -> Any:
    shape = c.spec(x).shape
    rank = len(shape)
    a = -2 if axis is None else c.ints(axis, "axis")[0]
    a = a % rank
    if a == rank - 1 or shape[a] is None or shape[-1] not in (1, 2):
        raise Unmapped("a DFT axis other than a static signal axis")
    real_out = bool(inverse and onesided)
    if dft_length is not None:
        size = c.ints(dft_length, "dft_length")[0]
    else:
        size = 2 * (shape[a] - 1) if real_out else shape[a]
    used = min(size // 2 + 1 if real_out else size, shape[a])
    freqs = size // 2 + 1 if onesided and not inverse else size
    order = [d for d in range(rank - 1) if d != a] + [a]
    back = list(np.argsort(order))
    parts = []
    for i in range(shape[-1]):
        part = c.emit("permute_dims", _part(c, x, i), axes=order)
        stop = list(c.spec(part).shape)
        stop[-1] = used
        parts.append(c.emit("slice", part, start=[0] * (rank - 1), stop=stop,
                            step=[1] * (rank - 1)))
    j = c.emit("arange", start=0, stop=used, dtype="float64")
    k = c.emit("arange", start=0, stop=freqs, dtype="float64")
    angle = c.emit("multiply", c.emit("outer", j, k), c.const(2 * np.pi / size, "float64"))
    cos, sin = c.emit("cos", angle), c.emit("sin", angle)
    if real_out:
        return _real_inverse(c, parts, cos, sin, size, back, c.spec(x).dtype)
    sign = 1.0 if inverse else -1.0
    re = c.emit("matmul", parts[0], cos)
    im = c.emit("multiply", c.emit("matmul", parts[0], sin), c.const(sign, "float64"))
    if len(parts) == 2:
        # (a + ib)(cos + i sign sin) = a cos - sign b sin + i (b cos + sign a sin)
        re = c.emit("subtract", re, c.emit("multiply", c.emit("matmul", parts[1], sin),
                                           c.const(sign, "float64")))
        im = c.emit("add", im, c.emit("matmul", parts[1], cos))
    if inverse:
        re, im = (c.emit("divide", v, c.const(size, "float64")) for v in (re, im))
    out = c.emit("stack", [c.emit("permute_dims", v, axes=back) for v in (re, im)], axis=-1)
    return c.cast(out, c.spec(x).dtype)


def _real_inverse(c: Ctx, parts: list[Any], cos: Any, sin: Any, size: int,
                  back: list[int], dtype: str) -> Any:
    """The real signal of a one-sided spectrum (NumPy's irfft): each bin k between 0
    and n / 2 counts twice (it stands for its mirror n - k too), the imaginary parts of
    bins 0 and n / 2 drop out (their sines are 0)."""
    bins = c.spec(cos).shape[0]
    weights = np.asarray([1.0 if k == 0 or 2 * k == size else 2.0 for k in range(bins)])
    weights = c.emit("reshape", weights, shape=[bins, 1])
    out = c.emit("matmul", parts[0], c.emit("multiply", cos, weights))
    if len(parts) == 2:
        out = c.emit("subtract", out, c.emit("matmul", parts[1],
                                             c.emit("multiply", sin, weights)))
    out = c.emit("divide", out, c.const(size, "float64"))
    return c.cast(c.emit("expand_dims", c.emit("permute_dims", out, axes=back), axis=[-1]),
                  dtype)


def _dft_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                 ) -> tuple[list[Any], dict[str, Any]]:
    """DFT < 20 takes `axis` as an attribute (default 1); 20 as its third input."""
    axis = np.asarray([attrs.pop("axis", 1)], np.int64)
    inputs = inputs + [None] * (2 - len(inputs))
    return inputs[:2] + [axis], attrs


def _stft(c: Ctx, signal: Any, frame_step: Any, window: Any = None, frame_length: Any = None,
          onesided: int = 1) -> Any:
    """Frames of `frame_length` every `frame_step` samples (one `take` by a known index
    table), times the window, each transformed by `_dft` along the frame."""
    shape = c.spec(signal).shape
    if None in shape:
        raise Unmapped("STFT of a dynamic shape")
    step = c.ints(frame_step, "frame_step")[0]
    if frame_length is not None:
        length = c.ints(frame_length, "frame_length")[0]
    else:
        length = c.spec(window).shape[0] if window is not None else shape[-2]
    frames = 1 + (shape[-2] - length) // step
    starts = c.emit("multiply", position(c, [frames, length], 0, "int64"),
                    c.const(step, "int64"))
    index = c.emit("add", starts, position(c, [frames, length], 1, "int64"))
    framed = c.emit("take", signal, index, axis=1)
    if window is not None:
        weights = c.emit("reshape", c.cast(window, c.spec(signal).dtype),
                         shape=[1, 1, length, 1])
        framed = c.emit("multiply", framed, weights)
    return _dft(c, framed, None, np.asarray([2], np.int64), 0, onesided)


TABLE: dict[str, Rule] = {"DFT": _dft, "STFT": _stft}
"""ONNX op_type -> rule for spectral transforms."""

UPGRADES = {"DFT": (20, _dft_upgrade)}
"""op_type -> (since, upgrade): DFT's `axis` became an input in opset 20."""
