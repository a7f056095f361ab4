"""TF image resizing: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea
and ScaleAndTranslate (what `tf.image.resize` with every method, Keras `Resizing` and
`UpSampling2D` emit).

Every resize is separable: per spatial axis, output pixel j is a weighted sum of input
pixels, one (out, in) weight matrix per axis. The rule computes TF's matrices at import
time, following the index arithmetic and kernels of TF's own CPU kernels (float32 where
TF rounds in float32, the 1/1024 coefficient table of ResizeBicubic). Then:
- where the registry's `interpolate` (PyTorch's rules, the taps of
  `ivy_ir.core.resample`) applies the same matrices to float32 rounding on both axes,
  the resize is one `interpolate`: the target's native resize;
- a nearest map (one 1 per row) is a `take` of the chosen pixels along each axis, exact
  in any dtype;
- any other map is a product with its constant matrix along each axis.
So every static-size resize imports exactly; a size only known at run time is reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect.types import numpy_dtype

from .common import Rule, Unmapped, interpolate_weights, matrix_along, taps_matrix
from .tensorflow_ctx import Ctx

WEIGHT_ATOL = 1e-6
"""Largest difference between two weights that counts as the same weight: the two rules
compute positions in float32 in different orders, which moves a weight by a few units
of float32 rounding; a weight off by less changes no result beyond that rounding."""

FLOAT_RESULT = "float32"
"""ResizeBilinear, ResizeBicubic, ResizeArea and ScaleAndTranslate compute and return
float32 for every input dtype; nearest-neighbour keeps the input's dtype."""


def _lanczos(radius: float) -> Callable[[np.ndarray], np.ndarray]:
    def kernel(t: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = radius * np.sin(np.pi * t) * np.sin(np.pi * t / radius) / (np.pi * t) ** 2
        return np.where(t <= 1e-3, 1.0, np.where(t > radius, 0.0, w))
    return kernel


def _cubic(a: float) -> Callable[[np.ndarray], np.ndarray]:
    """Keys' cubic convolution kernel with coefficient a (support |t| < 2)."""
    def kernel(t: np.ndarray) -> np.ndarray:
        near = ((a + 2) * t - (a + 3)) * t * t + 1
        far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
        return np.where(t < 1, near, np.where(t < 2, far, 0.0))
    return kernel


def _mitchell(t: np.ndarray) -> np.ndarray:
    near = ((7 / 6 * t - 2) * t) * t + 8 / 9
    far = ((-7 / 18 * t + 2) * t - 10 / 3) * t + 16 / 9
    return np.where(t < 1, near, np.where(t < 2, far, 0.0))


KERNELS: dict[str, tuple[float, Callable[[np.ndarray], np.ndarray]]] = {
    "triangle": (1.0, lambda t: np.maximum(0.0, 1.0 - t)),
    "box": (1.0, lambda t: np.where(t < 0.5, 1.0, np.where(t == 0.5, 0.5, 0.0))),
    "gaussian": (1.5, lambda t: np.where(t < 1.5, np.exp(-2.0 * t * t), 0.0)),  # sigma 1/2
    "keyscubic": (2.0, _cubic(-0.5)),
    "mitchellcubic": (2.0, _mitchell),
    "lanczos1": (1.0, _lanczos(1.0)),
    "lanczos3": (3.0, _lanczos(3.0)),
    "lanczos5": (5.0, _lanczos(5.0)),
}
"""ScaleAndTranslate's kernel types: (radius, weight of |distance| in pixels)."""

CUBIC_TABLE = 1024
"""ResizeBicubic does not evaluate its kernel: it reads the weights from a table of
1024 + 1 fractional offsets, rounding each sampling position's fraction to the nearest
entry. The table's rounding moves weights by up to ~1e-3, so the rule reads the same
table."""

F32 = np.float32


def _scale(d: int, o: int, align_corners: bool) -> np.float32:
    """TF's input/output size ratio (aligned corners map the end pixels onto each other)."""
    if align_corners and o > 1:
        return F32(d - 1) / F32(o - 1)
    return F32(d) / F32(o)


def _tf_bilinear(d: int, o: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    scale = _scale(d, o, align_corners)
    dst = np.arange(o, dtype=F32)
    src = (dst + F32(0.5)) * scale - F32(0.5) if half_pixel else dst * scale
    low = np.floor(src)
    i0 = np.maximum(low, 0).astype(np.int64)  # below 0 and above d - 1 the edge repeats
    i1 = np.minimum(np.ceil(src), d - 1).astype(np.int64)
    return taps_matrix(i0, i1, src - low, d)


def _tf_nearest(d: int, o: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    scale = _scale(d, o, align_corners)
    dst = np.arange(o, dtype=F32)
    # half-pixel centers here are (j + 0.5) * scale, without TF's bilinear "- 0.5"
    src = ((dst + F32(0.5)) * scale if half_pixel else dst * scale).astype(np.float64)
    index = np.floor(src + 0.5) if align_corners else np.floor(src)  # roundf: src >= 0
    index = np.clip(index, 0, d - 1).astype(np.int64)
    return taps_matrix(index, index, None, d)


def _tf_bicubic(d: int, o: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """ResizeBicubic's weights: the four pixels around each sampling position, weighted
    from the coefficient table. With half-pixel centers (Keys' a = -0.5) taps outside
    the image drop out and the rest are renormalized; without (a = -0.75) an outside
    tap reads the edge pixel."""
    kernel = _cubic(-0.5 if half_pixel else -0.75)
    t = np.arange(CUBIC_TABLE + 1) / CUBIC_TABLE
    near, far = kernel(t).astype(F32), kernel(t + 1).astype(F32)
    scale = _scale(d, o, align_corners)
    dst = np.arange(o, dtype=F32)
    src = (dst + F32(0.5)) * scale - F32(0.5) if half_pixel else dst * scale
    base = np.floor(src)
    k = np.rint((src - base) * F32(CUBIC_TABLE)).astype(np.int64)
    taps = base.astype(np.int64)[:, None] + np.arange(-1, 3)
    weights = np.stack([far[k], near[k], near[CUBIC_TABLE - k], far[CUBIC_TABLE - k]],
                       axis=1).astype(np.float64)
    index = np.clip(taps, 0, d - 1)
    if half_pixel:
        weights = np.where(index == taps, weights, 0.0)
        total = weights.sum(axis=1, keepdims=True)
        weights = np.where(np.abs(total) >= 1000 * np.finfo(F32).tiny, weights / total,
                           weights)
    w = np.zeros((o, d))
    np.add.at(w, (np.repeat(np.arange(o), 4), index.ravel()), weights.ravel())
    return w


def _tf_area(d: int, o: int, align_corners: bool) -> np.ndarray:
    """ResizeArea's weights: output pixel j averages the input interval
    [j * scale, (j + 1) * scale), each input pixel weighted by its overlap with it."""
    scale = _scale(d, o, align_corners)
    w = np.zeros((o, d))
    for j in range(o):
        lo, hi = float(F32(j) * scale), float(F32(j + 1) * scale)
        for i in range(math.floor(lo), math.ceil(hi)):
            if i < lo:
                part = float(scale) if i + 1 > hi else i + 1 - lo
            else:
                part = hi - i if i + 1 > hi else 1.0
            w[j, min(max(i, 0), d - 1)] += part / float(scale)
    return w


def _tf_scale_and_translate(d: int, o: int, scale: float, shift: float, kernel: str,
                            antialias: bool) -> np.ndarray:
    """ScaleAndTranslate's weights: output pixel j samples at (j + 0.5 - shift) / scale
    in input pixel units; the kernel (widened by 1 / scale when antialiasing a
    downscale) weighs the input pixel centers around it, normalized to sum 1; a sample
    outside the input gives a zero row."""
    radius, kernel_fn = KERNELS[kernel]
    inv = F32(1.0) / F32(scale)
    widen = max(float(inv), 1.0) if antialias else 1.0
    w = np.zeros((o, d))
    for j in range(o):
        sample = float(F32(j + 0.5) * inv - inv * F32(shift))
        if sample < 0 or sample > d:
            continue
        first = min(max(math.ceil(sample - radius * widen - 0.5), 0), d - 1)
        last = min(max(math.floor(sample + radius * widen - 0.5), 0), d - 1)
        src = np.arange(first, last + 1)
        row = kernel_fn(np.abs(src + 0.5 - sample) / widen)
        total = row.sum()
        w[j, src] = row / total if abs(total) >= 1000 * np.finfo(F32).tiny else row
    return w


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= WEIGHT_ATOL))


def _one_hot(w: np.ndarray) -> bool:
    return bool(np.all((w == 0) | (w == 1)) and np.all(w.sum(axis=1) == 1))


CANDIDATES = (("bilinear", False), ("bilinear", True), ("nearest", False))
"""The `interpolate` forms a resize may be: (mode, align_corners)."""


def _resample(c: Ctx, x: Any, size: Any, tf_matrix: Callable[[int, int, int], np.ndarray],
              dtype: str) -> Any:
    """`x` (NHWC) resized to the static `size` by TF's weight matrices
    (`tf_matrix(axis, d, o)`), in `dtype`: an `interpolate` whose matrices are the same,
    else a `take` per axis for nearest maps, else a matrix product per axis."""
    out = c.ints(size, "size")
    if c.rank(x) != 4 or len(out) != 2:
        raise Unmapped("images of rank other than 4")
    spatial = c.spec(x).shape[1:3]
    if None in spatial:
        raise Unmapped("dynamic image size")
    want = [tf_matrix(a, d, o) for a, (d, o) in enumerate(zip(spatial, out))]
    if dtype.startswith(("float", "bfloat")):
        for mode, align in CANDIDATES:
            if all(_same(w, interpolate_weights(d, o, mode, align, numpy_dtype(dtype)))
                   for w, d, o in zip(want, spatial, out)):
                return c.emit("interpolate", c.cast(x, dtype), size=out, mode=mode,
                              align_corners=align, layout="channels_last")
    moving = [(ax, w) for ax, w in zip((1, 2), want)
              if w.shape[0] != w.shape[1] or not np.array_equal(w, np.eye(len(w)))]
    if all(_one_hot(w) for w in want):
        for ax, w in moving:
            x = c.emit("take", x, np.argmax(w, axis=1).astype(np.int64), axis=ax)
        return c.cast(x, dtype)
    x = c.cast(x, dtype)
    for ax, w in moving:
        x = matrix_along(c, x, w.astype(numpy_dtype(dtype)), ax, 4)
    return x


def _resize(matrix: Callable[[int, int, bool, bool], np.ndarray],
            keeps_dtype: bool = False) -> Rule:
    """A Resize* op: `matrix(d, o, align_corners, half_pixel_centers)` is TF's weight
    matrix per axis; the result is float32, or (nearest) the input's dtype."""
    def rule(c: Ctx, x: Any, size: Any, *, align_corners: bool = False,
             half_pixel_centers: bool = False, **_: Any) -> Any:
        return _resample(c, x, size,
                         lambda _, d, o: matrix(d, o, align_corners, half_pixel_centers),
                         c.spec(x).dtype if keeps_dtype else FLOAT_RESULT)
    return rule


def _scale_and_translate(c: Ctx, x: Any, size: Any, scale: Any, translation: Any, *,
                         kernel_type: str = "lanczos3", antialias: bool = True,
                         **_: Any) -> Any:
    """ScaleAndTranslate (tf.image.resize with antialias, or a kernel method)."""
    if kernel_type not in KERNELS:
        raise Unmapped(f"kernel_type '{kernel_type}'")
    scales = np.ravel(c.static(scale, "scale")).astype(F32)
    shifts = np.ravel(c.static(translation, "translation")).astype(F32)

    def tf_matrix(a: int, d: int, o: int) -> np.ndarray:
        return _tf_scale_and_translate(d, o, scales[a], shifts[a], kernel_type, antialias)
    return _resample(c, x, size, tf_matrix, FLOAT_RESULT)


IMAGE: dict[str, Rule] = {
    "ResizeBilinear": _resize(_tf_bilinear),
    "ResizeNearestNeighbor": _resize(_tf_nearest, keeps_dtype=True),
    "ResizeBicubic": _resize(_tf_bicubic),
    "ResizeArea": _resize(lambda d, o, align_corners, _: _tf_area(d, o, align_corners)),
    "ScaleAndTranslate": _scale_and_translate,
}
"""TF raw op -> rule: every image resize of static size, exactly."""
