"""Result-type inference rules, named by the spec's `infer=` tag.

A rule takes the operand types (None for an absent optional operand, a list for a
variadic one) and the attribute values (defaults filled in) and returns the result
types, or raises `InferError` saying what is wrong in the user's terms. The same rule
computes result types at build time and checks them in the verifier, so the two can
never disagree. Rules for shape manipulation live in `infer_shape.py`, those for linear
algebra, indexing and nn layers in `infer_nn.py`, those of windowed layers in
`infer_window.py`, those of bit-level ops and samplers in `infer_bits.py`, those of
complex numbers and FFTs in `infer_fft.py`, those of ops with data-dependent sizes in
`infer_data.py`; `checks.INFER_RULES` joins the tables.
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
"""The rules of this module; the other `infer_*` modules hold the rest."""


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


def static_or_none(shape: Any) -> tuple[int | None, ...]:
    """A shape attribute as a type's dims: a symbolic size is a dynamic dim."""
    return tuple(d if isinstance(d, int) else None for d in shape)


def shape_dims(shape: Any) -> tuple[int | None, ...]:
    """A `shape` attribute as a type's dims (a symbolic size: `?`), none negative."""
    dims = static_or_none(shape)
    check(all(d is None or d >= 0 for d in dims), f"shape {shown(shape)} has a negative "
          "dimension")
    return dims


def shown(shape: Any) -> str:
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
          f"{shown(a['shape'])}")
    for s, t in zip(reversed(src), reversed(target)):
        check(s in (1, t, None) or t is None, f"cannot broadcast shape {src} to "
              f"{shown(a['shape'])}")
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
