"""One update for many small weights: an elementwise rule run once over the weights
joined end to end.

Adam's or SGD's update of one leaf is about a dozen elementwise ops; on a small leaf
(a bias, a 64x64 matrix) each op costs its framework's dispatch (1 to 10 us), not
arithmetic, so a model of many small leaves spends its optimizer step in Python. An
elementwise rule does the same arithmetic on every element wherever it sits, so
running it once over the concatenation of several leaves gives each of them its own
update bit for bit; torch.optim's `foreach` kernels and apex's multi-tensor apply
batch small tensors for the same reason. Leaves are joined when they share their
dtypes, their device and their update count (the bias correction's t) and are small
(`FUSED_BELOW`): on a large leaf the dispatch is noise, and joining would only copy.
Only where reshapes and slices are views (`JOINED_ON`).

The moments a joined update produces stay joined: each leaf keeps a `Part` of one
flat array, so the next step finds its group's moments in order and reuses that array
instead of joining them again. Whatever reads one leaf's moment (`Optimizer.state`,
the functional updates' results, a leaf updated alone) cuts its part out (`plain`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import ivy

FUSED_BELOW = 1 << 14
"""Leaves with fewer elements are joined. Joining copies the weights and gradients
once; below ~16K elements that copy is cheaper than the dozen dispatches it saves."""

JOINED_ON = frozenset({"numpy", "torch"})
"""The frameworks where joining pays: reshapes and slices are views there (free on
NumPy, ~1 us on torch). Eager JAX and TensorFlow dispatch a reshape, a slice or a
concat at the cost of 2 to 5 multiplies (1e4 float32, measured: JAX multiply 20 us,
reshape 50, slice 100; TF multiply 63, reshape 240, slice 260), so joining costs them
more than the dispatches it saves."""


@dataclass(frozen=True)
class Part:
    """One leaf's moment inside a group's flat moment: `flat[start:stop]`, shaped."""

    flat: Any
    start: int
    stop: int
    shape: tuple[int, ...]

    def value(self) -> Any:
        return ivy.reshape(self.flat[self.start:self.stop], self.shape)


def plain(moment: Any) -> Any:
    """A leaf's moment as an array of its own (a `Part` cut out of its group)."""
    return moment.value() if isinstance(moment, Part) else moment


def groups(flat_w: Mapping[str, Any], flat_g: Mapping[str, Any],
           counts: Mapping[str, int]) -> list[list[str]]:
    """The key chains to update together: groups of two or more small leaves with a
    gradient, the same dtypes, device and update count, in the weights' order."""
    found: dict[tuple[Any, ...], list[str]] = {}
    for kc, w in flat_w.items():
        g = flat_g[kc]
        if g is not None and math.prod(w.shape) < FUSED_BELOW:
            key = (w.dtype, g.dtype, getattr(w, "device", None), counts.get(kc, 0))
            found.setdefault(key, []).append(kc)
    return [kcs for kcs in found.values() if len(kcs) > 1]


def update(rule: Callable[..., tuple[Any, ...]], ws: list[Any], gs: list[Any], lr: Any,
           t: int, moments: list[tuple[Any, ...]]) -> tuple[list[Any], list[tuple[Any, ...]]]:
    """`rule` applied once to the joined leaves: each leaf's new weight and its new
    moments (as `Part`s). `moments` holds each leaf's moments (None: zeros)."""
    shapes = [tuple(w.shape) for w in ws]
    bounds = [0]
    for shape in shapes:
        bounds.append(bounds[-1] + math.prod(shape))
    flat_w = _joined(ws)
    flat_m = [_joined_moment([m[i] for m in moments], ws, flat_w, bounds)
              for i in range(len(moments[0]))]
    out = rule(flat_w, _joined(gs), lr, t, *flat_m)
    spans = list(zip(bounds, bounds[1:], shapes))
    new_ws = [ivy.reshape(out[0][a:b], shape) for a, b, shape in spans]
    parts = [tuple(Part(m, a, b, shape) for m in out[1:]) for a, b, shape in spans]
    return new_ws, parts


def _joined(xs: list[Any]) -> Any:
    return ivy.concat([ivy.reshape(x, (-1,)) for x in xs])


def _joined_moment(ms: list[Any], ws: list[Any], flat_w: Any, bounds: list[int]) -> Any:
    """The group's flat moment: zeros before its first update, the flat array of the
    last step where the parts are that array's, in order, else the parts joined."""
    if all(m is None for m in ms):
        return ivy.zeros_like(flat_w)
    first = ms[0]
    if isinstance(first, Part) and len(first.flat) == bounds[-1] and all(
            isinstance(m, Part) and m.flat is first.flat and (m.start, m.stop) == (a, b)
            for m, a, b in zip(ms, bounds, bounds[1:])):
        return first.flat
    return _joined([ivy.zeros_like(w) if m is None else plain(m) for m, w in zip(ms, ws)])
