"""`fuse-elementwise`, `ivy.fused` and its emission on every target.

The claim is exactness: a fused program computes bit for bit what the unfused one
computes, on every target, gradients included (torch's in-place expressions, the
statements NumPy/JAX/TF splice in). Unfused torch code comes from the torch target with
its lowering-time fusion switched off.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ivy
import ivy.ops
import ivy_ir
from ivy_ir.dialect import SPECS, FusedOp, Ivy
from ivy_ir.passes import IVY_PASSES, PRESETS, available_passes, run_pipeline
from lowerings import TARGETS, get_target

RNG = np.random.default_rng(0)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _escape(x, w):  # a member used outside the group (by matmul)
    a = ivy.exp(x)
    return ivy.negative(a) + x, ivy.matmul(a, w)


PROGRAMS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "chain": (lambda x, y: ivy.tanh(x * y + 1.0), (_f32(4, 8), _f32(8))),
    "escape": (_escape, (_f32(4, 4), _f32(4, 4))),
    # results autograd keeps (exp, tanh, sigmoid, sqrt) must not be overwritten
    "saved": (lambda x: ivy.exp(x) * 2.0 + ivy.tanh(x) * ivy.sigmoid(x)
              - ivy.sqrt(ivy.abs(x) + 1.0), (_f32(3, 5),)),
    # composite ops in the body (NumPy decomposes them inside the fused body)
    "activations": (lambda x: ivy.gelu(ivy.silu(x) * 0.5 + x), (_f32(2, 6),)),
    "ints": (lambda i, j: ivy.remainder(i * j + 3, 7) // 2 - ivy.abs(i),
             (RNG.integers(-9, 9, (3, 4), dtype=np.int32),
              RNG.integers(1, 9, (4,), dtype=np.int32))),
    "masks": (lambda x: ivy.astype(ivy.where(x > 0, x, x * 0.1), dtype="float64") * 3.0,
              (_f32(5, 2),)),
    "zero_d": (lambda x, y: ivy.exp(x - y) * y, (np.float32(0.5), np.float32(-2.0))),
    "empty": (lambda x: ivy.log1p(ivy.square(x)) + x, (np.zeros((0, 3), np.float32),)),
    "nan_inf": (lambda x: ivy.log(x) / x + ivy.sqrt(x), (np.array([-1, 0, 2, np.inf],
                                                                    np.float32),)),
}


@pytest.fixture
def unfused_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The torch target with its lowering-time fusion switched off (the reference)."""
    import lowerings.torch as torch_target

    monkeypatch.setattr(torch_target, "TARGET",
                        dataclasses.replace(torch_target.TARGET, fuse_elementwise=False))


def _numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu()
    return np.asarray(value)


def _outputs(module: ivy_ir.Module, target: str, args: tuple[np.ndarray, ...]) -> list[Any]:
    out = ivy_ir.lower(module, target)(*args)
    return [_numpy(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.fixture(scope="module")
def traced() -> dict[str, tuple[ivy_ir.Module, ivy_ir.Module]]:
    """name -> (traced module, the same after fuse-elementwise)."""
    out = {}
    for name, (fn, args) in PROGRAMS.items():
        module = ivy_ir.trace(fn, args)
        out[name] = module, run_pipeline(module, "fuse-elementwise")
    return out


def test_every_program_has_a_fused_group(traced):
    for name, (_, fused) in traced.items():
        assert any(isinstance(o, FusedOp) for o in fused.entry.walk()), name
        again = ivy_ir.parse(str(fused))
        assert str(again) == str(fused), name


@pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")  # nan_inf, on purpose
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", PROGRAMS)
def test_fused_program_is_exact_on_every_target(target, name, traced, unfused_torch):
    plain, fused = traced[name]
    args = PROGRAMS[name][1]
    want, got = _outputs(plain, target, args), _outputs(fused, target, args)
    for w, g in zip(want, got, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # NaN positions must match too


def _body(source: str) -> str:
    """The generated function with each hoisted constant's name replaced by its
    definition (a fused group hoists its constants in another order)."""
    head, body = source.split("def main", 1)
    consts = dict(line.split(" = ", 1) for line in head.splitlines() if " = " in line)
    return re.sub(r"\b\w+\b", lambda m: consts.get(m[0], m[0]), body)


@pytest.mark.parametrize("target", ["numpy", "jax", "tensorflow"])
def test_statement_targets_splice_the_body(target, traced):
    """NumPy, JAX and TF emit a group's ops one statement each: the very same code as
    unfused (XLA fuses the statements; NumPy chains them into one buffer)."""
    for name, (plain, fused) in traced.items():
        want, got = ivy_ir.lower(plain, target).source, ivy_ir.lower(fused, target).source
        assert _body(got) == _body(want), name
    if target == "numpy":
        assert "out=" in ivy_ir.lower(traced["chain"][1], "numpy").source


def test_torch_emits_one_in_place_expression(traced, unfused_torch):
    source = ivy_ir.lower(traced["chain"][1], "torch").source
    body = source[source.index("def main"):]
    assert "torch.multiply(x, y).add_(const).tanh_()" in body, body
    saved = ivy_ir.lower(traced["saved"][1], "torch").source
    assert "torch.multiply(torch.exp(x), const).add_(" in saved, saved
    for kept in ("exp", "tanh", "sigmoid", "sqrt"):  # their results are never overwritten
        assert not re.search(rf"(torch\.{kept}\(\w+\)|\.{kept}_\(\))\.\w+_\(", saved), saved


def test_torch_lowering_fuses_unless_torch_compile(traced):
    plain = traced["chain"][0]
    assert ".add_(" in ivy_ir.lower(plain, "torch").source
    compiled = ivy_ir.lower(plain, "torch", torch_compile=True)  # compiles lazily, at a call
    assert "_(" not in compiled.source and "torch.tanh(" in compiled.source
    assert get_target("torch").fuses({}) and not get_target("torch").fuses(
        {"torch_compile": True})
    assert not any(get_target(t).fuses({}) for t in ("numpy", "jax", "tensorflow"))


def test_composites_decompose_inside_a_fused_body():
    """A lowering expands composite ops it has no rule for inside the fused body (the
    expansion stays elementwise, plus the scalar constants it needs), and computes what
    the same expansion does outside a group (NumPy's own kernel of an op, np.cbrt, may
    round otherwise than its expansion)."""
    from ivy_ir.dialect import COMPOSITE, ELEMENTWISE

    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    bits = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)  # population_count's integers
    for op in sorted(ELEMENTWISE & COMPOSITE):
        fn = getattr(ivy.ops, op)
        args = (bits,) if SPECS[op].operands[0].dtype_class == "int" else (x,)
        module = ivy_ir.trace(lambda a, fn=fn: fn(a * 2) + a, args)
        expanded = run_pipeline(module, "fuse-elementwise,decompose")  # verified after each
        body = next(o for o in expanded.entry.walk() if isinstance(o, FusedOp))
        assert all(o.name != f"ivy.{op}" for o in body.walk()), op
        np.testing.assert_array_equal(_outputs(expanded, "numpy", args)[0],
                                      _outputs(run_pipeline(module, "decompose"), "numpy",
                                               args)[0])


def test_a_group_nobody_reads_is_left_for_dce():
    text = """func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = ivy.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
  func.return %x : tensor<3xf32>
}"""
    fused = run_pipeline(ivy_ir.parse(text), "fuse-elementwise")
    assert "ivy.fused" not in str(fused) and "ivy.sin" in str(fused)


# ---- gradients: float64 programs, a fixed random-weighted sum as the loss ----

GRAD_PROGRAMS = ("chain", "escape", "saved", "activations", "masks")


def _grad_args(name: str) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(a, np.float64) for a in PROGRAMS[name][1])


@pytest.fixture(scope="module")
def traced64() -> dict[str, tuple[ivy_ir.Module, ivy_ir.Module]]:
    out = {}
    for name in GRAD_PROGRAMS:
        module = ivy_ir.trace(PROGRAMS[name][0], _grad_args(name))
        out[name] = module, run_pipeline(module, "fuse-elementwise")
    return out


def _torch_grads(module: ivy_ir.Module, args: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    import torch

    xs = [torch.tensor(a, requires_grad=True) for a in args]
    outs = ivy_ir.lower(module, "torch")(*xs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    loss = sum((o * torch.linspace(-1, 2, o.numel(), dtype=o.dtype).reshape(o.shape)).sum()
               for o in outs)
    loss.backward()
    return [x.grad.numpy() for x in xs]


def _jax_grads(module: ivy_ir.Module, args: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    import jax
    import jax.numpy as jnp

    c = ivy_ir.lower(module, "jax")

    def loss(*xs):
        outs = c.apply(c.params, *xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum((o * jnp.linspace(-1, 2, o.size, dtype=o.dtype).reshape(o.shape)).sum()
                   for o in outs)
    return [np.asarray(g) for g in jax.grad(loss, argnums=tuple(range(len(args))))(*args)]


def _tf_grads(module: ivy_ir.Module, args: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    import tensorflow as tf

    c = ivy_ir.lower(module, "tensorflow")
    xs = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        outs = c(*xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        loss = sum(tf.reduce_sum(o * tf.reshape(tf.linspace(tf.constant(-1.0, o.dtype), 2.0,
                                                            tf.size(o)), o.shape))
                   for o in outs)
    return [g.numpy() for g in tape.gradient(loss, xs)]


GRADS = {"torch": _torch_grads, "jax": _jax_grads, "tensorflow": _tf_grads}


@pytest.mark.parametrize("target", GRADS)
@pytest.mark.parametrize("name", GRAD_PROGRAMS)
def test_gradients_through_a_fused_program_match(target, name, traced64, unfused_torch):
    plain, fused = traced64[name]
    args = _grad_args(name)
    want, got = GRADS[target](plain, args), GRADS[target](fused, args)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)


# ---- torch in-place forms, op by op ----

def _inplace_case(op: str) -> tuple[Callable[..., Any], tuple[np.ndarray, ...]] | None:
    """t = producer(a, a) (a fresh tensor), then op(t, b): op may update t in place."""
    spec = SPECS[op]
    cls = spec.operands[0].dtype_class
    if cls in ("float", "inexact", "real", "num", "any"):
        a = RNG.uniform(0.2, 0.45, (3, 4))
        b = RNG.uniform(0.5, 2.0, (4,))
        producer = ivy.add
    elif cls in ("int", "intbool"):
        a = RNG.integers(1, 4, (3, 4), dtype=np.int64)
        b = RNG.integers(1, 3, (4,), dtype=np.int64)
        producer = ivy.add
    else:
        a = RNG.integers(0, 2, (3, 4)).astype(bool)
        b = RNG.integers(0, 2, (4,)).astype(bool)
        producer = ivy.logical_xor
    fn = getattr(ivy.ops, op)
    if len(spec.operands) == 1:
        return (lambda x: fn(producer(x, x))), (a,)
    return (lambda x, y: fn(producer(x, x), y)), (a, b)


@pytest.mark.parametrize("op", sorted(get_target("torch").inplace_methods))
def test_each_torch_in_place_form_is_exact(op, unfused_torch):
    fn, args = _inplace_case(op)
    module = ivy_ir.trace(fn, args)
    fused = run_pipeline(module, "fuse-elementwise")
    c = ivy_ir.lower(fused, "torch")
    same_type = module.outputs[0].dtype == module.inputs[0].dtype
    assert (f".{get_target('torch').inplace_methods[op]}(" in c.source) == same_type, c.source
    np.testing.assert_array_equal(_numpy(c(*args)), _outputs(module, "torch", args)[0])
    if module.outputs[0].dtype == "float64" and not SPECS[op].has("nondiff"):
        for g, w in zip(_torch_grads(fused, args), _torch_grads(module, args), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)


_CONV = {"strides": [1], "padding": [1, 1], "dilations": [1]}
FRESH_CASES = {
    "linear": (lambda x, w: ivy.ops.linear(x, w), ((3, 4), (5, 4))),
    "matmul": (lambda x, w: ivy.ops.matmul(x, w), ((3, 4), (4, 5))),
    "conv": (lambda x, w: ivy.ops.conv(x, w, **_CONV), ((2, 3, 6), (4, 3, 3))),
    "conv_transpose": (lambda x, w: ivy.ops.conv_transpose(x, w, output_padding=[0], **_CONV),
                       ((2, 3, 6), (3, 4, 3))),
}


def _fresh_args(op: str) -> tuple[np.ndarray, ...]:
    return tuple(RNG.standard_normal(shape) for shape in FRESH_CASES[op][1])


@pytest.mark.parametrize("op", sorted(get_target("torch").fresh_ops))
def test_an_activation_after_a_product_runs_in_place_and_keeps_gradients(op):
    """`v = F.linear(...)` then `v = v.relu_()` (and `v.add_(c)` for `add(c, v)`): the
    values and gradients of the NumPy target and JAX's autodiff."""
    import jax

    product, _ = FRESH_CASES[op]
    args = _fresh_args(op)
    for fn, method in ((lambda x, w: ivy.ops.relu(product(x, w)), ".relu_()"),
                       (lambda x, w: ivy.ops.add(x.sum(), product(x, w)), ".add_(")):
        module = ivy_ir.trace(fn, args)
        source = ivy_ir.lower(module, "torch").source
        assert method in source, source
        np.testing.assert_allclose(_outputs(module, "torch", args)[0],
                                   _outputs(module, "numpy", args)[0], rtol=1e-13, atol=1e-13)
        with jax.enable_x64(True):
            want = _jax_grads(module, args)
        for g, w in zip(_torch_grads(module, args), want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)


def test_a_product_read_twice_is_not_overwritten():
    args = _fresh_args("linear")
    module = ivy_ir.trace(lambda x, w: ivy.ops.relu(ivy.ops.linear(x, w))
                          + ivy.ops.linear(x, w) * 0 + ivy.ops.linear(x, w), args)
    module = run_pipeline(module, "cse")  # one linear, read by relu and by the sum
    source = ivy_ir.lower(module, "torch").source
    assert source.count("F.linear(") == 1 and "relu_" not in source, source
    np.testing.assert_allclose(_outputs(module, "torch", args)[0],
                               _outputs(module, "numpy", args)[0], rtol=1e-13, atol=1e-13)


def test_saves_result_lists_exactly_the_ops_autograd_keeps_the_result_of():
    """Overwriting the result of an op outside `saves_result` must leave backward
    working; every listed op really keeps its result (the list is not a guess)."""
    import torch

    target = get_target("torch")
    for op, method in target.inplace_methods.items():
        if SPECS[op].has("nondiff") or SPECS[op].operands[0].dtype_class not in (
                "float", "inexact", "real", "num", "any"):
            continue
        call = getattr(torch, method[:-1])
        x = torch.tensor([0.3, 0.6, 0.9], dtype=torch.float64, requires_grad=True)
        y = torch.tensor([0.5, 1.5, 2.0], dtype=torch.float64, requires_grad=True)
        result = call(x, y) if len(SPECS[op].operands) == 2 else call(x)
        result.add_(1.0)
        if op in target.saves_result:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                result.sum().backward()
        else:
            result.sum().backward()


# ---- the op, the registry and the pipeline ----

def test_fused_ops_are_structural_not_registry_ops():
    assert "fused" not in ivy_ir.list_ops() and "yield" not in ivy_ir.list_ops()
    assert {"ivy.fused", "ivy.yield"} <= {op.name for op in Ivy.operations}


def test_a_malformed_fused_body_is_an_error_naming_its_location():
    text = """func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = ivy.fused (%a = %x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
    %h = ivy.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("m.py":3:4)
    ivy.yield %h : tensor<4x4xf32>
  } loc("m.py":4:1)
  func.return %y : tensor<4x4xf32>
}"""
    with pytest.raises(ivy_ir.IRError, match="m.py:4:1: ivy.fused: body op ivy.matmul at "
                                             "m.py:3:4 is not elementwise"):
        ivy_ir.parse(text)


def test_default_preset_names_registered_passes_only():
    passes = PRESETS["default"].split(",")
    assert set(passes) <= set(available_passes())
    assert "fuse-elementwise" in IVY_PASSES and "fuse-elementwise" not in passes
    timings: dict[str, float] = {}
    module = ivy_ir.trace(*PROGRAMS["chain"])
    run_pipeline(module, "default,fuse-elementwise".replace("default", PRESETS["default"]),
                 timings=timings)
    assert set(timings) == set(passes) | {"fuse-elementwise"}


def test_ivy_opt_presets_ir_after_all_and_timings(tmp_path: Path):
    path = tmp_path / "in.mlir"
    path.write_text(str(ivy_ir.trace(*PROGRAMS["chain"])))
    ivy_opt = Path(sys.executable).with_name("ivy-opt")
    proc = subprocess.run([str(ivy_opt), str(path), "-p", "default,fuse-elementwise",
                           "--print-ir-after-all", "--time-passes"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ivy.fused") == 1 and "IR after" not in proc.stdout
    for name in [*PRESETS["default"].split(","), "fuse-elementwise"]:
        assert f"// -----// IR after {name} //----- //" in proc.stderr
        assert f"ivy-opt: {name} took " in proc.stderr
    after_fuse = proc.stderr.split("IR after fuse-elementwise")[1]
    assert "ivy.fused" in after_fuse


def test_ivy_opt_unknown_pass_is_a_clean_error(tmp_path: Path):
    path = tmp_path / "in.mlir"
    path.write_text(str(ivy_ir.trace(*PROGRAMS["chain"])))
    ivy_opt = Path(sys.executable).with_name("ivy-opt")
    proc = subprocess.run([str(ivy_opt), str(path), "-p", "default,fuse-elementwize"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("ivy-opt: error: Unrecognized passes: ['fuse-elementwize']")
    assert "fuse-elementwise" in proc.stderr and "presets: default, none" in proc.stderr
