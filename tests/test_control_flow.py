"""The control-flow region ops (`ivy.cond`, `ivy.while_loop`, `ivy.scan`): text form,
verifier, building from callables (`ivy_ir.core.control`), every target against a NumPy
reference, and gradients through them on the autodiff targets against finite
differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import ivy_ir
from ivy_ir.core.control import emit_cond, emit_scan, emit_while
from ivy_ir.core.errors import IRError
from ivy_ir.core.graph import Graph
from ivy_ir.core.module import Module
from ivy_ir.dialect import TensorSpec

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
F32 = "tensor<3xf32>"

LOOPS = """
func.func @main(%x: tensor<f32>, %n: tensor<i32>, %xs: tensor<5x3xf32>, %h0: tensor<3xf32>)
    -> (tensor<f32>, tensor<i32>, tensor<3xf32>, tensor<5x3xf32>) {
  %r, %k = ivy.while_loop %x, %n : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  cond(%a: tensor<f32>, %i: tensor<i32>) {
    %z = ivy.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %c = ivy.greater %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    ivy.yield %c : tensor<i1>
  } body(%b: tensor<f32>, %j: tensor<i32>) {
    %one = ivy.constant {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %j2 = ivy.subtract %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %b2 = ivy.cos %b : (tensor<f32>) -> tensor<f32>
    ivy.yield %b2, %j2 : tensor<f32>, tensor<i32>
  }
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 5, reverse = REVERSE}
      : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>)
  body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %u = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %u, %s : tensor<3xf32>, tensor<3xf32>
  }
  func.return %r, %k, %h, %ys : tensor<f32>, tensor<i32>, tensor<3xf32>, tensor<5x3xf32>
}
"""


def _loops_reference(x: float, n: int, xs: np.ndarray, h: np.ndarray, reverse: bool
                     ) -> list[np.ndarray]:
    x = np.float32(x)
    for _ in range(max(n, 0)):
        x = np.cos(x)
    ys = {}
    for i in (reversed(range(len(xs))) if reverse else range(len(xs))):
        s = h + xs[i]
        h, ys[i] = np.tanh(s), s
    return [np.asarray(x), np.asarray(min(n, 0), np.int32), h,
            np.stack([ys[i] for i in range(len(xs))])]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("target", TARGETS)
def test_loops_run_on_every_target(target: str, reverse: bool) -> None:
    module = ivy_ir.parse(LOOPS.replace("REVERSE", str(reverse).lower()))
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    h0 = rng.standard_normal(3).astype(np.float32)
    c = ivy_ir.compile(module, target=target)
    for n in (7, 0, -2):
        args = [np.asarray(0.3, np.float32), np.asarray(n, np.int32), xs, h0]
        got = c(*args)
        for g, want in zip(got, _loops_reference(0.3, n, xs, h0, reverse)):
            np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)


def test_text_round_trips_and_names_regions() -> None:
    module = ivy_ir.parse(LOOPS.replace("REVERSE", "true"))
    assert str(ivy_ir.parse(str(module))) == str(module)  # locations printed too
    text = module.to_text(locations=False)
    assert "cond(%a: tensor<f32>, %i: tensor<i32>) {" in text
    assert "} body(%b: tensor<f32>, %j: tensor<i32>) {" in text
    assert "{num_carry = 1, length = 5, reverse = true}" in text
    assert ivy_ir.parse(text).to_text(locations=False) == text


def _program(pred: str, then: str, orelse: str, yields: str = "tensor<3xf32>",
             arg: str = F32) -> str:
    return f"""
func.func @main(%p: {pred}, %x: {F32}) -> {F32} {{
  %r = ivy.cond %p, %x : ({pred}, {F32}) -> {yields} then(%a: {arg}) {{
    {then}
  }} orelse(%b: {arg}) {{
    {orelse}
  }}
  func.return %r : {F32}
}}"""


BAD = {
    "predicate not 0-d": (_program("tensor<2xi1>", f"ivy.yield %a : {F32}",
                                   f"ivy.yield %b : {F32}"),
                          "the predicate must be 0-d"),
    "branches differ": (_program("tensor<i1>", f"ivy.yield %a : {F32}",
                                 "%c = ivy.sum %b : (tensor<3xf32>) -> tensor<f32>\n"
                                 "ivy.yield %c : tensor<f32>"),
                        "the branches yield different types"),
    "region arguments": (_program("tensor<i1>", "ivy.yield %a : tensor<3xf64>",
                                  "ivy.yield %b : tensor<3xf64>", arg="tensor<3xf64>"),
                         "region 'then' takes (tensor<3xf64>) but the inputs are (tensor<3xf32>)"),
    "no yield": (_program("tensor<i1>", "%c = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>",
                          f"ivy.yield %b : {F32}"),
                 "ivy.sin terminates block in single-block region but is not a terminator"),
    "reads from outside": (_program("tensor<i1>", f"ivy.yield %x : {F32}",
                                    f"ivy.yield %b : {F32}"),
                           "%x"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_verifier_refuses(case: str) -> None:
    text, message = BAD[case]
    with pytest.raises(IRError) as info:
        ivy_ir.parse(text)
    assert message in str(info.value)


def test_while_and_scan_verifier_messages() -> None:
    loops = LOOPS.replace("REVERSE", "false")
    cases = {
        loops.replace("ivy.yield %c : tensor<i1>", "ivy.yield %i : tensor<i32>"):
            "region 'cond' must yield one 0-d bool",
        loops.replace("ivy.yield %b2, %j2 : tensor<f32>, tensor<i32>",
                      "ivy.yield %j2, %j2 : tensor<i32>, tensor<i32>"):
            "region 'body' yields (tensor<i32>, tensor<i32>) but carries (tensor<f32>, tensor<i32>)",
        loops.replace("length = 5", "length = 4"):
            "has no leading axis of length 4",
        loops.replace("num_carry = 1", "num_carry = 3"): "num_carry = 3 is not in [0, 2]",
    }
    for text, message in cases.items():
        with pytest.raises(IRError) as info:
            ivy_ir.parse(text)
        assert message in str(info.value), str(info.value)


def _built(f64: bool = False) -> Module:
    """h, ys = scan(tanh(h * w + x)) over xs, then cond(sum(h) > 0, h * 2, -h): bodies
    built from callables, with `w` (a value outside) closed over."""
    dtype = "float64" if f64 else "float32"
    block = Block(arg_types=[TensorSpec(s, dtype).to_xdsl() for s in [(3,), (4, 3), (3,)]])
    g = Graph(block)
    h0, xs, w = block.args

    def step(args: list) -> list:
        c, x = args
        s = g.emit("add", [g.emit("multiply", [c, w], {})[0], x], {})[0]
        return [g.emit("tanh", [s], {})[0], s]

    h, ys = emit_scan(g, [h0], [xs], step, length=4)
    zero = g.emit("constant", [], {"value": np.zeros((), dtype)})[0]
    pred = g.emit("greater", [g.emit("sum", [h], {})[0], zero], {})[0]
    (r,) = emit_cond(g, pred, [h], lambda a: [g.emit("add", [a[0], a[0]], {})[0]],
                     lambda a: [g.emit("negative", [a[0]], {})[0]])
    block.add_op(func.ReturnOp(r, ys))
    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type, ys.type]), Region(block))
    return Module(ModuleOp([fn]))


def _built_reference(h: np.ndarray, xs: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    ys = []
    for x in xs:
        s = h * w + x
        h = np.tanh(s)
        ys.append(s)
    return [2 * h if h.sum() > 0 else -h, np.stack(ys)]


@pytest.mark.parametrize("target", TARGETS)
def test_bodies_built_from_callables_close_over_outside_values(target: str) -> None:
    module = _built()
    text = str(module)
    assert text.count("ivy.scan") == 1 and text.count("ivy.cond") == 1
    assert "num_carry = 2" in text  # `w` is carried through the scan unchanged
    c = ivy_ir.compile(module, target=target)
    rng = np.random.default_rng(1)
    for sign in (1, -1):
        xs = (sign * np.abs(rng.standard_normal((4, 3)))).astype(np.float32)
        args = [np.full(3, 0.5 * sign, np.float32), xs, np.full(3, 0.8, np.float32)]
        for g, want in zip(c(*args), _built_reference(*args)):
            np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)


def _loss_grads(target: str, c: Any, args: list[np.ndarray]) -> list[np.ndarray]:
    """d/d(args) of sum(out0 * 1.5) + sum(out1 * 0.25)."""
    if target == "jax":
        import jax
        import jax.numpy as jnp

        def loss(*a: Any) -> Any:
            r, ys = c.apply(c.params, *a)
            return jnp.sum(r * 1.5) + jnp.sum(ys * 0.25)
        with jax.enable_x64(True):
            return [np.asarray(g) for g in jax.grad(loss, argnums=(0, 1, 2))(
                *[jnp.asarray(a) for a in args])]
    if target == "torch":
        import torch
        ts = [torch.tensor(a, requires_grad=True) for a in args]
        r, ys = c(*ts)
        ((r * 1.5).sum() + (ys * 0.25).sum()).backward()
        return [t.grad.numpy() for t in ts]
    import tensorflow as tf
    ts = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        r, ys = c(*ts)
        loss = tf.reduce_sum(r * 1.5) + tf.reduce_sum(ys * 0.25)
    return [g.numpy() for g in tape.gradient(loss, ts)]


@pytest.mark.parametrize("target", ["jax", "torch", "tensorflow"])
def test_gradients_through_scan_and_cond_match_finite_differences(target: str) -> None:
    module = _built(f64=True)
    rng = np.random.default_rng(2)
    args = [rng.uniform(0.1, 0.9, 3), rng.uniform(0.1, 0.9, (4, 3)), rng.uniform(0.2, 0.9, 3)]
    reference = ivy_ir.compile(module, target="numpy")

    def loss(a: list[np.ndarray]) -> float:
        r, ys = reference(*a)
        return float(np.sum(r * 1.5) + np.sum(ys * 0.25))

    got = _loss_grads(target, ivy_ir.compile(module, target=target), args)
    for i, g in enumerate(got):
        fd = np.zeros_like(args[i])
        for j in np.ndindex(args[i].shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[i][j] += 1e-6
            down[i][j] -= 1e-6
            fd[j] = (loss(up) - loss(down)) / 2e-6
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def _newton() -> Module:
    """x_{k+1} = (x_k + a / x_k) / 2 while |x^2 - a| > 1e-10: sqrt(a) by a while loop."""
    block = Block(arg_types=[TensorSpec((), "float64").to_xdsl()])
    g = Graph(block)
    (a,) = block.args
    tol = g.emit("constant", [], {"value": np.asarray(1e-10)})[0]
    half = g.emit("constant", [], {"value": np.asarray(0.5)})[0]

    def going(v: list) -> list:
        err = g.emit("abs", [g.emit("subtract", [g.emit("multiply", [v[0], v[0]], {})[0], a],
                                    {})[0]], {})[0]
        return [g.emit("greater", [err, tol], {})[0]]

    def step(v: list) -> list:
        s = g.emit("add", [v[0], g.emit("divide", [a, v[0]], {})[0]], {})[0]
        return [g.emit("multiply", [s, half], {})[0]]

    (x,) = emit_while(g, [a], going, step)
    block.add_op(func.ReturnOp(x))
    fn = func.FuncOp("main", ([a.type], [x.type]), Region(block))
    return Module(ModuleOp([fn]))


@pytest.mark.parametrize("target", TARGETS)
def test_while_loop_newton_solver(target: str) -> None:
    module = _newton()
    assert str(module).count("ivy.while_loop") == 1
    c = ivy_ir.compile(module, target=target)
    for v in (2.0, 9.0, 1e4):
        np.testing.assert_allclose(np.asarray(c(np.asarray(v))), np.sqrt(v), rtol=1e-10)


def test_scan_of_length_zero_gives_empty_stacks() -> None:
    text = LOOPS.replace("REVERSE", "false").replace("5x3xf32", "0x3xf32").replace(
        "length = 5", "length = 0")
    module = ivy_ir.parse(text)
    for target in TARGETS:
        c = ivy_ir.compile(module, target=target)
        h0 = np.arange(3, dtype=np.float32)
        out = c(np.asarray(1.0, np.float32), np.asarray(1, np.int32),
                np.zeros((0, 3), np.float32), h0)
        np.testing.assert_array_equal(np.asarray(out[2]), h0)
        assert np.asarray(out[3]).shape == (0, 3), target


def test_torch_compile_captures_branches_and_loops() -> None:
    """Under `torch_compile=True`, cond and while_loop go through `torch.cond` and
    `torch.while_loop` (dynamo would break its graph on Python control flow on data),
    including bodies that return an argument unchanged (which torch.cond refuses)."""
    module = ivy_ir.parse(LOOPS.replace("REVERSE", "false"))
    c = ivy_ir.compile(module, target="torch", torch_compile=True)
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    h0 = rng.standard_normal(3).astype(np.float32)
    for n in (7, 0):
        got = c(np.asarray(0.3, np.float32), np.asarray(n, np.int32), xs, h0)
        for g, want in zip(got, _loops_reference(0.3, n, xs, h0, False)):
            np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)
    branch = ivy_ir.compile(ivy_ir.parse(_program("tensor<i1>", f"""
        %s = ivy.sin %a : ({F32}) -> {F32}
        ivy.yield %s : {F32}""", f"ivy.yield %b : {F32}")), target="torch", torch_compile=True)
    x = np.array([0.5, 1.0, 2.0], np.float32)
    np.testing.assert_allclose(np.asarray(branch(np.asarray(True), x)), np.sin(x), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(branch(np.asarray(False), x)), x)
