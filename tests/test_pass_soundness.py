"""Every pass keeps the meaning of every program: a randomized differential test.

Random well-typed programs (`program_gen.py`) run through the NumPy lowering (the
reference semantics) before and after each registered pass, and after each non-empty
preset pipeline. The pass list is read from `IVY_PASSES` and `PRESETS` at run time,
plus xDSL's `canonicalize`, `cse` and `dce`, so a newly registered pass is tested
without touching this file; passes with a required option are skipped.

After the pass the module must verify, survive print -> `ivy_ir.parse` -> print
unchanged, keep its function type, keep a source location on every ivy op but block
terminators (rewritten ops take the location of the op they replace; a region's
`ivy.yield` stands for no user code), and compute the same outputs:
identical dtypes and shapes, integers and bools exactly equal, NaN and infinity
positions equal, and other floats within TOLERANCE.

A third of the programs are first run through `decompose`, so passes that rebuild
composite ops (`recompose`) see the fully expanded forms the lowerings produce too.
About one program in five holds control flow (`program_control.py`: a `cond`, `scan` or
`while_loop` around random sub-programs), so every pass also runs inside region bodies
and `canonicalize` folds, hoists and prunes regions.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_control import KINDS
from program_gen import FAMILIES, Program, build_program, programs
from program_tables import BINARY, COMPOSITES, LAYERS, REDUCTIONS, SHAPE_OPS, UNARY
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

import ivy as F
import ivy_ir
from ivy_ir.core.evaluate import evaluate
from ivy_ir.core.graph import Graph
from ivy_ir.core.module import Module
from ivy_ir.core.reference_control import run_cond, run_scan, run_while
from ivy_ir.core.tracer import Tracer
from ivy_ir.dialect import IvyOp, TensorSpec, YieldOp
from ivy_ir.passes import IVY_PASSES, PRESETS, available_passes, run_pipeline

TOLERANCE = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}
"""(rtol, atol) per float dtype: about 80 ulps of float32 and 4,500 of float64. Both
sides run the same NumPy kernels, so this is room for a rewrite's own rounding only
(`x / c` as `x * (1/c)`, a recomposed fused kernel), none for a wrong value."""

MIN_PROGRAMS = 1100
"""Programs generated across all pipelines of this file (CI must run at least 1,000)."""


@functools.cache
def needs_options(name: str) -> bool:
    """Whether the pass has an option without a default (it cannot run bare)."""
    cls = available_passes()[name]()
    return any(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
               for f in dataclasses.fields(cls) if f.init)


# names only: a pass that fails to import fails its own test, not the collection of all
PASSES = sorted({*IVY_PASSES, "canonicalize", "cse", "dce"})
PIPELINES = PASSES + sorted(f"preset:{name}" for name, spec in PRESETS.items() if spec.strip())
EXAMPLES = max(100, math.ceil(MIN_PROGRAMS / len(PIPELINES)))

_LOWERED: dict[tuple[str, bool], Any] = {}


def run(module: Module, inputs: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """Outputs of `module` through the NumPy lowering (lowered once per distinct IR)."""
    key = (module.to_text(locations=False), module.returns_sequence)
    if key not in _LOWERED:
        if len(_LOWERED) > 4096:
            _LOWERED.clear()
        _LOWERED[key] = ivy_ir.lower(module, "numpy")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty means and the like: NaN is compared below
        outs = _LOWERED[key](*[a.copy() for a in inputs])
    # a parsed module returns a lone result bare (the IR does not record `returns_sequence`)
    return [np.asarray(o) for o in (outs if len(module.outputs) != 1 or
                                    module.returns_sequence else [outs])]


def interpret(module: Module, inputs: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """Outputs of `module` computed op by op, each op run alone by the reference evaluator.

    A second reference that shares no buffer between ops: when it disagrees with the
    lowered program, the NumPy lowering (its buffer reuse, say), not a pass, is wrong."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return interpret_block(module.entry.body.block, list(inputs))


def _scan(op: IvyOp, bodies: list[Any], ins: list[Any]) -> tuple:
    attrs = op.attr_values()
    n = attrs["num_carry"]
    ys = [(s.shape[1:], np.dtype(s.dtype)) for s in map(TensorSpec.from_xdsl,
                                                          op.results.types[n:])]
    return run_scan(*bodies, ins, n, attrs["length"], attrs["reverse"], attrs["unroll"], ys)


CONTROL_KERNELS: dict[str, Any] = {
    # op: how the NumPy kernel of control flow runs it, given its bodies as functions
    "cond": lambda op, bodies, ins: run_cond(ins[0], *bodies, ins[1:]),
    "while_loop": lambda op, bodies, ins: run_while(*bodies, ins),
    "scan": _scan,
}


def interpret_block(block: Block, args: list[Any]) -> list[np.ndarray]:
    """What a function body returns, or a region body yields, given its arguments; a
    control-flow op runs its regions the same way, through `CONTROL_KERNELS`."""
    env: dict[Any, Any] = dict(zip(block.args, args))
    for op in block.ops:
        if isinstance(op, (func.ReturnOp, YieldOp)):
            return [np.asarray(env[v]) for v in op.operands]
        assert isinstance(op, IvyOp), f"cannot interpret {op.name}"
        if op.SPEC.regions:
            bodies = [lambda *a, b=r.block: tuple(interpret_block(b, list(a)))
                      for r in op.regions]
            out = CONTROL_KERNELS[op.SPEC.name](op, bodies, [env[v] for v in op.operands])
        else:
            groups = [None if g is None else [env[v] for v in g] if isinstance(g, list)
                      else env[g] for g in op.operand_groups()]
            out = evaluate(op.SPEC, groups, op.attr_values())
        env.update(zip(op.results, out if len(op.results) > 1 or
                       op.SPEC.variadic_results else [out]))
    raise AssertionError("the block has no terminator")


def assert_same(want: list[np.ndarray], got: list[np.ndarray]) -> None:
    """Equal dtypes and shapes; exact ints/bools; NaN/inf where they were; close floats."""
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for i, (w, g) in enumerate(zip(want, got)):
        where = f"result {i}"
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, expected {w.dtype}"
        assert g.shape == w.shape, f"{where}: shape {g.shape}, expected {w.shape}"
        if w.dtype.name not in TOLERANCE:
            np.testing.assert_array_equal(g, w, err_msg=where)
            continue
        finite = np.isfinite(w)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{where}: NaNs")
        np.testing.assert_array_equal(np.where(finite, 0, g), np.where(finite, 0, w),
                                      err_msg=f"{where}: infinities")
        rtol, atol = TOLERANCE[w.dtype.name]
        np.testing.assert_allclose(g[finite], w[finite], rtol=rtol, atol=atol, err_msg=where)


def check_sound(before: Module, inputs: tuple[np.ndarray, ...], pipeline: str) -> None:
    """Run `pipeline` on `before` and check everything the module docstring promises."""
    try:
        want = run(before, inputs)
    except Exception as exc:  # a generator bug, or one in the reference lowering
        raise AssertionError(f"the NumPy reference cannot run the program: {exc!r}") from exc
    after = run_pipeline(before, pipeline)
    text = str(after)
    reparsed = ivy_ir.parse(text)
    assert str(reparsed) == text, "print -> parse -> print changed the IR"
    assert after.entry.function_type == before.entry.function_type, "function type changed"
    lost = [op.name for op in after.entry.walk() if op.name.startswith("ivy.")
            and isinstance(op.location, UnknownLoc) and not op.has_trait(IsTerminator)]
    assert not lost, f"ops without a source location after {pipeline}: {lost}"
    try:
        assert_same(want, run(reparsed, inputs))
    except AssertionError as exc:
        culprit = f"{pipeline} changed the results"
        try:
            assert_same(interpret(before, inputs), want)
        except AssertionError:
            culprit = ("the NumPy lowering miscompiles the program before the pass (evaluated "
                       "op by op it gives other results), so this is no evidence against "
                       f"{pipeline}")
        raise AssertionError(f"{culprit}:\n{exc}\n--- after:\n{text}") from None


@pytest.mark.parametrize("pipeline", PIPELINES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs(), predecompose=st.sampled_from((False, False, True)))
def test_pass_is_sound(pipeline: str, program: Program, predecompose: bool) -> None:
    if pipeline in PASSES and needs_options(pipeline):
        pytest.skip(f"{pipeline} needs options")
    before = run_pipeline(program.module, "decompose") if predecompose else program.module
    check_sound(before, program.inputs, pipeline.removeprefix("preset:"))


def test_pipelines_are_discovered() -> None:
    # the registry is read at run time: every ivy pass and preset is in the sweep
    assert {"canonicalize", "cse", "dce", "preset:default"} <= set(PIPELINES)
    assert set(IVY_PASSES) <= set(PIPELINES)
    assert EXAMPLES * len(PIPELINES) >= 1000


# ---- the generator itself ----

SAMPLE = 400
"""Programs (seeds 0..SAMPLE-1) the generator and checker tests look at."""


@pytest.fixture(scope="module")
def sample() -> list[Program]:
    return [build_program(seed) for seed in range(SAMPLE)]


def test_generator_programs_run_as_typed(sample: list[Program]) -> None:
    for p in sample:
        try:
            outs = run(p.module, p.inputs)
        except Exception as exc:
            raise AssertionError(f"{exc!r} running {p!r}") from exc
        assert [(o.shape, o.dtype.name) for o in outs] == \
            [(s.shape, s.dtype) for s in p.module.outputs], repr(p)


def test_generator_covers_the_op_families(sample: list[Program]) -> None:
    families = Counter(f for p in sample for f in p.families)
    for family in FAMILIES:  # each family in at least one program in twenty
        assert families[family] >= 20, (family, families[family])
    for kind in KINDS:  # each control-flow op in at least one program in forty
        assert families[f"control:{kind}"] >= 10, (kind, families[f"control:{kind}"])
    for op in COMPOSITES:  # both spellings of every composite op
        assert families[f"composite:{op}"] and families[f"decomposed:{op}"], op
    ops = Counter(op for p in sample for op in p.ops())
    tables = {*UNARY, *BINARY, *REDUCTIONS, *SHAPE_OPS, *COMPOSITES, *LAYERS, "matmul",
              "where", "astype", "constant", "full_like", "zeros_like", "ones_like"}
    missing = sorted(op for op in tables if not ops[op])
    assert not missing, f"ops never generated: {missing}"
    sizes = [len(p.ops()) for p in sample]
    assert min(sizes) >= 2 and 4 <= np.mean(sizes) <= 12, (min(sizes), np.mean(sizes))


def test_generator_is_deterministic() -> None:
    # a seed is the whole program: hypothesis shrinks and replays failures by seed
    for seed in range(0, 400, 7):
        first, again = build_program(seed), build_program(seed)
        assert str(first.module) == str(again.module), seed
        assert all(np.array_equal(a, b, equal_nan=True)
                   for a, b in zip(first.inputs, again.inputs)), seed


def test_interpreter_runs_control_flow(sample: list[Program]) -> None:
    # the op-by-op reference that tells a lowering bug from a pass bug knows regions too
    looped = [p for p in sample if any(f.startswith("control:") for f in p.families)]
    assert looped
    for p in looped[:40]:
        assert_same(run(p.module, p.inputs), interpret(p.module, p.inputs))


def test_generator_covers_shapes_dtypes_and_constants(sample: list[Program]) -> None:
    inputs = [a for p in sample for a in p.inputs]
    assert {a.dtype.name for a in inputs} == {"float32", "float64", "int32", "int64", "bool"}
    assert any(a.ndim == 0 for a in inputs) and any(a.size == 0 and a.ndim for a in inputs)
    assert max(a.ndim for a in inputs) >= 3
    ops = [op for p in sample for op in p.module.entry.walk()]
    broadcasting = [op for op in ops if op.name[4:] in BINARY
                    and op.operands[0].type != op.operands[1].type]
    assert len(broadcasting) >= 20, len(broadcasting)
    fills = {tuple(set(op.properties["value"].get_values())) for op in ops
             if op.name == "ivy.constant"}
    assert {(0,), (1,)} <= fills or {(0.0,), (1.0,)} <= fills, fills  # neutral elements
    assert any(p.families & {f"idiom:{name}" for name in ("x - x", "negate twice")}
               for p in sample)


# ---- the checker itself: deliberately wrong passes must be caught ----

MUTANTS: dict[str, tuple[str, Any]] = {
    # name: (op it rewrites, replacement over Tracers)
    "swapped subtract": ("subtract", lambda x, y: F.subtract(y, x)),  # wrong values
    "exp off by 3e-5": ("exp", lambda x: F.multiply(F.exp(x), 1 + 3e-5)),  # past TOLERANCE
    "floor_divide as divide": ("floor_divide", lambda x, y: F.astype(
        F.trunc(F.divide(x, y)), dtype=x.dtype)),  # rounds negative quotients the wrong way
    "x * 0 -> 0": ("multiply", lambda x, y: F.where(  # wrong where x is inf or NaN only
        F.equal(y, 0), F.zeros_like(F.add(x, y)), F.multiply(x, y))),
}


def mutant_pass(op_name: str, rewrite: Any) -> type[ModulePass]:
    """A pass replacing every `op_name` op by `rewrite` of its operands."""

    @dataclasses.dataclass(frozen=True)
    class Mutant(ModulePass):
        name = "mutant"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for old in [o for o in op.walk() if o.name == f"ivy.{op_name}"]:
                block = old.parent_block()
                assert block is not None
                graph = Graph(block, before=old, location=old.location, allow_params=False)
                new = rewrite(*[Tracer(v, graph) for v in old.operands])
                old.results[0].replace_all_uses_with(new.value)
                old.detach()
                old.erase()

    return Mutant


@pytest.mark.parametrize("mutant", MUTANTS)
def test_checker_catches_unsound_passes(mutant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    op_name, rewrite = MUTANTS[mutant]
    monkeypatch.setitem(IVY_PASSES, "mutant", lambda: mutant_pass(op_name, rewrite))
    for seed in range(SAMPLE):
        program = build_program(seed)
        if op_name in program.ops():
            try:
                check_sound(program.module, program.inputs, "mutant")
            except AssertionError as exc:
                assert "mutant changed the results" in str(exc)
                return
    pytest.fail(f"no program of {SAMPLE} tells the '{mutant}' mutant from the original")
