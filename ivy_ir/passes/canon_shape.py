"""Rules for wrappers and shape/dtype ops: identities, round trips and compositions.

Three tables, each `op name -> rules`:
- `IDENTITY_RULES`: an op that returns its input unchanged (`astype` to the same dtype,
  `reshape` to the same shape, the identity permutation, a full-range slice, ...);
- `ROUND_TRIP_RULES`: a chain of such ops that comes back to where it started
  (`permute_dims` then its inverse, `reshape`s back to the original shape,
  `expand_dims` then `squeeze`, a widening `astype` and back);
- `COMPOSE_RULES`: the same chains folded into one op when they do not come back
  (`reshape` of `reshape`, `permute_dims` of `permute_dims`, lossless cast chains), a
  permute of unit dims as a reshape, slices and dropped unit dims moved above permutes,
  and permutes that keep the last dim moved below a `linear`.

`strip-wrappers` runs the first two, `canonicalize` all three (see canonicalize.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dialect import DTYPES, NONDIFF, IvyOp
from ..dialect.dtypes import COMPLEX, FLOATS
from ..dialect.types import INT64_MAX, INT64_MIN
from .canon_match import Emit, Replacement, Rule, producer, source, spec

RESHAPES = ("reshape", "squeeze", "expand_dims")
"""Ops that only relabel the row-major element order: any chain of them is one reshape."""

_WIDE = {"int16", "int32", "int64", "float32", "float64"}
_FLOATS = {"float16", "bfloat16", "float32", "float64"}
_SIGNED = {"int8", "int16", "int32", "int64"}
LOSSLESS: dict[str, frozenset[str]] = {
    "bool": frozenset(DTYPES) - {"float8_e8m0fnu"},  # which has no zero
    "uint8": frozenset(_WIDE | {"float16", "bfloat16", "uint16", "uint32", "uint64"}),
    "uint16": frozenset({"int32", "int64", "uint32", "uint64", "float32", "float64"}),
    "uint32": frozenset({"int64", "uint64", "float64"}),
    "uint64": frozenset(),
    "int8": frozenset(_WIDE | {"float16", "bfloat16"}),
    "int16": frozenset({"int32", "int64", "float32", "float64"}),
    "int32": frozenset({"int64", "float64"}),
    "int64": frozenset(),
    "float16": frozenset({"float32", "float64"}),
    "bfloat16": frozenset({"float32", "float64"}),
    "float32": frozenset({"float64"}),
    "float64": frozenset(),
    "complex64": frozenset({"complex128"}),
    "complex128": frozenset(),
    # the storage dtypes: their values in the wider floats (float8e8m0's 2**-127 needs
    # float32) and the 4- and 2-bit integers in the 8-bit ones and wider
    **dict.fromkeys(("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                     "float4_e2m1fn"), frozenset(_FLOATS)),
    "float8_e8m0fnu": frozenset({"float32", "float64"}),
    **dict.fromkeys(("int4", "int2"), frozenset(_SIGNED | _FLOATS)),
    **dict.fromkeys(("uint4", "uint2"), frozenset(_WIDE | _SIGNED | _FLOATS
                                                 | {"uint8", "uint16", "uint32", "uint64"})),
}
"""dtype -> the dtypes that hold each of its values exactly (8-bit ints fit the 8/11
significant bits of bfloat16/float16; int32 needs float64's 53). Real values through
complex are left out: casts from complex differ between frameworks (real part, or an
error)."""


def _full_slice(op: IvyOp, a: dict[str, Any]) -> bool:
    """Every dim sliced start-to-end with step 1 (unknown dims: only open bounds do)."""
    for d, b, e, s in zip(spec(source(op)).shape, a["start"], a["stop"], a["step"]):
        if d is None or not isinstance(e, int):
            if not (s == 1 and b in (0, INT64_MIN) and e == INT64_MAX):
                return False
        elif range(*slice(b, e, s).indices(d)) != range(d):
            return False
    return True


def _identity_perm(op: IvyOp, a: dict[str, Any]) -> bool:
    rank = spec(source(op)).rank
    return list(a["axes"]) == list(range(rank))


def _no_gradient(op: IvyOp, a: dict[str, Any]) -> bool:
    """Whether no gradient reaches `op`'s operand anyway: integers and bools, or a value
    made by an op with none (a constant, `floor`, another `stop_gradient`)."""
    x = source(op)
    maker = producer(x)
    return spec(x).dtype not in FLOATS | COMPLEX or (maker is not None
                                                     and maker.SPEC.name in NONDIFF)


IDENTITY_WHEN: dict[str, Callable[[IvyOp, dict[str, Any]], bool]] = {
    # reshape-like ops of an unchanged type keep the element order, so they are the
    # identity even with dynamic dims (a reshape result is static; squeeze and
    # expand_dims only drop or add dims of size 1)
    "astype": lambda op, a: True,                       # astype(x, dtype(x)) -> x
    "reshape": lambda op, a: True,                      # reshape(x, shape(x)) -> x
    "squeeze": lambda op, a: True,                      # squeeze(x, axis=[]) -> x
    "expand_dims": lambda op, a: True,                  # expand_dims(x, axis=[]) -> x
    "broadcast_to": lambda op, a: True,                 # broadcast_to(x, shape(x)) -> x
    "permute_dims": _identity_perm,                     # permute(x, [0..n)) -> x
    "slice": _full_slice,                               # x[:, ::1] -> x
    "tile": lambda op, a: set(a["reps"]) <= {1},        # tile(x, [1, 1]) -> x
    "pad": lambda op, a: set(a["pad_width"]) <= {0},    # pad(x, 0) -> x
    "roll": lambda op, a: set(a["shift"]) <= {0},       # roll(x, 0) -> x
    "flip": lambda op, a: a["axis"] == (),              # flip(x, axis=[]) -> x
    "clip": lambda op, a: a["min"] is None and a["max"] is None,  # clip(x) -> x
    "concat": lambda op, a: len(op.operands) == 1,      # concat([x]) -> x
    # repeat(x, 1) -> x; without an axis it flattens, the identity only up to rank 1
    "repeat": lambda op, a: a["repeats"] == 1 and (a["axis"] is not None
                                                   or spec(source(op)).rank <= 1),
    "split": lambda op, a: len(op.results) == 1,        # split(x, [n]) -> [x]
    "stop_gradient": _no_gradient,                      # stop_gradient(floor(x)) -> floor(x)
}


def _identity(op: IvyOp, emit: Emit) -> Replacement:
    x = source(op)
    if all(r.type == x.type for r in op.results) and \
            IDENTITY_WHEN[op.SPEC.name](op, op.attr_values()):
        return [x] * len(op.results)
    return None


def _reshape_chain(compose: bool) -> Rule:
    def rule(op: IvyOp, emit: Emit) -> Replacement:
        """f(g(x)) for relabellings f, g: x when the chain comes back to x's type
        (anywhere up the chain), else (compose) one reshape of g's input."""
        out = op.results[0]
        inner = producer(source(op), *RESHAPES)
        node, back = inner, None
        while node is not None:
            if source(node).type == out.type:
                back = source(node)
            node = producer(source(node), *RESHAPES)
        if back is not None:
            return back
        shape = spec(out).shape
        if not compose or inner is None or None in shape:
            return None
        return emit("reshape", source(inner), shape=shape)
    return rule


def _axes(op: IvyOp) -> list[int]:
    return list(op.attr_values()["axes"])


def _permute_chain(compose: bool) -> Rule:
    def rule(op: IvyOp, emit: Emit) -> Replacement:
        """permute(permute(y, p), q) = permute(y, [p[i] for i in q]): y where that is
        the identity (anywhere up the chain), else (compose) one permute."""
        inner = producer(source(op), "permute_dims")
        if inner is None:
            return None
        axes, node = _axes(op), inner
        while node is not None:
            p = _axes(node)
            axes = [p[i] for i in axes]
            if axes == sorted(axes):
                return source(node)
            node = producer(source(node), "permute_dims")
        p = _axes(inner)
        return emit("permute_dims", source(inner), axes=[p[i] for i in _axes(op)]) \
            if compose else None
    return rule


def _unit_permute(op: IvyOp, emit: Emit) -> Replacement:
    """A permute that moves only dims of size 1 keeps the element order: a reshape
    (`(1, 128, 8, 1, 64)` by `(3, 1, 2, 0, 4)`), which reshape chains then fold."""
    dims = spec(source(op)).shape
    moved = [a for a in _axes(op) if dims[a] != 1]
    shape = spec(op.results[0]).shape
    if moved != sorted(moved) or None in shape:
        return None
    return emit("reshape", source(op), shape=shape)


def _unit_dims_before_permute(op: IvyOp, emit: Emit) -> Replacement:
    """reshape(permute(x, p)) that only drops the dims of size 1 -> permute(x without
    them, p on the others): the dims go before the permute, where reshape chains and
    the slice rule below can reach past it."""
    inner = producer(source(op), "permute_dims")
    if inner is None or not inner.results[0].has_one_use():
        return None
    dims, p = spec(source(inner)).shape, _axes(inner)
    keep = [i for i, d in enumerate(dims) if d != 1]
    if None in dims or len(keep) == len(dims) \
            or list(spec(op.results[0]).shape) != [dims[a] for a in p if dims[a] != 1]:
        return None
    squeezed = emit("reshape", source(inner), shape=[dims[i] for i in keep])
    return emit("permute_dims", squeezed, axes=[keep.index(a) for a in p if dims[a] != 1])


def _slice_of_permute(op: IvyOp, emit: Emit) -> Replacement:
    """slice(permute(y, p)) -> permute(slice(y), p) where only slices read the permute,
    the bounds moved to y's dims: each permute then runs on its smaller part, and once
    a slice takes a moved dim down to size 1 the permute may become a reshape (torch's
    `nn.MultiheadAttention` picks q, k and v this way out of a (3, ...) transpose)."""
    inner = producer(source(op), "permute_dims")
    if inner is None or not all(isinstance(u.operation, IvyOp)
                                and u.operation.SPEC.name == "slice"
                                for u in inner.results[0].uses):
        return None  # another user would keep the whole permute anyway
    p, a = _axes(inner), op.attr_values()
    moved = {name: [0] * len(p) for name in ("start", "stop", "step")}
    for i, axis in enumerate(p):
        for name, values in moved.items():
            values[axis] = a[name][i]
    return emit("permute_dims", emit("slice", source(inner), **moved), axes=p)


def _linear_of_permute(op: IvyOp, emit: Emit) -> Replacement:
    """linear(permute(x, p)) -> permute(linear(x), p) where p keeps the last dim and the
    permute has no other reader: the product reads x as it lies (torch's
    `nn.MultiheadAttention` turns a batch-first input seq-first before its in-projection,
    and a product of the transposed view copies it first)."""
    inner = producer(source(op), "permute_dims")
    if inner is None or not inner.results[0].has_one_use():
        return None
    p = _axes(inner)
    if p[-1] != len(p) - 1:
        return None
    return emit("permute_dims", emit("linear", source(inner), *op.operands[1:]), axes=p)


def _astype_chain(compose: bool) -> Rule:
    def rule(op: IvyOp, emit: Emit) -> Replacement:
        """astype(astype(x, m), d) = astype(x, d) when m holds every value of x's dtype
        exactly (a cast depends only on the value): x when d is x's dtype."""
        inner = producer(source(op), "astype")
        if inner is None:
            return None
        x, out = source(inner), op.results[0]
        if spec(inner.results[0]).dtype not in LOSSLESS[spec(x).dtype]:
            return None
        if x.type == out.type:
            return x
        return emit("astype", x, dtype=spec(out).dtype) if compose else None
    return rule


def _broadcast_chain(op: IvyOp, emit: Emit) -> Replacement:
    """broadcast_to(broadcast_to(x, s), t) -> broadcast_to(x, t) (broadcasting composes)."""
    inner = producer(source(op), "broadcast_to")
    if inner is None:
        return None
    return emit("broadcast_to", source(inner), shape=op.attr_values()["shape"])


def _stack_one(op: IvyOp, emit: Emit) -> Replacement:
    """stack([x], axis) -> expand_dims(x, [axis])."""
    if len(op.operands) != 1:
        return None
    return emit("expand_dims", op.operands[0], axis=[op.attr_values()["axis"]])


IDENTITY_RULES: dict[str, tuple[Rule, ...]] = {name: (_identity,) for name in IDENTITY_WHEN}
ROUND_TRIP_RULES: dict[str, tuple[Rule, ...]] = {
    **{name: (_reshape_chain(compose=False),) for name in RESHAPES},
    "permute_dims": (_permute_chain(compose=False),),
    "astype": (_astype_chain(compose=False),),
}
COMPOSE_RULES: dict[str, tuple[Rule, ...]] = {
    **{name: (_reshape_chain(compose=True),) for name in RESHAPES},
    "reshape": (_reshape_chain(compose=True), _unit_dims_before_permute),
    "permute_dims": (_permute_chain(compose=True), _unit_permute),
    "slice": (_slice_of_permute,),
    "linear": (_linear_of_permute,),
    "astype": (_astype_chain(compose=True),),
    "broadcast_to": (_broadcast_chain,),
    "stack": (_stack_one,),
}
