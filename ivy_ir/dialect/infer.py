"""Result-type inference rules, named by the spec's `infer=` tag.

A rule takes the operand types (None for an absent optional operand, a list for a
variadic one) and the attribute values (defaults filled in) and returns the result
types, or raises `InferError` saying what is wrong in the user's terms. The same rule
computes result types at build time and checks them in the verifier, so the two can
never disagree. Rules for linear algebra, indexing and nn layers live in
`infer_nn.py`, those of windowed layers in `infer_window.py`, those of bit-level ops
and samplers in `infer_bits.py`, those of complex numbers and FFTs in `infer_fft.py`;
`checks.INFER_RULES` joins the tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .symbolic import SymDim
from .types import FLOATS, REAL_OF, TensorSpec

INT_BOUNDS = {f"{s}int{b}": ((0, 2**b - 1) if s else (-(2**(b - 1)), 2**(b - 1) - 1))
              for s in ("", "u") for b in (8, 16, 32, 64)}
"""Each integer dtype's (min, max)."""

Shape = tuple[int | None, ...]
Rule = Callable[[list[Any], dict[str, Any]], list[TensorSpec]]
RULES: dict[str, Rule] = {}
"""The rules of this module; `infer_nn.NN_RULES` and `infer_window.WINDOW_RULES` hold the
others, and `ops.INFER_RULES` all of them."""


class InferError(ValueError):
    """Operand types or attributes that no result type fits."""


def registrar(table: dict[str, Rule]) -> Callable[[str], Callable[[Rule], Rule]]:
    """A decorator `@rule(name)` that enters a rule into `table`."""
    def rule(name: str) -> Callable[[Rule], Rule]:
        def register(fn: Rule) -> Rule:
            table[name] = fn
            return fn
        return register
    return rule


rule = registrar(RULES)


def check(cond: bool, message: str) -> None:
    if not cond:
        raise InferError(message)


def norm_axis(axis: int, rank: int, what: str = "axis") -> int:
    check(-rank <= axis < rank, f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


def norm_axes(axes: Sequence[int] | None, rank: int, what: str = "axis") -> tuple[int, ...]:
    if axes is None:
        return tuple(range(rank))
    out = tuple(sorted(norm_axis(a, rank, what) for a in axes))
    check(len(set(out)) == len(out), f"{what} {tuple(axes)} repeats a dimension")
    return out


def merge_dim(a: int | None, b: int | None, what: str) -> int | None:
    if a is None or b is None:
        return b if a is None else a
    check(a == b, f"{what}: {a} != {b}")
    return a


def broadcast(*shapes: Shape) -> Shape:
    rank = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        known = {d for d in dims if d is not None and d != 1}
        check(len(known) <= 1, "shapes " + " and ".join(str(tuple(s)) for s in shapes)
              + " do not broadcast")
        if known:
            out.append(known.pop())
        else:
            out.append(None if None in dims else 1)
    return tuple(out)


def reduce_shape(shape: Shape, axes: tuple[int, ...], keepdims: bool) -> Shape:
    return tuple(1 if i in axes else d for i, d in enumerate(shape)
                 if keepdims or i not in axes)


def size(shape: Shape) -> int | None:
    return None if None in shape else math.prod(shape)  # type: ignore[arg-type]


# ---- elementwise and creation ----

@rule("same")
def _same(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [ins[0]]


@rule("abs")
def _abs(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """|z| of a complex z is real: complex64 gives float32, complex128 float64."""
    return [ins[0].with_(dtype=REAL_OF.get(ins[0].dtype, ins[0].dtype))]


@rule("predicate")
def _predicate(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [ins[0].with_(dtype="bool")]


@rule("astype")
def _astype(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [ins[0].with_(dtype=a["dtype"])]


@rule("binary")
def _binary(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [TensorSpec(broadcast(ins[0].shape, ins[1].shape), ins[0].dtype)]


@rule("compare")
def _compare(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [TensorSpec(broadcast(ins[0].shape, ins[1].shape), "bool")]


@rule("where")
def _where(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [TensorSpec(broadcast(*(t.shape for t in ins)), ins[1].dtype)]


@rule("constant")
def _constant(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [TensorSpec.of(a["value"])]


def _static_or_none(shape: Any) -> tuple[int | None, ...]:
    """A shape attribute as a type's dims: a symbolic size is a dynamic dim."""
    return tuple(d if isinstance(d, int) else None for d in shape)


def shape_dims(shape: Any) -> tuple[int | None, ...]:
    """A `shape` attribute as a type's dims (a symbolic size: `?`), none negative."""
    dims = _static_or_none(shape)
    check(all(d is None or d >= 0 for d in dims), f"shape {_shown(shape)} has a negative "
          "dimension")
    return dims


def _shown(shape: Any) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


@rule("shaped")
def _shaped(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    dims = shape_dims(a["shape"])
    _check_fill(a, a["dtype"])
    return [TensorSpec(dims, a["dtype"])]


@rule("arange")
def _arange(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    check(a["step"] != 0, "step must not be zero")
    if isinstance(a["start"], SymDim) or isinstance(a["stop"], SymDim):
        # `arange(seq)`: its length is known when it runs (empty where the stop lies
        # against the step, as NumPy's, on every target)
        return [TensorSpec((None,), a["dtype"])]
    # NumPy gives an empty range here, torch and TensorFlow refuse it
    check((a["stop"] - a["start"]) * a["step"] >= 0, f"stop {a['stop']} lies against the "
          f"direction of step {a['step']} from start {a['start']}")
    n = max(0, math.ceil((a["stop"] - a["start"]) / a["step"]))
    return [TensorSpec((n,), a["dtype"])]


@rule("linspace")
def _linspace(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    check(a["num"] >= 0, f"num must be >= 0, got {a['num']}")
    return [TensorSpec((a["num"],), a["dtype"])]


@rule("eye")
def _eye(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    cols = a["n_rows"] if a["n_cols"] is None else a["n_cols"]
    check(a["n_rows"] >= 0 and cols >= 0, "eye needs non-negative sizes")
    return [TensorSpec((a["n_rows"], cols), a["dtype"])]


@rule("like")
def _like(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    out = ins[0].with_(dtype=a["dtype"] or ins[0].dtype)
    _check_fill(a, out.dtype)
    return [out]


_FINITE_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
               "float32": 3.4028234663852886e38, "float64": math.inf}
"""The largest finite value of each float dtype (a finite fill beyond it is refused)."""


def _check_fill(a: dict[str, Any], dtype: str) -> None:
    """A `fill_value` the result dtype cannot hold: NumPy would give inf or wrap where
    torch refuses, so the program has no one meaning."""
    value = a.get("fill_value")
    if value is None or not math.isfinite(value):
        check(value is None or dtype in FLOATS or dtype in REAL_OF,
              f"fill_value {value} is not a finite number, which {dtype} cannot hold")
        return
    limit = _FINITE_MAX.get(REAL_OF.get(dtype, dtype))
    if limit is not None:
        check(abs(value) <= limit, f"fill_value {value} overflows {dtype}")
    elif dtype in INT_BOUNDS:
        low, high = INT_BOUNDS[dtype]
        check(low <= value <= high, f"fill_value {value} is out of range for {dtype}")


@rule("one_hot")
def _one_hot(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    shape = list(ins[0].shape)
    check(a["depth"] >= 0, "depth must be >= 0")
    shape.insert(norm_axis(a["axis"], len(shape) + 1), a["depth"])
    return [TensorSpec(tuple(shape), a["dtype"])]


@rule("matrix_same")
def _matrix_same(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    check(ins[0].rank >= 2, f"expected a matrix (rank >= 2), got rank {ins[0].rank}")
    return [ins[0]]


@rule("broadcast_to")
def _broadcast_to(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    target = shape_dims(a["shape"])
    src = ins[0].shape
    check(len(src) <= len(target), f"cannot broadcast shape {src} to fewer dims "
          f"{_shown(a['shape'])}")
    for s, t in zip(reversed(src), reversed(target)):
        check(s in (1, t, None) or t is None, f"cannot broadcast shape {src} to "
              f"{_shown(a['shape'])}")
    return [ins[0].with_(shape=target)]


# ---- reductions and scans ----

@rule("reduce")
def _reduce(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    axis = a["axis"]
    return [x.with_(shape=reduce_shape(x.shape, norm_axes(axis, x.rank), a["keepdims"]))]


@rule("reduce_bool")
def _reduce_bool(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [_reduce(ins, a)[0].with_(dtype="bool")]


@rule("arg_reduce")
def _arg_reduce(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    axes = norm_axes(None if a["axis"] is None else (a["axis"],), x.rank)
    check(all(x.shape[i] != 0 for i in axes), "cannot take argmax/argmin over an empty axis")
    return [TensorSpec(reduce_shape(x.shape, axes, a["keepdims"]), "int64")]


@rule("scan")
def _scan(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    norm_axis(a["axis"], ins[0].rank)
    return [ins[0]]


@rule("index_like")
def _index_like(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    norm_axis(a["axis"], ins[0].rank)
    return [ins[0].with_(dtype="int64")]


# ---- shape manipulation ----

@rule("reshape")
def _reshape(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, shape = ins[0], list(_static_or_none(a["shape"]))
    check(shape.count(-1) <= 1 and all(d is None or d >= -1 for d in shape),
          f"reshape target {_shown(a['shape'])} may hold one -1 and no other negative dim")
    n = size(x.shape)
    if None in shape:  # a symbolic size: the element counts are checked when it runs
        n = None
    known = math.prod(d for d in shape if d not in (-1, None))
    if -1 in shape:
        check(n is None or (known != 0 and n % known == 0),
              f"cannot reshape {x.shape} to {_shown(a['shape'])}")
        shape[shape.index(-1)] = n // known if n is not None else None
    if n is not None:
        check(n == math.prod(shape), f"cannot reshape {x.shape} ({n} elements) "
              f"to {_shown(a['shape'])} ({math.prod(shape)} elements)")
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
