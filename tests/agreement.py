"""Running one generated program on every target and comparing each with NumPy.

The NumPy lowering is the reference semantics (docs/semantics.md). A target agrees when
every result has the reference's dtype and shape, integers and bools are equal, NaNs
and infinities sit where the reference has them, and other floats are within the
op-level tolerance of `differential.TOL`; the sign of a zero is not compared, as the IR
leaves it unspecified (docs/semantics.md).

When a program disagrees, `culprit` runs its ops one at a time on the reference's
intermediate values to name the first op whose own lowering differs: that op's family
is what a report counts. DOCUMENTED lists the culprits whose differences
docs/semantics.md keeps instead of correcting (each only on inputs holding infinities
or near-largest values, `holds_extremes`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from differential import FLUSHES_SUBNORMALS, TOL, flush_subnormals, to_numpy
from program_gen import Program
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import lowerings
from ivy_ir.core.evaluate import evaluate
from ivy_ir.core.module import Module
from ivy_ir.dialect import IvyOp

TARGETS = ("jax", "torch", "tensorflow")
"""The targets compared with the NumPy reference."""

OVERFLOW = "overflows near the dtype's largest finite value in one framework's formula"
DOCUMENTED: dict[str, str] = {
    # culprit op: why its difference stays (docs/semantics.md)
    **dict.fromkeys(("batch_norm", "layer_norm", "var", "std", "gelu", "logsumexp",
                     "softmax", "log_softmax"), OVERFLOW),
    **dict.fromkeys(("matmul", "conv"), "inf * 0 in a dot product (BLAS may skip the zero), "
                                        "overflow by the order of summation"),
    **dict.fromkeys(("divide", "floor_divide"), "XLA on the CPU divides as x * (1/y): 1/y "
                    "is subnormal, flushed, for |y| > 8.5e37 (float32)"),
    **dict.fromkeys(("sum", "mean", "cumsum"), "the order of summation decides what is left "
                    "of near-largest values that cancel, or whether their sum overflows"),
    "program": "whole-program rewrites of XLA and oneDNN: subnormal intermediates flushed "
               "(x / 3e38 as x * (1/3e38)), a dot with a 0/1 operand as a sum skipping NaN * 0",
}


def holds_extremes(program: Program) -> bool:
    """Whether a float input holds an infinity or a value within 2x of the largest."""
    return any(np.isinf(a).any() or (np.abs(a) >= np.finfo(a.dtype).max / 2).any()
               for a in program.inputs if a.dtype.kind == "f")



def run(module: Module, inputs: tuple[np.ndarray, ...], target: str) -> list[np.ndarray]:
    """The module's results on `target`, as NumPy arrays, through the target's own
    wrapping (`jax.jit`, `tf.function`): XLA's and grappler's rewrites are part of what
    a compiled program computes (grappler turns `1 / x` into an inexact reciprocal)."""
    lowered = lowerings.lower(module, target)
    fn = lowered.fn
    native = [lowered.runtime.to_native(a) for a in inputs]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lowered.params, *native)
    items = list(out) if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(to_numpy(o)) for o in items]


def difference(want: list[np.ndarray], got: list[np.ndarray], precision: str = "float64"
               ) -> str | None:
    """Why `got` disagrees with the reference `want`, or None when it agrees; floats are
    compared at the tolerance of `precision` where that is coarser than their own."""
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for i, (w, g) in enumerate(zip(want, got)):
        if (g.dtype, g.shape) != (w.dtype, w.shape):
            return f"result {i}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if w.dtype.kind != "f":
            if not np.array_equal(g, w):
                return f"result {i}: {_show(g, w, g != w)}"
            continue
        nan = np.isnan(w)
        if not np.array_equal(np.isnan(g), nan):
            return f"result {i}: NaNs at other places: {_show(g, w, np.isnan(g) != nan)}"
        exact = nan | np.isinf(w)
        same = np.where(exact, g == w, True) | nan
        if not same.all():
            return f"result {i}: infinities differ: {_show(g, w, ~same)}"
        rtol, atol = np.maximum(TOL[w.dtype.name], TOL[precision])
        close = np.isclose(g, w, rtol=rtol, atol=atol) | exact
        if not close.all():
            return f"result {i}: {_show(g, w, ~close)}"
    return None


def _show(got: np.ndarray, want: np.ndarray, bad: np.ndarray) -> str:
    at = np.argwhere(np.atleast_1d(bad))[:3]
    return "; ".join(f"at {tuple(int(i) for i in ix)} got {np.atleast_1d(got)[tuple(ix)]!r} "
                     f"want {np.atleast_1d(want)[tuple(ix)]!r}" for ix in at)


def precision(module: Module) -> str:
    """float32 when any value of the module is float32: a float64 result computed from
    float32 values carries float32 rounding, and is compared at its tolerance."""
    types = [str(v.type) for op in module.entry.walk() for v in (*op.operands, *op.results)]
    return "float32" if any("xf32>" in t or "<f32>" in t for t in types) else "float64"


def disagreements(program: Program, targets: tuple[str, ...] = TARGETS) -> dict[str, str]:
    """target -> why it disagrees with NumPy on `program` (an error counts too)."""
    want = run(program.module, program.inputs, "numpy")
    coarse = precision(program.module)
    found = {}
    for target in targets:
        try:
            why = difference(want, run(program.module, program.inputs, target), coarse)
        except Exception as exc:  # a target that raises where NumPy answers disagrees
            why = f"raised {type(exc).__name__}: {str(exc)[:200]}"
        if why:
            found[target] = why
    return found


def single_op(op: IvyOp) -> Module:
    """A module running a copy of `op` alone, on arguments of its operand types."""
    block = Block(arg_types=[v.type for v in op.operands])
    copy = op.clone()
    copy.operands = tuple(block.args)
    block.add_ops([copy, func.ReturnOp(*copy.results)])
    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type for r in copy.results]),
                     Region(block))
    return Module(ModuleOp([fn]), {}, returns_sequence=True)


def culprit(program: Program, target: str) -> str:
    """The first op of `program` whose lowering alone disagrees on `target`, run on the
    reference's intermediate values, subnormals flushed on the targets that flush them
    ("program" when every op agrees alone)."""
    block = program.module.entry.body.block
    env: dict[Any, Any] = dict(zip(block.args, program.inputs))
    check: Callable[[Module, tuple[np.ndarray, ...]], str | None]

    def check(module: Module, inputs: tuple[np.ndarray, ...]) -> str | None:
        if target in FLUSHES_SUBNORMALS:  # as the op-level tests do: not this op's fault
            inputs = tuple(flush_subnormals(list(inputs)))
        want = run(module, inputs, "numpy")
        try:
            return difference(want, run(module, inputs, target), precision(module))
        except Exception as exc:
            return f"raised {type(exc).__name__}"
    for op in block.ops:
        if not isinstance(op, IvyOp):
            continue
        inputs = tuple(np.asarray(env[v]) for v in op.operands)
        if check(single_op(op), inputs):
            return op.SPEC.name
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = evaluate(op.SPEC, [None if g is None else [env[v] for v in g]
                                     if isinstance(g, list) else env[g]
                                     for g in op.operand_groups()], op.attr_values())
        env.update(zip(op.results, out if len(op.results) > 1 or op.SPEC.variadic_results
                       else [out]))
    return "program"
