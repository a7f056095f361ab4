"""Inference rules of the windowed layers: convolutions, pooling, resizing.

Their attributes (strides, padding, dilations, kernel, groups) are checked in one place,
`_window_args`, so no target meets a stride of 0 or a negative padding.
"""

from __future__ import annotations

from typing import Any

from .infer import Rule, check, merge_dim, registrar
from .types import TensorSpec

WINDOW_RULES: dict[str, Rule] = {}
rule = registrar(WINDOW_RULES)


def _spatial(x: TensorSpec, layout: str) -> tuple[int | None, tuple[int | None, ...]]:
    check(x.rank >= 3, f"expected (batch, channels, *spatial) input, got rank {x.rank}")
    if layout == "channels_first":
        return x.shape[1], x.shape[2:]
    return x.shape[-1], x.shape[1:-1]


def _assemble(x: TensorSpec, layout: str, channels: int | None,
              spatial: list[int | None]) -> TensorSpec:
    if layout == "channels_first":
        return x.with_(shape=(x.shape[0], channels, *spatial))
    return x.with_(shape=(x.shape[0], *spatial, channels))


def _window_args(a: dict[str, Any], n: int, kernel_key: str | None = "kernel") -> None:
    for key, want in (("strides", n), ("padding", 2 * n), ("dilations", n)):
        if a.get(key) is not None:
            check(len(a[key]) == want, f"{key} needs {want} entries, got {len(a[key])}")
    if kernel_key:
        check(len(a[kernel_key]) == n, f"{kernel_key} needs {n} entries")
    for key, low in (("strides", 1), ("dilations", 1), (kernel_key, 1), ("padding", 0),
                     ("output_padding", 0), ("groups", 1)):
        value = a.get(key) if key else None
        values = value if isinstance(value, tuple) else () if value is None else (value,)
        check(all(v >= low for v in values), f"{key} {value} must be >= {low}")


def _out_dim(d: int | None, k: int | None, s: int, lo: int, hi: int, dil: int,
             ceil_mode: bool = False) -> int | None:
    if d is None or k is None:
        return None
    span = d + lo + hi - dil * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= d + lo:
        out -= 1
    # ceil mode keeps a last window that starts inside the input and runs past it, so
    # one wider than the whole padded dim still gives one result (torch's rule)
    check(out >= 1 and (ceil_mode or span >= 0), f"window of size {dil * (k - 1) + 1} "
          f"does not fit a padded dim of {d + lo + hi}")
    return out


@rule("conv")
def _conv(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, w, b = ins
    c, sp = _spatial(x, a["layout"])
    check(w.rank == x.rank, f"weight rank {w.rank} must equal input rank {x.rank}")
    if a["layout"] == "channels_first":
        out_c, in_c, ks = w.shape[0], w.shape[1], w.shape[2:]
    else:
        out_c, in_c, ks = w.shape[-1], w.shape[-2], w.shape[:-2]
    g = a["groups"]
    _window_args(a, len(sp), None)
    if None not in (c, in_c):
        check(c == in_c * g, f"input channels {c} != weight in-channels {in_c} x groups {g}")
    if out_c is not None:
        check(out_c % g == 0, f"out-channels {out_c} not divisible by groups {g}")
    if b is not None:
        check(b.rank == 1, "bias must be a vector")
        merge_dim(b.shape[0], out_c, "bias length differs from out-channels")
    out = [_out_dim(d, k, s, a["padding"][2 * i], a["padding"][2 * i + 1], dl)
           for i, (d, k, s, dl) in enumerate(zip(sp, ks, a["strides"], a["dilations"]))]
    return [_assemble(x, a["layout"], out_c, out)]


@rule("conv_transpose")
def _conv_transpose(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, w, b = ins
    c, sp = _spatial(x, a["layout"])
    check(w.rank == x.rank, f"weight rank {w.rank} must equal input rank {x.rank}")
    g = a["groups"]
    if a["layout"] == "channels_first":
        in_c, out_g, ks = w.shape[0], w.shape[1], w.shape[2:]
    else:
        in_c, out_g, ks = w.shape[-1], w.shape[-2], w.shape[:-2]
    merge_dim(c, in_c, "input channels differ from weight in-channels")
    _window_args(a, len(sp), None)
    check(len(a["output_padding"]) == len(sp), "output_padding needs one entry per spatial dim")
    out_c = None if out_g is None else out_g * g
    if b is not None:
        merge_dim(b.shape[0], out_c, "bias length differs from out-channels")
    out = []
    for i, (d, k) in enumerate(zip(sp, ks)):
        s, dil, op = a["strides"][i], a["dilations"][i], a["output_padding"][i]
        lo, hi = a["padding"][2 * i], a["padding"][2 * i + 1]
        check(op < max(s, dil), "output_padding must be smaller than stride or dilation")
        out.append(None if None in (d, k) else (d - 1) * s - lo - hi + dil * (k - 1) + op + 1)
    return [_assemble(x, a["layout"], out_c, out)]


@rule("pool")
def _pool(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    c, sp = _spatial(x, a["layout"])
    n = len(sp)
    _window_args(a, n)
    dil = a.get("dilations") or (1,) * n
    for i, k in enumerate(a["kernel"]):
        check(max(a["padding"][2 * i], a["padding"][2 * i + 1]) <= k // 2,
              "padding must be at most half the kernel size")
    out = [_out_dim(d, k, s, a["padding"][2 * i], a["padding"][2 * i + 1], dl, a["ceil_mode"])
           for i, (d, k, s, dl) in enumerate(zip(sp, a["kernel"], a["strides"], dil))]
    return [_assemble(x, a["layout"], c, out)]


@rule("adaptive_pool")
def _adaptive_pool(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    c, sp = _spatial(x, a["layout"])
    check(len(a["output_size"]) == len(sp), f"output_size needs {len(sp)} entries")
    check(all(o >= 1 for o in a["output_size"]), "output_size must be >= 1")
    return [_assemble(x, a["layout"], c, list(a["output_size"]))]


@rule("interpolate")
def _interpolate(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    c, sp = _spatial(x, a["layout"])
    check(len(a["size"]) == len(sp), f"size needs {len(sp)} entries")
    check(a["mode"] != "bilinear" or len(sp) == 2, "bilinear needs 2 spatial dims")
    check(all(o >= 1 for o in a["size"]), "size must be >= 1")
    return [_assemble(x, a["layout"], c, list(a["size"]))]
