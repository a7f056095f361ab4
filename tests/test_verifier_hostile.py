"""Hostile and careless IR: the verifier refuses what no target can run, with a message
naming the op, the attribute, the value and the rank, and every target lowers and runs
what it accepts (`hostile_gen.py` draws such programs)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from hostile_gen import USER_ERRORS, cases, run
from op_examples import example_func
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

import ivy_ir
from ivy_ir.core.context import make_context
from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError
from ivy_ir.dialect import OP_CLASSES, SPECS, IvyOp, TensorSpec
from ivy_ir.dialect.infer import InferError


def _ir(body: str, args: str = "%x: tensor<2x3xf32>", result: str = "tensor<2x3xf32>") -> str:
    return f"func.func @main({args}) -> {result} {{\n{body}\n}}\n"


def _parse_error(text: str) -> str:
    with pytest.raises(ivy_ir.IRError) as info:
        ivy_ir.parse(text)
    return str(info.value)


# ---- axes: one check for every attribute that names dimensions ----

AXIS_OPS = sorted(n for n, s in SPECS.items() if s.axis_attrs)


def _with_attr(name: str, attr: str, value: tuple[int, ...] | int) -> IvyOp:
    """`name`'s example op with one axis attribute stored as `value`, unchecked."""
    op = next(o for o in example_func(name).walk() if isinstance(o, IvyOp))
    stored = (DenseArrayBase.from_list(i64, value) if isinstance(value, tuple)
              else IntegerAttr(value, i64))
    return OP_CLASSES[name].create(operands=list(op.operands), result_types=list(op.result_types),
                                   properties={**op.properties, attr: stored})


@pytest.mark.parametrize("name", AXIS_OPS)
def test_every_axis_attribute_is_checked_against_the_rank(name: str) -> None:
    for a in SPECS[name].axis_attrs:
        value = (9,) if a.kind == "axes" else 9
        with pytest.raises(VerifyException, match=rf"ivy\.{name}: axis 9 is out of range "
                                                  rf"for rank \d+ .*'{a.name}'"):
            _with_attr(name, a.name, value).verify()


def test_flip_past_the_rank_is_refused_before_any_target_sees_it() -> None:
    """TensorFlow's `reverse` took axis 2 of a rank-2 tensor as axis 0."""
    text = _ir('  %f = ivy.flip %x {axis = [2]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n'
               '  func.return %f : tensor<2x3xf32>')
    message = _parse_error(text)
    assert "ivy.flip: axis 2 is out of range for rank 2 of operand 'x'" in message
    assert "attribute 'axis' = (2,)" in message


def test_builders_refuse_an_axis_past_the_rank_too() -> None:
    block = Block(arg_types=[TensorSpec((2, 3), "float32").to_xdsl()])
    with pytest.raises(InferError, match=r"ivy\.sort: axis -3 is out of range for rank 2"):
        OP_CLASSES["sort"].build(block.args[0], axis=-3)


@pytest.mark.parametrize("name, attr", [("flip", "axis"), ("sum", "axis"),
                                        ("permute_dims", "axes"), ("layer_norm", "axis")])
def test_a_repeated_axis_is_refused(name: str, attr: str) -> None:
    with pytest.raises(VerifyException, match=rf"ivy\.{name}: .*'{attr}' = \(1, 1\) names a "
                                              "dimension of operand 'x' twice"):
        _with_attr(name, attr, (1, 1)).verify()


def test_roll_may_repeat_an_axis_and_rolls_twice() -> None:
    text = _ir('  %r = ivy.roll %x {shift = [1, 1], axis = [1, 1]} '
               ': (tensor<2x3xf32>) -> tensor<2x3xf32>\n  func.return %r : tensor<2x3xf32>')
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(ivy_ir.lower(ivy_ir.parse(text), "numpy")(x),
                                  np.roll(x, 2, axis=1))


@pytest.mark.parametrize("attrs, message", [
    ("shift = [1], axis = [0, 1]", r"shift \(1,\) needs 2 entries, one per axis of \(0, 1\)"),
    ("shift = [1, 2]", r"shift \(1, 2\) needs 1 entry when the tensor rolls flattened"),
])
def test_roll_needs_one_shift_per_axis(attrs: str, message: str) -> None:
    text = _ir(f'  %r = ivy.roll %x {{{attrs}}} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n'
               '  func.return %r : tensor<2x3xf32>')
    assert _parse_error(text).count("ivy.roll: ") == 1
    with pytest.raises(ivy_ir.IRError, match=message):
        ivy_ir.parse(text)


# ---- attribute values no framework takes ----

_CONV_ARGS = "%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>"


@pytest.mark.parametrize("attrs, message", [
    ("strides = [0, 1], padding = [0, 0, 0, 0], dilations = [1, 1]",
     r"ivy\.conv: strides \(0, 1\) must be >= 1"),
    ("strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 0]",
     r"ivy\.conv: dilations \(1, 0\) must be >= 1"),
    ("strides = [1, 1], padding = [0, -1, 0, 0], dilations = [1, 1]",
     r"ivy\.conv: padding \(0, -1, 0, 0\) must be >= 0"),
    ("strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1], groups = 0",
     r"ivy\.conv: groups 0 must be >= 1"),
])
def test_conv_window_attributes_are_checked(attrs: str, message: str) -> None:
    text = _ir(f"  %y = ivy.conv %x, %w {{{attrs}}} : (tensor<1x2x8x8xf32>, "
               f"tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>\n"
               "  func.return %y : tensor<1x4x6x6xf32>", _CONV_ARGS, "tensor<1x4x6x6xf32>")
    with pytest.raises(ivy_ir.IRError, match=message):
        ivy_ir.parse(text)


@pytest.mark.parametrize("attrs, message", [
    ("kernel = [0, 2], strides = [1, 1], padding = [0, 0, 0, 0]",
     r"ivy\.max_pool: kernel \(0, 2\) must be >= 1"),
    ("kernel = [2, 2], strides = [1, 1], padding = [0, 0, 0, 0], dilations = [0, 1]",
     r"ivy\.max_pool: dilations \(0, 1\) must be >= 1"),
])
def test_pool_window_attributes_are_checked(attrs: str, message: str) -> None:
    text = _ir(f"  %y = ivy.max_pool %x {{{attrs}}} : (tensor<1x2x8x8xf32>) "
               "-> tensor<1x2x7x7xf32>\n  func.return %y : tensor<1x2x7x7xf32>",
               "%x: tensor<1x2x8x8xf32>", "tensor<1x2x7x7xf32>")
    with pytest.raises(ivy_ir.IRError, match=message):
        ivy_ir.parse(text)


def test_conv_transpose_output_padding_must_not_be_negative() -> None:
    text = _ir("  %y = ivy.conv_transpose %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], "
               "output_padding = [-1, 0], dilations = [1, 1]} : (tensor<1x4x4x4xf32>, "
               "tensor<4x2x3x3xf32>) -> tensor<1x2x5x6xf32>\n  func.return %y : "
               "tensor<1x2x5x6xf32>", "%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>",
               "tensor<1x2x5x6xf32>")
    with pytest.raises(ivy_ir.IRError,
                       match=r"ivy\.conv_transpose: output_padding \(-1, 0\) must be >= 0"):
        ivy_ir.parse(text)


@pytest.mark.parametrize("op, attrs, message", [
    ("arange", {"start": 0.0, "stop": -1.0}, "stop -1.0 lies against the direction of step "
     "1.0 from start 0.0"),
    ("random_uniform", {"shape": [2], "low": 1.0, "high": 0.0}, "low 1.0 must not exceed "
     "high 0.0"),
    ("random_normal", {"shape": [2], "std": -1.0}, r"std must be >= 0, got -1\.0"),
    ("split", {"sizes": []}, "sizes must name at least one piece"),
    ("broadcast_to", {"shape": [-2]}, r"shape \(-2,\) has a negative dimension"),
    ("matrix_norm", {"ord": "-2"}, r"ord '-2' of an empty matrix \(shape \(0, 3\)\) has no "
     "value"),
])
def test_attribute_values_no_framework_takes(op: str, attrs: dict, message: str) -> None:
    shape = {"arange": None, "split": (0, 2), "matrix_norm": (0, 3)}.get(op, ())
    operands = [] if shape is None else Block(arg_types=[TensorSpec(
        shape, "int64" if op.startswith("random") else "float32").to_xdsl()]).args
    with pytest.raises(InferError, match=rf"ivy\.{op}: {message}"):
        OP_CLASSES[op].build(*operands, **attrs)


def test_norm_over_a_dynamic_dim_is_refused() -> None:
    """torch's layer_norm and the decompositions take the normalized shape as ints."""
    x = Block(arg_types=[TensorSpec((2, None), "float32").to_xdsl()]).args[0]
    with pytest.raises(InferError, match=r"ivy\.layer_norm: the normalized dims \(1,\) need "
                                         r"static sizes, got \(None,\)"):
        OP_CLASSES["layer_norm"].build(x, None, None)


_DYNAMIC = _ir(
    "  %f = ivy.full_like %x {fill_value = 2.0} : (tensor<2x?xf32>) -> tensor<2x?xf32>\n"
    "  %t = ivy.tile %x {reps = [2, 1, 1]} : (tensor<2x?xf32>) -> tensor<2x2x?xf32>\n"
    "  %e = ivy.expand_dims %x {axis = [0]} : (tensor<2x?xf32>) -> tensor<1x2x?xf32>\n"
    "  func.return %f, %t, %e : tensor<2x?xf32>, tensor<2x2x?xf32>, tensor<1x2x?xf32>",
    "%x: tensor<2x?xf32>", "(tensor<2x?xf32>, tensor<2x2x?xf32>, tensor<1x2x?xf32>)")


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_ops_with_a_dynamic_dim_run_on_every_target(target: str) -> None:
    """The shape of a result with one dynamic dim comes from the input at run time."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = ivy_ir.lower(ivy_ir.parse(_DYNAMIC), target)(x)
    want = (np.full_like(x, 2.0), np.tile(x, (2, 1, 1)), x[None])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_numpy_linalg_in_float16_is_refused_by_name() -> None:
    text = _ir("  %y = ivy.inv %x : (tensor<3x3xf16>) -> tensor<3x3xf16>\n"
               "  func.return %y : tensor<3x3xf16>", "%x: tensor<3x3xf16>", "tensor<3x3xf16>")
    with pytest.raises(LoweringError, match=r"numpy target cannot run (.|\n)*ivy\.inv in float16"):
        ivy_ir.lower(ivy_ir.parse(text), "numpy")


# ---- module structure ----

@pytest.mark.parametrize("text, message", [
    ("builtin.module {\n}\n", "the module has no entry function (no func.func)"),
    ("func.func private @main(%x: tensor<2xf32>) -> tensor<2xf32>\n",
     "function @main is a declaration without a body"),
    (_ir("  %f = ivy.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
         "  func.return %f : tensor<2x3xf32>\n^bb1(%y: tensor<2x3xf32>):\n"
         "  func.return %y : tensor<2x3xf32>"),
     "function @main has 2 blocks; a function body is one block"),
    (_ir('  %g = ivy.exp %f : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("model.py":4:2)\n'
         "  %f = ivy.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
         "  func.return %g : tensor<2x3xf32>"),
     "ivy.exp at model.py:4:2: %f is used before its definition"),
    (_ir("  %f = func.call @main(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
         "  func.return %f : tensor<2x3xf32>"),
     "func.call in function @main: only ivy ops and func.return may appear"),
    (_ir("  func.return %x : tensor<2x3xf32>", result="tensor<2x3xf64>"),
     "func.return: Expected arguments to have the same types"),
])
def test_module_structure_no_target_can_run(text: str, message: str) -> None:
    """`Module.verify` refuses it (xDSL's own verifier lets all of these through), and so
    does `ivy_ir.lower`, which verifies first."""
    module = Module(Parser(make_context(), text).parse_module())
    with pytest.raises(VerifyException) as info:
        module.verify()
    assert message in str(info.value)
    with pytest.raises(ivy_ir.IRError, match="cannot lower a module that does not verify"):
        ivy_ir.lower(module, "numpy")


def test_lower_verifies_first() -> None:
    """IR built in Python (no parser) reaches the verifier before any rule."""
    op = _with_attr("flip", "axis", (2,))
    block = Block(arg_types=[op.operands[0].type])
    op = OP_CLASSES["flip"].create(operands=[block.args[0]], result_types=list(op.result_types),
                                   properties=dict(op.properties))
    block.add_ops([op, func.ReturnOp(op.results[0])])
    fn = func.FuncOp("main", ([block.args[0].type], [op.results[0].type]), Region(block))
    with pytest.raises(ivy_ir.IRError, match=r"does not verify: ivy\.flip: axis 2 is out"):
        ivy_ir.lower(Module(ModuleOp([fn])), "numpy")


@pytest.mark.filterwarnings("ignore:.*:RuntimeWarning")  # NumPy warns of the 0 divisor
def test_tensorflow_variance_with_correction_equal_to_n_is_nan_like_numpy() -> None:
    text = _ir("  %v = ivy.var %x {axis = [0], correction = 2.0} : (tensor<2x3xf32>) "
               "-> tensor<3xf32>\n  func.return %v : tensor<3xf32>", result="tensor<3xf32>")
    x = np.ones((2, 3), np.float32)
    module = ivy_ir.parse(text)
    want = ivy_ir.lower(module, "numpy")(x)
    got = np.asarray(ivy_ir.lower(module, "tensorflow")(x))
    assert np.isnan(want).all()
    np.testing.assert_array_equal(got, want)


# ---- what the verifier accepts, every target runs ----

BUDGET = {"numpy": 300, "torch": 300, "jax": 60, "tensorflow": 60}
"""Programs per target: the jitting targets compile each one, so they get fewer."""


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")  # random data
@pytest.mark.parametrize("target", sorted(BUDGET))
def test_verified_mutants_run_on_every_target(target: str) -> None:
    started = time.perf_counter()
    crashes = []
    for case in cases(BUDGET[target], seed=7):
        exc = run(case, target)
        if exc is not None:
            crashes.append(f"ivy.{case.op}: {type(exc).__name__}: {str(exc)[:300]}\n"
                           f"{case.module}")
    assert not crashes, f"{len(crashes)} verified programs crashed on {target} " \
                        f"(allowed: {[e.__name__ for e in USER_ERRORS]}):\n" + "\n".join(crashes)
    assert time.perf_counter() - started < 60


def _full(dtype: str, fill: str) -> str:
    return _ir(f"  %0 = ivy.full {{shape = [2], fill_value = {fill}, dtype = {dtype}}} : () -> "
               f"tensor<2x{dtype}>\n  func.return %0 : tensor<2x{dtype}>", "", f"tensor<2x{dtype}>")


@pytest.mark.parametrize("dtype,fill,words", [
    ("f32", "1.0e300", "fill_value 1e+300 overflows float32"),
    ("f16", "70000.0", "fill_value 70000.0 overflows float16"),
    ("i8", "200.0", "fill_value 200.0 is out of range for int8"),
    ("ui8", "-1.0", "fill_value -1.0 is out of range for uint8"),
    ("i32", "nan", "is not a finite number, which int32 cannot hold"),
])
def test_a_fill_value_the_dtype_cannot_hold_is_refused(dtype, fill, words):
    with pytest.raises(ivy_ir.IRError, match=re.escape(words)):
        ivy_ir.parse(_full(dtype, fill))


def test_fills_at_the_edges_of_a_dtype_are_accepted():
    for dtype, fill in (("f16", "65504.0"), ("i8", "-128.0"), ("f32", "inf"),
                        ("f64", "1.0e300")):
        ivy_ir.parse(_full(dtype, fill))
