"""Result-type rules of the shape-manipulation ops: reshape, permutes, inserting and
dropping axes, concatenating, stacking, splitting, rolling, tiling, repeating, padding
and slicing.

They live apart from `infer.py` (elementwise, creation, reductions) only to keep each
module small; they share its helpers.
"""

from __future__ import annotations

import math
from typing import Any

from .infer import (
    Rule,
    check,
    merge_dim,
    norm_axes,
    norm_axis,
    registrar,
    shown,
    size,
    static_or_none,
)
from .types import TensorSpec

SHAPE_RULES: dict[str, Rule] = {}
rule = registrar(SHAPE_RULES)


@rule("reshape")
def _reshape(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, shape = ins[0], list(static_or_none(a["shape"]))
    check(shape.count(-1) <= 1 and all(d is None or d >= -1 for d in shape),
          f"reshape target {shown(a['shape'])} may hold one -1 and no other negative dim")
    n = size(x.shape)
    if None in shape:  # a symbolic size: the element counts are checked when it runs
        n = None
    known = math.prod(d for d in shape if d not in (-1, None))
    if -1 in shape:
        check(n is None or (known != 0 and n % known == 0),
              f"cannot reshape {x.shape} to {shown(a['shape'])}")
        shape[shape.index(-1)] = n // known if n is not None else None
    if n is not None:
        check(n == math.prod(shape), f"cannot reshape {x.shape} ({n} elements) "
              f"to {shown(a['shape'])} ({math.prod(shape)} elements)")
    return [x.with_(shape=tuple(shape))]


@rule("permute_dims")
def _permute(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, axes = ins[0], a["axes"]
    check(sorted(ax % x.rank if x.rank else ax for ax in axes) == list(range(x.rank)),
          f"axes {axes} are not a permutation of the {x.rank} dims")
    return [x.with_(shape=tuple(x.shape[ax] for ax in axes))]


@rule("expand_dims")
def _expand_dims(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    axes = norm_axes(a["axis"], x.rank + len(a["axis"]))
    dims = iter(x.shape)
    return [x.with_(shape=tuple(1 if i in axes else next(dims)
                                for i in range(x.rank + len(axes))))]


@rule("squeeze")
def _squeeze(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    axes = norm_axes(a["axis"], x.rank)
    for ax in axes:
        check(x.shape[ax] in (1, None), f"cannot squeeze axis {ax} of size {x.shape[ax]}")
    return [x.with_(shape=tuple(d for i, d in enumerate(x.shape) if i not in axes))]


@rule("concat")
def _concat(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    xs = ins[0]
    check(len(xs) > 0, "needs at least one tensor")
    rank = xs[0].rank
    check(rank > 0 and all(x.rank == rank for x in xs), "needs tensors of one rank >= 1")
    ax = norm_axis(a["axis"], rank)
    shape = list(xs[0].shape)
    for x in xs[1:]:
        for i in range(rank):
            if i != ax:
                shape[i] = merge_dim(shape[i], x.shape[i], f"dim {i} differs")
    total = [x.shape[ax] for x in xs]
    shape[ax] = None if None in total else sum(total)  # type: ignore[arg-type]
    return [xs[0].with_(shape=tuple(shape))]


@rule("stack")
def _stack(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    xs = ins[0]
    check(len(xs) > 0, "needs at least one tensor")
    check(all(x.shape == xs[0].shape for x in xs), "needs tensors of one shape")
    shape = list(xs[0].shape)
    shape.insert(norm_axis(a["axis"], len(shape) + 1), len(xs))
    return [xs[0].with_(shape=tuple(shape))]


@rule("split")
def _split(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    ax = norm_axis(a["axis"], x.rank)
    sizes = a["sizes"]
    check(len(sizes) >= 1, "sizes must name at least one piece")
    check(all(s >= 0 for s in sizes), f"sizes {sizes} must be >= 0")
    check(x.shape[ax] in (None, sum(sizes)),
          f"sizes {sizes} do not add up to dim {ax} of size {x.shape[ax]}")
    return [x.with_(shape=x.shape[:ax] + (s,) + x.shape[ax + 1:]) for s in sizes]


@rule("roll")
def _roll(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """One shift per axis; without axes the flattened tensor rolls by a single shift."""
    want = 1 if a["axis"] is None else len(a["axis"])
    check(len(a["shift"]) == want, f"shift {a['shift']} needs {want} entries, one per "
          f"axis of {a['axis']}" if a["axis"] is not None else
          f"shift {a['shift']} needs 1 entry when the tensor rolls flattened (no axis)")
    return [ins[0]]


@rule("tile")
def _tile(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, reps = ins[0], tuple(a["reps"])
    check(all(r >= 0 for r in reps), f"reps {reps} must be >= 0")
    rank = max(x.rank, len(reps))
    shape = (1,) * (rank - x.rank) + x.shape
    reps = (1,) * (rank - len(reps)) + reps
    return [x.with_(shape=tuple(None if d is None else d * r for d, r in zip(shape, reps)))]


@rule("repeat")
def _repeat(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, r = ins[0], a["repeats"]
    check(r >= 0, f"repeats must be >= 0, got {r}")
    if a["axis"] is None:
        n = size(x.shape)
        return [x.with_(shape=(None if n is None else n * r,))]
    ax = norm_axis(a["axis"], x.rank)
    d = x.shape[ax]
    return [x.with_(shape=x.shape[:ax] + (None if d is None else d * r,) + x.shape[ax + 1:])]


@rule("pad")
def _pad(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, pw = ins[0], a["pad_width"]
    check(len(pw) == 2 * x.rank, f"pad_width needs 2 entries per dim ({2 * x.rank}), "
          f"got {len(pw)}")
    check(all(p >= 0 for p in pw), f"pad_width {pw} must be >= 0")
    shape = []
    for i, d in enumerate(x.shape):
        lo, hi = pw[2 * i], pw[2 * i + 1]
        if a["mode"] == "reflect" and d is not None:
            check(max(lo, hi) < max(d, 1), f"reflect padding {max(lo, hi)} must be smaller "
                  f"than dim {i} of size {d}")
        if a["mode"] != "constant" and d == 0:
            check(lo == hi == 0, f"cannot {a['mode']}-pad the empty dim {i}")
        shape.append(None if d is None else d + lo + hi)
    return [x.with_(shape=tuple(shape))]


@rule("slice")
def _slice(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    start, stop, step = a["start"], a["stop"], a["step"]
    check(len(start) == len(stop) == len(step) == x.rank,
          f"start/stop/step need one entry per dim ({x.rank})")
    check(all(s != 0 for s in step), "step must not be zero")
    check(all(s > 0 for s, e in zip(step, stop) if not isinstance(e, int)),
          "a symbolic stop needs a positive step")
    # a symbolic stop (`x[:, :seq]`): Python's clamping at run time, a dynamic dim here
    shape = tuple(None if d is None or not isinstance(e, int) else
                  len(range(*slice(b, e, s).indices(d)))
                  for d, b, e, s in zip(x.shape, start, stop, step))
    return [x.with_(shape=shape)]
