"""Gradients through the autodiff targets, against each other and finite differences.

For every differentiable op (`differentiable_ops()`: not tagged `nondiff`, with a float
operand) an example is drawn from the reference table and conditioned by
`grad_cases.prepare` (float64 inputs away from kinks, ties and domain edges). The loss is
a fixed random-weighted sum of the op's float results (sign-invariant functions of the
qr/svd/eigh factors, see `grad_cases.loss_terms`); its gradient with respect to every
float operand is computed with `jax.grad` over `compiled.apply`, torch autograd and
`tf.GradientTape`, and checked against central finite differences of the NumPy-target
program in float64. Integer-index, condition and bool-mask operands are not
differentiated. Gradients of cholesky/eigh are compared on their symmetric part (FD
along symmetric perturbations), since frameworks read or symmetrize the input matrix
differently.

Complex results enter the loss as |z + c|^2, c a fixed complex offset (so a result's
phase counts, not only its magnitude): every framework differentiates that real
function of a complex value the same way, whatever its convention for complex
gradients. Operands are real (the inexact ones drawn as float64), so the gradients
compared are real too.

Where a framework has no gradient for a case (`FRAMEWORK_GAPS`), the test asserts that it
raises the documented error, compares the other targets, and `test_framework_gap`
reports the gap as an xfail.

IVY_GRAD_EXAMPLES=20 for a deeper (slower) run; IVY_GRAD_SHRINK=1 to shrink failures;
IVY_GRAD_TARGETS=jax,tensorflow to restrict the targets.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from differential import as_list, compile_op, flatten
from grad_cases import (
    EPS,
    SYMMETRIC,
    TARGETS,
    close,
    diff_inputs,
    differentiable_ops,
    loss_terms,
    prepare,
    symmetric_part,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from op_refs_common import CASES
from target_grads import GRAD

from ivy_ir.dialect import CONTROL, SPECS
from ivy_ir.dialect.types import COMPLEX, FLOATS

OFFSET = 0.5 - 0.75j  # a complex result z enters the loss as |z + OFFSET|^2

OPS = differentiable_ops()
SETTINGS = settings(
    max_examples=int(os.environ.get("IVY_GRAD_EXAMPLES", "3")), deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=list(Phase) if os.environ.get("IVY_GRAD_SHRINK") else
    [Phase.explicit, Phase.reuse, Phase.generate])


def _mn(ops: list[Any]) -> tuple[int, int]:
    return ops[0].shape[-2], ops[0].shape[-1]


# (target, op) -> (applies(operands, attrs), exception type, reason)
FRAMEWORK_GAPS: dict[tuple[str, str], tuple[Any, type, str]] = {
    ("jax", "svd"): (lambda ops, at: at["full_matrices"] and _mn(ops)[0] != _mn(ops)[1],
                     NotImplementedError,
                     "jax has no SVD JVP for full_matrices=True on non-square input"),
    ("tensorflow", "svd"): (lambda ops, at: at["full_matrices"]
                            and abs(_mn(ops)[0] - _mn(ops)[1]) > 1, NotImplementedError,
                            "TF has no SVD gradient for full_matrices=True, |m - n| > 1"),
    ("torch", "qr"): (lambda ops, at: at["mode"] == "complete" and _mn(ops)[0] > _mn(ops)[1],
                      RuntimeError, "torch: QR not differentiable for mode='complete', m > n"),
    ("tensorflow", "qr"): (lambda ops, at: at["mode"] == "complete"
                           and _mn(ops)[0] > _mn(ops)[1], NotImplementedError,
                           "TF has no QR gradient for full_matrices=True, m > n"),
}

FRAMEWORK_GAPS_OPS = {name for _, name in FRAMEWORK_GAPS}


def _seq(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (list, tuple)) else [out]


class Loss:
    """The weighted sum of one example's loss terms, evaluable on any target's arrays."""

    def __init__(self, name: str, attrs: dict[str, Any], compiled: Any, outs: list[Any],
                 rng: Any):
        self.name, self.attrs = name, attrs
        self.kinds = ["float" if t.dtype in FLOATS else "complex" if t.dtype in COMPLEX
                      else None for t in compiled.ir_module.outputs]
        self.weights = [rng.standard_normal(np.shape(t)) for t in self.terms(outs)]

    def terms(self, outs: list[Any]) -> list[Any]:
        kept = [abs(o + OFFSET) ** 2 if k == "complex" else o
                for o, k in zip(outs, self.kinds) if k]
        return loss_terms(self.name, kept, self.attrs)

    def __call__(self, outs: Any, total: Any, const: Any) -> Any:
        parts = [total(t * const(w, t)) for t, w in zip(self.terms(_seq(outs)), self.weights)]
        return sum(parts[1:], parts[0]) if parts else None


def finite_differences(f: Any, flat: list[Any], i: int, symmetric: bool) -> np.ndarray:
    """Central differences of f(*flat) in flat[i]; along E_jk + E_kj when symmetric
    (giving the symmetric part of the gradient)."""
    x = flat[i]
    g = np.zeros(x.shape)

    def probe(cells: list[tuple[int, ...]]) -> float:
        xp, xm = x.copy(), x.copy()
        for cell in cells:
            h = EPS * max(1.0, abs(float(x[cell])))
            xp[cell], xm[cell] = x[cell] + h, x[cell] - h
        step = float(xp[cells[0]]) - float(xm[cells[0]])
        args_p, args_m = list(flat), list(flat)
        args_p[i], args_m[i] = xp, xm
        return (f(*args_p) - f(*args_m)) / step

    if symmetric:
        for b in np.ndindex(x.shape[:-2]):
            n = x.shape[-1]
            for j in range(n):
                for k in range(j, n):
                    d = probe([b + (j, k)] + ([b + (k, j)] if k != j else []))
                    g[b + (j, k)] = g[b + (k, j)] = d if j == k else d / 2
    else:
        for cell in np.ndindex(x.shape):
            g[cell] = probe([cell])
    return g


def _describe(name: str, flat: list[Any], attrs: dict[str, Any]) -> str:
    ins = "; ".join(f"in{i} {a.dtype}{list(a.shape)}" + (
        f" = {np.array2string(np.asarray(a), precision=4)}" if np.size(a) <= 12 else "")
        for i, a in enumerate(flat))
    return f"ivy.{name} attrs={attrs} inputs: {ins}"


@pytest.mark.parametrize("name", OPS)
@SETTINGS
@given(data=st.data())
def test_gradient(name: str, data: Any) -> None:
    operands, attrs, rng = prepare(name, data)
    flat, _ = flatten(name, operands)
    diff = diff_inputs(name, operands)
    assert diff, f"{name}: no float operand to differentiate"
    ref, _ = compile_op(name, operands, attrs, "numpy")
    loss = Loss(name, attrs, ref, as_list(ref(*flat)), rng)

    def f_np(*xs: Any) -> float:
        out = loss(as_list(ref(*xs)), np.sum, lambda w, t: w)
        return 0.0 if out is None else float(out)

    loss_value = f_np(*flat)
    sym = name in SYMMETRIC
    want = [finite_differences(f_np, flat, i, sym and k == 0) for k, i in enumerate(diff)]
    problems, got = [], {}
    for target in TARGETS:
        gap = FRAMEWORK_GAPS.get((target, name))
        try:
            compiled, _ = compile_op(name, operands, attrs, target)
            if gap and gap[0](operands, attrs):
                with pytest.raises(gap[1]):
                    GRAD[target](compiled, flat, diff, loss)
                continue
            got[target] = GRAD[target](compiled, flat, diff, loss)
        except Exception as e:  # noqa: BLE001  (every target is tried; all failures reported)
            problems.append(f"{target}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    for target, grads in got.items():
        if sym:
            grads = [symmetric_part(g) if k == 0 else g for k, g in enumerate(grads)]
            got[target] = grads
        for k, (g, w) in enumerate(zip(grads, want)):
            bad = close(g, w, "fd", loss_value)
            if bad:
                problems.append(f"{target} vs finite differences, d/d in{diff[k]}: {bad}")
    done = list(got)
    for a, b in zip(done, done[1:]):
        for k, (ga, gb) in enumerate(zip(got[a], got[b])):
            bad = close(gb, ga, "cross", loss_value)
            if bad:
                problems.append(f"{b} vs {a}, d/d in{diff[k]}: {bad}")
    assert not problems, _describe(name, flat, attrs) + "\n" + "\n".join(problems)


@pytest.mark.parametrize("key", sorted(FRAMEWORK_GAPS), ids="-".join)
def test_framework_gap(key: tuple[str, str]) -> None:
    """Documents each framework limitation (xfail, strict: it raises the listed error)."""
    target, name = key
    applies, exc, reason = FRAMEWORK_GAPS[key]
    x = np.random.default_rng(0).standard_normal((5, 2))
    attrs = {"svd": {"full_matrices": True}, "qr": {"mode": "complete"}}[name]
    assert applies([x], attrs)
    compiled, _ = compile_op(name, [x], attrs, target)
    loss = Loss(name, attrs, compiled, as_list(compile_op(name, [x], attrs, "numpy")[0](x)),
                np.random.default_rng(1))
    try:
        GRAD[target](compiled, [x], [0], loss)
    except exc:
        pytest.xfail(reason)
    pytest.fail(f"{target} now differentiates {name} here: drop the FRAMEWORK_GAPS entry")


def test_every_differentiable_op_is_covered() -> None:
    """Every op not tagged `nondiff` gets a gradient test (one test id per op)."""
    untagged = {n for n, s in SPECS.items() if not s.has("nondiff")} - CONTROL  # see
    # tests/test_control_flow.py and the importers' control-flow tests for those
    assert sorted(untagged - set(OPS)) == [], "ops without nondiff tag but no float operand"
    assert sorted(set(OPS) - set(CASES)) == [], "differentiable ops without an input draw"
    assert sorted(set(FRAMEWORK_GAPS_OPS) - set(OPS)) == []
