"""Inference rules of the control-flow ops: results from the regions' signatures.

A region op's result types are not a function of its operands alone: they are what
its bodies yield. So these rules take, besides the operands and attributes, each
region's `Signature` (block argument types, yielded types) and check the two against
each other the way the op's semantics chain them: a loop's body must map the carry
to itself, both branches of a `cond` must yield the same types, a scan's body sees
one slice of each `xs` operand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .infer import InferError, check
from .types import TensorSpec


@dataclass(frozen=True)
class Signature:
    """One region as its op sees it: what its block takes and what it yields."""

    args: tuple[TensorSpec, ...]
    yields: tuple[TensorSpec, ...]


RegionRule = Callable[[list[Any], dict[str, Any], Sequence[Signature]], list[TensorSpec]]
CONTROL_RULES: dict[str, RegionRule] = {}


def _rule(name: str) -> Callable[[RegionRule], RegionRule]:
    def register(fn: RegionRule) -> RegionRule:
        CONTROL_RULES[name] = fn
        return fn
    return register


def _show(types: Sequence[TensorSpec]) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


def _takes(region: str, sig: Signature, want: Sequence[TensorSpec], what: str) -> None:
    check(list(sig.args) == list(want),
          f"region '{region}' takes {_show(sig.args)} but {what} are {_show(want)}")


@_rule("branches")
def _branches(ins: list[Any], a: dict[str, Any], regions: Sequence[Signature]
              ) -> list[TensorSpec]:
    pred, operands = ins
    check(pred.rank == 0, f"the predicate must be 0-d, got {pred}")
    then, orelse = regions
    _takes("then", then, operands, "the inputs")
    _takes("orelse", orelse, operands, "the inputs")
    check(then.yields == orelse.yields,
          f"the branches yield different types: then {_show(then.yields)}, "
          f"orelse {_show(orelse.yields)}")
    return list(then.yields)


@_rule("loop")
def _loop(ins: list[Any], a: dict[str, Any], regions: Sequence[Signature]
          ) -> list[TensorSpec]:
    (carry,) = ins
    cond, body = regions
    _takes("cond", cond, carry, "the carried values")
    _takes("body", body, carry, "the carried values")
    check(len(cond.yields) == 1 and cond.yields[0] == TensorSpec((), "bool"),
          f"region 'cond' must yield one 0-d bool, yields {_show(cond.yields)}")
    check(list(body.yields) == list(carry),
          f"region 'body' yields {_show(body.yields)} but carries {_show(carry)}")
    return list(carry)


@_rule("scan_steps")
def _scan_steps(ins: list[Any], a: dict[str, Any], regions: Sequence[Signature]
                ) -> list[TensorSpec]:
    (operands,) = ins
    n, length = a["num_carry"], a["length"]
    check(0 <= n <= len(operands), f"num_carry = {n} is not in [0, {len(operands)}]")
    check(length >= 0, f"length must be >= 0, got {length}")
    check(a["unroll"] >= 1, f"unroll must be >= 1, got {a['unroll']}")
    carry, xs = operands[:n], operands[n:]
    for i, x in enumerate(xs):
        check(x.rank >= 1 and x.shape[0] in (length, None),
              f"scanned operand #{n + i} {x} has no leading axis of length {length}")
    (body,) = regions
    slices = [x.with_(shape=x.shape[1:]) for x in xs]
    _takes("body", body, [*carry, *slices], "the carry and one slice of each input")
    check(list(body.yields[:n]) == list(carry),
          f"region 'body' yields the carry as {_show(body.yields[:n])} but it is "
          f"{_show(carry)}")
    return [*carry, *(y.with_(shape=(length, *y.shape)) for y in body.yields[n:])]


__all__ = ["CONTROL_RULES", "InferError", "Signature"]
