"""Passes inside control-flow regions, and the control-flow rules of `canonicalize`.

Each case is a small program with `ivy.cond`/`ivy.while_loop`/`ivy.scan`, a pipeline,
and FileCheck directives the optimized IR must match (run through the `filecheck`
binary lit uses); the program must also compute the same outputs before and after, on
random inputs drawn from its signature, through the NumPy lowering (and, for one
program using every rewrite, on all four targets). Bodies are isolated from above, so
besides the rewrite itself each case checks that the result verifies and survives
print -> parse -> print.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import ivy_ir
from ivy_ir.passes import run_pipeline

FILECHECK = str(Path(sys.executable).parent / "filecheck")

COND = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %p = {pred}
  %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a : tensor<3xf32>) {{
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  }} orelse(%a : tensor<3xf32>) {{
    %c = ivy.{other} %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %c : tensor<3xf32>
  }}
  func.return %r : tensor<3xf32>
}}"""

COND_DEAD = """func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<2xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r, %q, %e = ivy.cond %p, %x, %y : (tensor<i1>, tensor<3xf32>, tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) then(%a : tensor<3xf32>, %b : tensor<2xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    %t = ivy.exp %b : (tensor<2xf32>) -> tensor<2xf32>
    ivy.yield %s, %t, %a : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
  } orelse(%a : tensor<3xf32>, %b : tensor<2xf32>) {
    ivy.yield %a, %b, %a : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
  }
  func.return %r, %e : tensor<3xf32>, tensor<3xf32>
}"""

LOOP_CARRY = ("%x, %w, %z, %d0 : (tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<f32>) -> "
              "(tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<f32>)")
LOOP_ARGS = "(%b: tensor<3xf32>, %u: tensor<3xf32>, %j: tensor<i32>, %f: tensor<f32>)"
WHILE = """func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {{
  %z = ivy.constant {{value = dense<0> : tensor<i32>}} : () -> tensor<i32>
  %d0 = ivy.constant {{value = dense<1.5> : tensor<f32>}} : () -> tensor<f32>
  %r, %ww, %k, %d = ivy.while_loop {carry} cond{args} {{
    {test}
    ivy.yield %c : tensor<i1>
  }} body{args} {{
    %one = ivy.constant {{value = dense<1> : tensor<i32>}} : () -> tensor<i32>
    %j2 = ivy.add %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %half = ivy.constant {{value = dense<0.5> : tensor<f32>}} : () -> tensor<f32>
    %s = ivy.sin %u : (tensor<3xf32>) -> tensor<3xf32>
    %sh = ivy.multiply %s, %half : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %b2 = ivy.add %b, %sh : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %f2 = ivy.multiply %f, %f : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ivy.yield %b2, %u, %j2, %f2 : tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<f32>
  }}
  func.return %r, %ww : tensor<3xf32>, tensor<3xf32>
}}"""

COUNT = """%n = ivy.constant {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %c = ivy.less %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>"""
NEVER = "%c = ivy.zeros {shape = [], dtype = i1} : () -> tensor<i1>"

SCAN = """func.func @main(%h0: tensor<3xf32>, %g0: tensor<f32>, %w: tensor<3xf32>, %xs: tensor<{n}x3xf32>, %zs: tensor<{n}xf32>) -> (tensor<3xf32>, tensor<{n}x3xf32>) {{
  %h, %g, %v, %ys, %y2 = ivy.scan %h0, %g0, %w, %xs, %zs {{num_carry = 3, length = {n}{attrs}}} : (tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<{n}x3xf32>, tensor<{n}xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<{n}x3xf32>, tensor<{n}xf32>) body(%c: tensor<3xf32>, %d: tensor<f32>, %u: tensor<3xf32>, %t: tensor<3xf32>, %z: tensor<f32>) {{
    %two = ivy.constant {{value = dense<2.0> : tensor<f32>}} : () -> tensor<f32>
    %uw = ivy.multiply %u, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s2 = ivy.add %s, %uw : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %d2 = ivy.add %d, %z : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %e = ivy.tanh %s2 : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %e, %d2, %u, %s, %d2 : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>
  }}
  func.return %h, %ys : tensor<3xf32>, tensor<{n}x3xf32>
}}"""

IN_BODY = """func.func @main(%h0: tensor<2x3xf32>, %xs: tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {{
  %k0 = ivy.constant {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>
  %h, %ys = ivy.scan %h0, %xs {{num_carry = 1, length = 4}} : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {{
{body}
  }}
  func.return %h, %ys : tensor<2x3xf32>, tensor<4x2x3xf32>
}}"""

T23 = "(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>"
# an invariant exp is hoisted; the transpose of it stays next to the matmul reading it
LAYOUT = """func.func @main(%h0: tensor<2x3xf32>, %w: tensor<3x3xf32>, %xs: tensor<4x2x3xf32>) -> tensor<4x2x3xf32> {
  %h, %v, %ys = ivy.scan %h0, %w, %xs {num_carry = 2, length = 4} : (tensor<2x3xf32>, tensor<3x3xf32>, tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>, tensor<4x2x3xf32>) body(%c: tensor<2x3xf32>, %u: tensor<3x3xf32>, %t: tensor<2x3xf32>) {
    %e = ivy.exp %u : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %p = ivy.permute_dims %e {axes = [1, 0]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %m = ivy.matmul %c, %p : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %s = ivy.add %m, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ivy.yield %s, %u, %s : tensor<2x3xf32>, tensor<3x3xf32>, tensor<2x3xf32>
  }
  func.return %ys : tensor<4x2x3xf32>
}"""
CSE_BODY = f"""    %k = ivy.constant {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>
    %a = ivy.add %c, %t : {T23}
    %b = ivy.add %c, %t : {T23}
    %m = ivy.multiply %a, %b : {T23}
    %dead = ivy.sin %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = ivy.add %m, %k : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ivy.yield %m, %y : tensor<2x3xf32>, tensor<2x3xf32>"""
FUSE_BODY = f"""    %a = ivy.add %c, %t : {T23}
    %e = ivy.tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %s = ivy.sum %e {{axis = [1], keepdims = true}} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %m = ivy.multiply %e, %s : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %n = ivy.negative %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ivy.yield %n, %e : tensor<2x3xf32>, tensor<2x3xf32>"""
WRAPPED_BODY = """    %a = ivy.astype %c {dtype = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sm = ivy.softmax %t {axis = 1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = ivy.add %a, %sm : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ivy.yield %y, %sm : tensor<2x3xf32>, tensor<2x3xf32>"""
NO_HOIST = """func.func @main(%x: tensor<3xi32>, %w: tensor<3xi32>) -> tensor<3xi32> {
  %s, %v = ivy.scan %x, %w {num_carry = 2, length = 3} : (tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) body(%b: tensor<3xi32>, %u: tensor<3xi32>) {
    %q = ivy.floor_divide %u, %u : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %n = ivy.add %b, %q : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    ivy.yield %n, %u : tensor<3xi32>, tensor<3xi32>
  }
  func.return %s : tensor<3xi32>
}"""
NOT_FOLDED = """func.func @main() -> (tensor<f32>, tensor<3x2xf32>) {
  %x = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %r = ivy.while_loop %x : (tensor<f32>) -> tensor<f32> cond(%a : tensor<f32>) {
    %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %c = ivy.less %a, %one : (tensor<f32>, tensor<f32>) -> tensor<i1>
    ivy.yield %c : tensor<i1>
  } body(%a : tensor<f32>) {
    %two = ivy.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %three = ivy.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
    %six = ivy.multiply %two, %three : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %b = ivy.add %a, %six : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ivy.yield %b : tensor<f32>
  }
  %ys = ivy.scan {num_carry = 0, length = 3, reverse = false} : () -> tensor<3x2xf32> body() {
    %z = ivy.ones {shape = [2]} : () -> tensor<2xf32>
    ivy.yield %z : tensor<2xf32>
  }
  %e = ivy.exp %ys : (tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %r, %e : tensor<f32>, tensor<3x2xf32>
}"""

CASES: dict[str, tuple[str, str, str]] = {
    # name: (program, pipeline, FileCheck directives on the result)
    "cond on true": (COND.format(pred="ivy.constant {value = dense<true> : tensor<i1>} "
                                      ": () -> tensor<i1>", other="cos"), "canonicalize",
                     "CHECK-NOT: ivy.cond\nCHECK: ivy.sin %x\nCHECK-NOT: ivy.cos"),
    "cond on false": (COND.format(pred="ivy.zeros {shape = [], dtype = i1} : () -> tensor<i1>",
                                  other="cos"), "canonicalize",
                      "CHECK-NOT: ivy.cond\nCHECK: ivy.cos %x\nCHECK-NOT: ivy.sin"),
    "cond, same branches": (COND.format(pred="ivy.any %x : (tensor<3xf32>) -> tensor<i1>",
                                        other="sin"),
                            "canonicalize", "CHECK-NOT: ivy.cond\nCHECK: ivy.sin %x"),
    "cond, dead result and input": (
        COND_DEAD, "canonicalize",
        "CHECK: %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> "
        "then(%a: tensor<3xf32>) {\nCHECK-NOT: ivy.exp\nCHECK: orelse(%a_1: tensor<3xf32>)"
        "\nCHECK: func.return %r, %x"),
    "while, constantly false": (
        WHILE.format(carry=LOOP_CARRY, args=LOOP_ARGS, test=NEVER), "canonicalize",
        "CHECK-NOT: ivy.while_loop\nCHECK: func.return %x, %w"),
    "while, invariants and dead carries": (
        WHILE.format(carry=LOOP_CARRY, args=LOOP_ARGS, test=COUNT), "canonicalize",
        "CHECK: %s = ivy.sin %w\nCHECK-NEXT: %sh = ivy.multiply %s, %half\n"
        "CHECK-NEXT: %r, %k, %{{.*}} = ivy.while_loop %x, %z, %sh\n"
        "CHECK: body(%[[B:.*]]: tensor<3xf32>, %[[J:.*]]: tensor<i32>, "
        "%[[SH:.*]]: tensor<3xf32>)\nCHECK-NOT: ivy.sin\n"
        "CHECK: %b2 = ivy.add %[[B]], %[[SH]]\n"
        "CHECK-NEXT: ivy.yield %b2, %j2, %[[SH]]\nCHECK: func.return %r, %w"),
    "scan, invariants and dead carries": (
        SCAN.format(n=4, attrs=", reverse = true"), "canonicalize",
        "CHECK: %uw = ivy.multiply %w, %two\n"
        "CHECK-NEXT: %h, %{{.*}}, %ys = ivy.scan %h0, %uw, %xs {num_carry = 2, length = 4, "
        "reverse = true}\nCHECK-SAME: body(%c: tensor<3xf32>, %uw_1: tensor<3xf32>, "
        "%t: tensor<3xf32>)\nCHECK-NOT: ivy.multiply\nCHECK: ivy.yield %e, %uw_1, %s :"),
    "scan of length 1": (
        SCAN.format(n=1, attrs=""), "canonicalize",
        "CHECK-NOT: ivy.scan\nCHECK: ivy.squeeze %xs {axis = [0]}\nCHECK: %s = ivy.add\n"
        "CHECK: %ys = ivy.expand_dims %s {axis = [0]}\nCHECK: func.return %e, %ys"),
    "scan of length 0": (
        SCAN.format(n=0, attrs=""), "canonicalize",
        "CHECK-NOT: ivy.scan\nCHECK: %ys = ivy.zeros {shape = [0, 3]}\n"
        "CHECK: func.return %h0, %ys"),
    "a loop used only for an echo": (
        NO_HOIST.replace("floor_divide", "add").replace("func.return %s", "func.return %v"),
        "canonicalize", "CHECK-NOT: ivy.scan\nCHECK: func.return %w"),
    "no hoisting of what may raise": (
        NO_HOIST, "canonicalize",
        "CHECK: ivy.scan %x, %w {num_carry = 2, length = 3}\n"
        "CHECK: ivy.floor_divide %u, %u"),
    "region ops are not constant folded": (
        NOT_FOLDED, "canonicalize",
        "CHECK: ivy.while_loop %x\nCHECK: %six = ivy.constant {value = dense<6.000000e+00>"
        "\nCHECK: ivy.scan {num_carry = 0, length = 3} :\nCHECK: ivy.exp %ys"),
    "cse and dce in a body": (
        IN_BODY.format(body=CSE_BODY), "cse,dce",
        "CHECK: body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {\n"
        "CHECK-NEXT: %k = ivy.constant\nCHECK-NEXT: %a = ivy.add %c, %t\n"
        "CHECK-NEXT: %m = ivy.multiply %a, %a\nCHECK-NEXT: %y = ivy.add %m, %k\n"
        "CHECK-NEXT: ivy.yield %m, %y"),
    "fuse-elementwise in a body": (
        IN_BODY.format(body=FUSE_BODY), "fuse-elementwise",
        "CHECK: ivy.scan\nCHECK: ivy.fused (%c_1 = %c, %t_1 = %t)\nCHECK: ivy.add\n"
        "CHECK-NEXT: ivy.tanh\nCHECK: ivy.sum\nCHECK: ivy.fused\nCHECK-NEXT: ivy.multiply\n"
        "CHECK-NEXT: ivy.negative\nCHECK: ivy.yield"),
    "strip-wrappers and decompose in a body": (
        IN_BODY.format(body=WRAPPED_BODY), "strip-wrappers,decompose",
        "CHECK: body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>)\nCHECK-NOT: ivy.astype\n"
        "CHECK-NOT: ivy.softmax\nCHECK: ivy.exp\nCHECK: ivy.add %c,"),
    "recompose in a body": (
        IN_BODY.format(body=WRAPPED_BODY), "decompose,recompose",
        "CHECK: body(\nCHECK: ivy.softmax %t :\nCHECK-NOT: ivy.exp"),
    "layout ops stay by their users": (
        LAYOUT, "canonicalize",
        "CHECK: ivy.exp %w\nCHECK: ivy.scan\nCHECK-NOT: ivy.exp\nCHECK: ivy.permute_dims\n"
        "CHECK-NEXT: ivy.matmul"),
    "default pipeline": (
        WHILE.format(carry=LOOP_CARRY, args=LOOP_ARGS, test=COUNT), "default",
        "CHECK: ivy.sin %w\nCHECK: ivy.while_loop"),
}


def filecheck(text: str, directives: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("".join(f"// {line}\n" for line in directives.splitlines()))
    out = subprocess.run([FILECHECK, f.name], input=text, capture_output=True, text=True)
    Path(f.name).unlink()
    assert out.returncode == 0, f"{out.stderr}\n--- IR:\n{text}"


def random_inputs(module: ivy_ir.Module, seed: int) -> list[np.ndarray]:
    """Arrays for the entry function's arguments: floats in [-2, 2], small ints, bools."""
    rng = np.random.default_rng(seed)
    out = []
    for s in module.inputs:
        if s.dtype.startswith("float"):
            out.append(rng.uniform(-2, 2, s.shape).astype(s.dtype))
        elif s.dtype == "bool":
            out.append(rng.random(s.shape) < 0.5)
        else:  # nonzero: divisors in the programs above
            out.append(rng.choice([-3, -2, -1, 1, 2, 3], s.shape).astype(s.dtype))
    return out


def outputs(module: ivy_ir.Module, inputs: list[np.ndarray], target: str = "numpy"
            ) -> list[np.ndarray]:
    got = ivy_ir.compile(module, target=target, passes="none")(*inputs)
    return [np.asarray(v) for v in (got if isinstance(got, (list, tuple)) else [got])]


def assert_same(want: list[np.ndarray], got: list[np.ndarray], rtol: float = 0.0) -> None:
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert (w.dtype, w.shape) == (g.dtype, g.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", CASES)
def test_pass_in_regions(case: str) -> None:
    program, pipeline, directives = CASES[case]
    before = ivy_ir.parse(program)
    after = run_pipeline(before, pipeline)
    text = after.to_text(locations=False)
    filecheck(text, directives)
    assert str(ivy_ir.parse(str(after))) == str(after)
    for seed in range(3):
        inputs = random_inputs(before, seed)
        assert_same(outputs(before, inputs), outputs(after, inputs), rtol=1e-6)


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_rewritten_loops_agree_on_every_target(target: str) -> None:
    """The canonicalized while loop and scan (hoisted invariants, pruned carries,
    forwarded results) compute on every target what the originals compute on NumPy."""
    for program in (WHILE.format(carry=LOOP_CARRY, args=LOOP_ARGS, test=COUNT),
                    SCAN.format(n=4, attrs=", reverse = true"), COND_DEAD):
        before = ivy_ir.parse(program)
        after = run_pipeline(before, "canonicalize,cse,dce")
        inputs = random_inputs(before, 0)
        assert_same(outputs(before, inputs), outputs(after, inputs, target), rtol=1e-5)


def test_canonicalize_reaches_a_fixpoint() -> None:
    # the rules must not undo each other: a second run changes nothing
    for program, _, _ in CASES.values():
        once = run_pipeline(ivy_ir.parse(program), "canonicalize")
        assert str(run_pipeline(once, "canonicalize")) == str(once)


def test_channels_last_in_a_body() -> None:
    """A conv inside a scan body runs channels-last there, between its own permutes."""
    program = """func.func @main(%x: tensor<2x1x3x5x5xf32>, %w: tensor<3x3x3x3xf32>) -> tensor<2x1x3x5x5xf32> {
  %ys = ivy.scan %x {num_carry = 0, length = 2} : (tensor<2x1x3x5x5xf32>) -> tensor<2x1x3x5x5xf32> body(%t: tensor<1x3x5x5xf32>) {
    %k = ivy.ones {shape = [3, 3, 3, 3]} : () -> tensor<3x3x3x3xf32>
    %y = ivy.conv %t, %k {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<1x3x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x5x5xf32>
    %r = ivy.relu %y : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
    ivy.yield %r : tensor<1x3x5x5xf32>
  }
  func.return %ys : tensor<2x1x3x5x5xf32>
}"""
    before = ivy_ir.parse(program)
    after = run_pipeline(before, "channels-last")
    filecheck(after.to_text(locations=False),
              "CHECK: ivy.scan\nCHECK: ivy.permute_dims %t\n"
              "CHECK: ivy.conv {{.*}}layout = \"channels_last\"")
    inputs = random_inputs(before, 0)
    assert_same(outputs(before, inputs), outputs(after, inputs), rtol=1e-5)
