"""ONNX Resize (opsets 10 to 19) and Upsample onto registry ops.

Every Resize is separable: along each resized axis, output position y reads the input
at the source coordinate x = T(y) of its `coordinate_transformation_mode` and mixes the
inputs near x with the weights of its `mode` (nearest, linear, cubic, stretched by
`antialias` when shrinking). All of that is static, so the rule builds, per axis, the
(out, in) matrix of the map in float64 at import, following ONNX's formulas. Then:
- where the registry's `interpolate` computes the same maps (PyTorch's nearest or
  bilinear rules on the trailing spatial dims), it is one `interpolate`;
- a nearest map is a `take` of the chosen indices along each axis (exact, any dtype);
- otherwise a product with the constant matrix along each axis.
`tf_crop_and_resize` positions outside the input take `extrapolation_value`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .common import Rule, Unmapped, interpolate_weights, matrix_along


def _cubic(a: float) -> Callable[[np.ndarray], np.ndarray]:
    """Keys' cubic convolution kernel with coefficient `a` (support |t| < 2)."""
    def kernel(t: np.ndarray) -> np.ndarray:
        t = np.abs(t)
        near = ((a + 2) * t - (a + 3)) * t * t + 1
        far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
        return np.where(t <= 1, near, np.where(t < 2, far, 0.0))
    return kernel


def _triangle(t: np.ndarray) -> np.ndarray:
    return np.clip(1 - np.abs(t), 0, 1)


def _transform(mode: str, y: np.ndarray, d: int, o: int, scale: float,
               roi: tuple[float, float]) -> np.ndarray:
    """Source coordinates of output positions y: ONNX's coordinate_transformation_mode
    formulas (`scale * d`, the unrounded output length, where ONNX writes
    output_width)."""
    width = scale * d
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return np.full(o, -0.5) if width == 1 else (y + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = d / 2 * (1 - o / width)
        return offset + (y + 0.5) / scale - 0.5
    if mode == "align_corners":
        return np.zeros(o) if width == 1 else y * (d - 1) / (width - 1)
    if mode == "asymmetric":
        return y / scale
    if mode == "tf_half_pixel_for_nn":  # opset 11 only
        return (y + 0.5) / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if width == 1:
            return np.full(o, (end - start) * (d - 1) / 2 + start * (d - 1))
        return y * (end - start) * (d - 1) / (width - 1) + start * (d - 1)
    raise Unmapped(f"with coordinate_transformation_mode {mode!r}")


NEAREST: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "round_prefer_floor": lambda x: np.where(x - np.floor(x) <= 0.5, np.floor(x), np.ceil(x)),
    "round_prefer_ceil": lambda x: np.where(x - np.floor(x) < 0.5, np.floor(x), np.ceil(x)),
    "floor": np.floor,
    "ceil": np.ceil,
}
"""nearest_mode -> the source index a fractional coordinate rounds to."""


def _axis_map(x: np.ndarray, d: int, a: dict[str, Any], scale: float) -> np.ndarray:
    """The (o, d) weights of one axis for source coordinates x."""
    o, mode = len(x), a["mode"]
    w = np.zeros((o, d))
    rows = np.arange(o)
    if mode == "nearest":
        if a["nearest_mode"] not in NEAREST:
            raise Unmapped(f"with nearest_mode {a['nearest_mode']!r}")
        w[rows, np.clip(NEAREST[a["nearest_mode"]](x), 0, d - 1).astype(np.int64)] = 1.0
        return w
    kernel, support = (_triangle, 1) if mode == "linear" else (_cubic(a["cubic_coeff_a"]), 2)
    stretch = min(scale, 1.0) if a["antialias"] else 1.0
    reach = math.ceil(support / stretch) + 1
    taps = np.floor(x)[:, None] + np.arange(-reach, reach + 1)[None, :]
    weight = kernel(stretch * (taps - x[:, None]))
    if a["antialias"]:
        weight = weight / weight.sum(axis=1, keepdims=True)
    if a["exclude_outside"]:
        weight = np.where((taps < 0) | (taps >= d), 0.0, weight)
        total = weight.sum(axis=1, keepdims=True)
        weight = weight / np.where(total == 0, 1.0, total)
    np.add.at(w, (np.repeat(rows, taps.shape[1]), np.clip(taps, 0, d - 1).astype(np.int64)
                  .ravel()), weight.ravel())
    return w


def _plan(shape: tuple[int, ...], scales: Any, sizes: Any, axes: list[int],
          policy: str) -> tuple[list[int], list[float]]:
    """Output sizes and scales of every axis, ONNX's rules for sizes, scales and
    keep_aspect_ratio_policy."""
    outs, factors = list(shape), [1.0] * len(shape)
    if sizes is not None:
        want = {ax: int(s) for ax, s in zip(axes, sizes)}
        for ax, s in want.items():
            outs[ax], factors[ax] = s, s / shape[ax]
        if policy != "stretch":
            pick = {"not_larger": min, "not_smaller": max}.get(policy)
            if pick is None:
                raise Unmapped(f"with keep_aspect_ratio_policy {policy!r}")
            common = pick(factors[ax] for ax in want)
            for ax in want:
                outs[ax], factors[ax] = int(common * shape[ax] + 0.5), common
        return outs, factors
    for ax, s in zip(axes, scales):
        factors[ax] = float(s)
        outs[ax] = int(math.floor(float(s) * shape[ax]))
    return outs, factors


def _resize(ctx: Any, x: Any, roi: Any = None, scales: Any = None, sizes: Any = None, *,
            antialias: int = 0, axes: list[int] | None = None,
            coordinate_transformation_mode: str = "half_pixel",
            cubic_coeff_a: float = -0.75, exclude_outside: int = 0,
            extrapolation_value: float = 0.0, keep_aspect_ratio_policy: str = "stretch",
            mode: str = "nearest", nearest_mode: str = "round_prefer_floor") -> Any:
    spec = ctx.spec(x)
    if None in spec.shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    if mode not in ("nearest", "linear", "cubic"):
        raise Unmapped(f"with mode {mode!r}")
    if antialias and mode == "nearest":
        raise Unmapped("antialias with mode nearest (undefined)")
    axes = [ax % spec.rank for ax in axes] if axes else list(range(spec.rank))
    sizes = _given(ctx, sizes, "sizes")
    scales = _given(ctx, scales, "scales")
    if sizes is None and scales is None:
        raise Unmapped("without scales or sizes")
    outs, factors = _plan(spec.shape, scales, None if sizes is None else sizes.tolist(), axes,
                          keep_aspect_ratio_policy)
    box = _given(ctx, roi, "roi") if coordinate_transformation_mode == "tf_crop_and_resize" \
        else None
    if box is None:
        box = np.array([0.0] * len(axes) + [1.0] * len(axes))
    ends = {ax: (float(box[i]), float(box[len(axes) + i])) for i, ax in enumerate(axes)}
    attrs = {"mode": mode, "nearest_mode": nearest_mode, "cubic_coeff_a": cubic_coeff_a,
             "antialias": antialias, "exclude_outside": exclude_outside}
    maps = {}
    for ax in axes:
        d, o = spec.shape[ax], outs[ax]
        if o == d and factors[ax] == 1.0 and ends[ax] == (0.0, 1.0):
            continue
        src = _transform(coordinate_transformation_mode, np.arange(o, dtype=np.float64), d, o,
                         factors[ax], ends[ax])
        outside = (src < 0) | (src > d - 1) \
            if coordinate_transformation_mode == "tf_crop_and_resize" else None
        maps[ax] = (_axis_map(src, d, attrs, factors[ax]), outside)
    return _apply(ctx, x, spec, maps, mode, extrapolation_value)


def _given(ctx: Any, value: Any, what: str) -> np.ndarray | None:
    """A static optional input; an empty tensor stands for none (opsets 11 and 13)."""
    if value is None or 0 in ctx.spec(value).shape:
        return None
    array = np.asarray(ctx.static(value, what))
    return None if array.size == 0 else array


def _apply(ctx: Any, x: Any, spec: Any, maps: dict[int, tuple[np.ndarray, Any]], mode: str,
           fill: float) -> Any:
    """x mapped along each axis: one `interpolate` where it matches, else per axis."""
    if not maps:
        return x
    direct = _as_interpolate(spec, maps, mode)
    if direct is not None:
        return ctx.emit("interpolate", x, **direct)
    if mode != "nearest" and not spec.dtype.startswith(("float", "bfloat")):
        raise Unmapped(f"{mode} mode on {spec.dtype} input")
    y = x
    for ax, (w, outside) in maps.items():
        if mode == "nearest":
            y = ctx.emit("take", y, np.argmax(w, axis=1).astype(np.int64), axis=ax)
        else:
            y = matrix_along(ctx, y, w.astype(spec.dtype), ax, spec.rank)
        if outside is not None and outside.any():
            shape = [1] * spec.rank
            shape[ax] = len(outside)
            y = ctx.emit("where", outside.reshape(shape), ctx.const(fill, spec.dtype), y)
    return y


def _as_interpolate(spec: Any, maps: dict[int, tuple[np.ndarray, Any]],
                    mode: str) -> dict[str, Any] | None:
    """interpolate's attributes when it computes exactly these maps, else None."""
    if (spec.rank < 3 or min(maps) < 2 or any(m[1] is not None for m in maps.values())
            or not spec.dtype.startswith("float")):
        return None
    size = [maps[ax][0].shape[0] if ax in maps else spec.shape[ax]
            for ax in range(2, spec.rank)]
    choices = {"nearest": [("nearest", False)],
               "linear": [("bilinear", False), ("bilinear", True)] if spec.rank == 4 else []}
    for kind, align in choices.get(mode, []):
        if all(np.allclose(interpolate_weights(spec.shape[ax], w.shape[0], kind, align,
                                               np.float64), w, rtol=0, atol=1e-6)
               for ax, (w, _) in maps.items()):
            return {"size": size, "mode": kind, "align_corners": align}
    return None


def _upsample(ctx: Any, x: Any, scales: Any, *, mode: str = "nearest") -> Any:
    """Upsample is Resize with ONNX's opset 10 coordinates: asymmetric, floor."""
    return _resize(ctx, x, None, scales, None, mode={"bilinear": "linear"}.get(mode, mode),
                   coordinate_transformation_mode="asymmetric", nearest_mode="floor")


TABLE: dict[str, Rule] = {"Resize": _resize, "Upsample": _upsample}
"""ONNX op_type -> rule of the resampling operators."""


def _resize_10(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """Resize-10 took (X, scales) and sampled asymmetrically; its nearest rounding is
    floor when enlarging (as Upsample) and unspecified when shrinking."""
    scales = inputs[1]
    if isinstance(scales, np.ndarray) and attrs.get("mode", "nearest") == "nearest" \
            and (scales < 1).any():
        raise Unmapped("Resize-10 nearest downsampling (rounding unspecified)")
    attrs.update(coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    return [inputs[0], None, scales, None], attrs


def _scales_input(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """Upsample before 9 took its scales as an attribute."""
    return [inputs[0], np.asarray(attrs.pop("scales"), np.float32)], attrs


UPGRADES: dict[str, tuple[int, Any]] = {
    "Resize": (11, _resize_10),
    "Upsample": (9, _scales_input),
}
"""op_type -> (first opset of the form the rule takes, rewrite of older nodes)."""
