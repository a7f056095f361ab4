"""Careless IR that still verifies: every registry op's example with its attributes,
operand shapes and dtypes mutated at random, kept only where the verifier accepts it.

`tests/test_verifier_hostile.py` lowers each such program to every target and runs it:
what the verifier accepts, every target must lower and run, or refuse with one of the
user-error types of `USER_ERRORS`. An internal error (a `KeyError` in the emitter, a
framework's own complaint about an axis) means the verifier let through IR no target
can run, or the emitter has a bug. Run as a script (`python tests/hostile_gen.py N`) it
prints the failures of N programs per target, grouped by op and exception type.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from op_examples import example
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from ivy_ir.core.errors import IRError
from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError
from ivy_ir.dialect import CONTROL, OP_CLASSES, SPECS, TensorSpec
from ivy_ir.dialect.attrs import AttrError
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.types import CLASS_MEMBERS, DTYPE_NAMES, FLOATS, numpy_dtype

USER_ERRORS: tuple[type[Exception], ...] = (IRError, LoweringError)
"""What a lowering may raise for IR the verifier accepted: a clear refusal
(`LoweringError`: a dtype the registry marks unsupported on the target), never a crash."""

REJECTED = (InferError, AttrError, VerifyException)
"""How building or verifying refuses a mutated op: such a draw is not a program."""

LINALG = frozenset({"cholesky", "inv", "det", "solve", "eigh", "qr", "svd", "matrix_norm", "lu",
                    "slogdet", "matrix_exp"})
"""Ops whose float operands get well-conditioned matrices (a singular input is a data
error, not what this generator looks for)."""


DYNAMIC = 0.15
"""The share of operands declared with one dynamic (`?`) dim; their input keeps the size."""


@dataclass(frozen=True)
class Case:
    """One verified program: its op, the module and inputs of its declared types."""

    op: str
    module: Module
    inputs: tuple[np.ndarray, ...]


def _dims(rng: random.Random, shape: tuple[int | None, ...]) -> tuple[int, ...]:
    """`shape` mutated: a dim changed, dropped or added (sizes 0-4), or kept."""
    dims = [d or 1 for d in shape]
    move = rng.random()
    if move < 0.2 and dims:
        dims.pop(rng.randrange(len(dims)))
    elif move < 0.4 and len(dims) < 5:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice((1, 2, 3)))
    elif move < 0.7 and dims:
        dims[rng.randrange(len(dims))] = rng.choice((0, 1, 2, 3, 4))
    return tuple(dims)


def _operand(rng: random.Random, spec: TensorSpec, dtype_class: str,
             dtype: str | None) -> TensorSpec:
    members = sorted(CLASS_MEMBERS[dtype_class])
    if dtype is None or dtype not in members:
        dtype = spec.dtype if rng.random() < 0.5 and spec.dtype in members else rng.choice(members)
    shape = _dims(rng, spec.shape) if rng.random() < 0.6 else tuple(spec.shape)
    return TensorSpec(shape, dtype)


def _ints(rng: random.Random, old: Any, lo: int, hi: int) -> tuple[int, ...]:
    n = len(old) if isinstance(old, tuple) and rng.random() < 0.6 else rng.randint(0, 4)
    return tuple(rng.randint(lo, hi) for _ in range(n))


def _attr(rng: random.Random, kind: str, choices: tuple[str, ...], old: Any) -> Any:
    """A value of `kind` near the edges: zero, negatives, one past a rank."""
    if kind == "int":
        return rng.choice((-2, -1, 0, 1, 2, 3, 5))
    if kind == "axis":
        return rng.randint(-5, 4)
    if kind in ("float", "bound"):  # a bound's size expressions need named dims
        return rng.choice((-1.0, 0.0, 0.5, 2.0))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "str":
        return rng.choice(choices) if choices else old
    if kind in ("ints", "axes"):
        return _ints(rng, old, -5 if kind == "axes" else -2, 4)
    if kind == "floats":
        return tuple(rng.choice((0.0, 1.0, 2.0)) for _ in range(rng.randint(0, 3)))
    if kind == "dtype":
        return rng.choice(DTYPE_NAMES)
    return old  # dense: the example's


def _mutant(rng: random.Random, name: str) -> tuple[list[Any], dict[str, Any]]:
    spec = SPECS[name]
    types, attrs = example(name)
    dtype = None  # one dtype for the operands of a shared group, mostly
    new_types: list[Any] = []
    for arg, t in zip(spec.operands, types):
        if t is None:
            new_types.append(None)
        elif isinstance(t, list):
            count = len(t) if rng.random() < 0.7 else rng.randint(1, 3)
            new_types.append([_operand(rng, t[min(i, len(t) - 1)], arg.dtype_class, dtype)
                              for i in range(count)])
            dtype = new_types[-1][0].dtype
        else:
            new_types.append(_operand(rng, t, arg.dtype_class, dtype))
            dtype = new_types[-1].dtype if arg.dtype_class not in ("index", "cond") else dtype
    new_attrs = dict(attrs)
    for a in spec.attrs:
        if rng.random() < 0.5:
            value = _attr(rng, a.kind, a.choices, attrs.get(a.name, a.default))
            new_attrs[a.name] = value
    return new_types, new_attrs


def _inputs(rng: np.random.Generator, name: str, specs: list[TensorSpec]) -> tuple[Any, ...]:
    out = []
    for s in specs:
        shape = tuple(s.shape)
        if s.dtype in FLOATS or s.dtype.startswith("complex"):
            data = rng.integers(-16, 17, shape) / 8
            if name in LINALG and len(shape) >= 2 and shape[-1] == shape[-2]:
                data = np.eye(shape[-1]) * 3 + data / 16
        elif s.dtype == "bool":
            data = rng.random(shape) < 0.5
        elif s.dtype == "string":  # words, some equal, some with the delimiters drawn
            data = rng.choice(np.array(["", "a", "B", "a.b", "x y"], dtype=object), shape)
        elif SPECS[name].operands and any(a.dtype_class == "index" for a in SPECS[name].operands):
            data = np.zeros(shape)  # index 0 lies in every non-empty axis
        else:  # never 0: an integer division by zero is a data error, not bad IR
            data = rng.integers(1, 4, shape)
        out.append(np.asarray(data).astype(numpy_dtype(s.dtype)))
    return tuple(out)


def _module(name: str, types: list[Any], attrs: dict[str, Any]) -> Module | None:
    """A module whose `main` applies `name` to arguments of `types`, None where the
    builder or the verifier refuses it."""
    block = Block()

    def arg(spec: TensorSpec) -> Any:
        return block.insert_arg(spec.to_xdsl(), len(block.args))

    args = [None if t is None else [arg(s) for s in t] if isinstance(t, list) else arg(t)
            for t in types]
    try:
        op = OP_CLASSES[name].build(*args, **attrs)
    except REJECTED:
        return None
    block.add_ops([op, func.ReturnOp(*op.results)])
    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type for r in op.results]),
                     Region(block))
    module = Module(ModuleOp([fn]), returns_sequence=True)
    try:
        module.verify()
    except VerifyException:
        return None
    return module


def _dynamic(rng: random.Random, spec: TensorSpec) -> TensorSpec:
    """`spec`, one of its dims declared dynamic (`?`) DYNAMIC of the time."""
    if not spec.rank or rng.random() >= DYNAMIC:
        return spec
    shape = list(spec.shape)
    shape[rng.randrange(len(shape))] = None
    return spec.with_(shape=tuple(shape))


def build_case(seed: int, name: str) -> Case | None:
    """The op `name` mutated by `seed`, or None where the mutation does not verify.

    The op must verify with static shapes first, so its inputs (of those shapes) are
    valid; the program may then declare some dims dynamic."""
    rng = random.Random(f"{name}:{seed}")
    types, attrs = _mutant(rng, name)
    if _module(name, types, attrs) is None:
        return None
    declared = [None if t is None else [_dynamic(rng, s) for s in t] if isinstance(t, list)
                else _dynamic(rng, t) for t in types]
    module = _module(name, declared, attrs)
    if module is None:
        return None
    concrete = [s for t in types if t is not None for s in (t if isinstance(t, list) else [t])]
    return Case(name, module, _inputs(np.random.default_rng(seed), name, concrete))


def cases(count: int, seed: int = 0) -> Iterator[Case]:
    """`count` verified programs, cycling over the registry ops in order."""
    names = sorted(set(SPECS) - CONTROL)  # control flow: program_gen.py makes those
    made, i = 0, seed
    while made < count:
        case = build_case(i // len(names), names[i % len(names)])
        i += 1
        if case is not None:
            made += 1
            yield case


def run(case: Case, target: str) -> Exception | None:
    """Lower and call `case` on `target`; the exception if that raised one that is not
    a user error."""
    import ivy_ir

    try:
        ivy_ir.lower(case.module, target=target)(*case.inputs)
    except USER_ERRORS:
        return None
    except Exception as exc:  # what the hostile tests count: anything else is a crash
        return exc
    return None


def main(count: int, targets: list[str]) -> None:
    crashes: Counter[tuple[str, str, str]] = Counter()
    first: dict[tuple[str, str, str], str] = {}
    programs = list(cases(count))
    for target in targets:
        for case in programs:
            exc = run(case, target)
            if exc is not None:
                key = (target, case.op, type(exc).__name__)
                crashes[key] += 1
                first.setdefault(key, f"{str(exc)[:200]!r}\n{case.module}")
    total = len(programs) * len(targets)
    print(f"{sum(crashes.values())} of {total} lowerings crashed")
    for key, n in sorted(crashes.items()):
        print(n, *key, first[key].splitlines()[0])
    if "-v" in sys.argv:
        for key in sorted(first):
            print("====", *key, "\n", first[key])


if __name__ == "__main__":
    main(int(sys.argv[1]), [t for t in sys.argv[2:] if not t.startswith("-")]
         or ["numpy", "jax", "torch", "tensorflow"])
