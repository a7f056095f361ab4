"""`ivy_ir.parse` on text written to hurt: it ends in linear time, allocates no more than
the limits allow, and every refusal is an `IRError` at the offending token."""

from __future__ import annotations

import time
import tracemalloc

import pytest

import ivy_ir
from ivy_ir.core.context import parse
from ivy_ir.core.ir_text import ParseLimits, parse_limits


def fn(body: str = "", arg: str = "tensor<2xf32>", attrs: str = "") -> str:
    """A function of one argument returned as is, with `body` before the return."""
    return (f"func.func @f(%a: {arg}) -> {arg} {attrs}{{\n{body}"
            f"  func.return %a : {arg}\n}}\n")


def _const(value: str, type_: str) -> str:
    return fn(f"  %c = ivy.constant {{value = dense<{value}> : {type_}}} : () -> {type_}\n")


def _refused(text: str | bytes, **limits: int) -> ivy_ir.IRError:
    with parse_limits(**limits), pytest.raises(ivy_ir.IRError) as info:
        ivy_ir.parse(text)
    return info.value


def _at(err: ivy_ir.IRError, line: int, col: int, *words: str) -> None:
    first = str(err).splitlines()[0]
    assert first.startswith(f"<ir>:{line}:{col}: "), first
    assert (err.file, err.line, err.col) == ("<ir>", line, col)
    for word in words:
        assert word in first, (word, first)


@pytest.mark.parametrize("size", [36, 5_000, 300_000])
def test_unterminated_string_fails_in_linear_time(size: int) -> None:
    # xDSL's string rule backtracks exponentially here: 36 characters took hours
    text = 'func.func @f() {\n  "' + "a" * size + "\n}\n"
    start = time.perf_counter()
    err = _refused(text)
    assert time.perf_counter() - start < 1.0 + len(text) / 10_000
    _at(err, 2, 3, "unterminated string literal", "must end on its own line")
    assert err.token.startswith('"aaa')


def test_string_at_end_of_input_and_bad_escape_are_located() -> None:
    _at(_refused('func.func @f() attributes {s = "abc'), 1, 32, "unterminated string",
        "input ends inside it")
    _at(_refused('func.func @f() attributes {s = "a\\qb"} {\n  func.return\n}\n'), 1, 32,
        "invalid escape '\\\\q'")


@pytest.mark.parametrize("filler", [" " * 500_000, "// comment\n" * 50_000, "\n" * 500_000])
def test_long_runs_of_space_and_comments_are_linear(filler: str) -> None:
    text = filler + fn()
    start = time.perf_counter()
    assert ivy_ir.parse(text).inputs[0].shape == (2,)
    assert time.perf_counter() - start < 1.0 + len(text) / 10_000


@pytest.mark.parametrize("literal", ["1.0", '"0x0000803F"'])
def test_big_splat_is_refused_before_it_is_allocated(literal: str) -> None:
    text = _const(literal, "tensor<100000000xf32>")  # 150 bytes declaring 400 MB
    tracemalloc.start()
    try:
        err = _refused(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    _at(err, 2, 40 + len(literal), "dense literal of 100000000 elements", "1048576",
        "max_dense_elements")
    assert err.token == "tensor<100000000xf32>"


def test_dense_cap_is_settable_and_counts_the_whole_parse() -> None:
    text = _const("1.0", "tensor<64xf32>")
    _at(_refused(text, max_dense_elements=63), 2, 43, "may hold 63 elements")
    with parse_limits(max_dense_elements=64):
        assert ivy_ir.parse(text).op is not None
    assert parse(text, limits=ParseLimits(max_dense_elements=64)).op is not None
    two = fn("  %c = ivy.constant {value = dense<1.0> : tensor<40xf32>} : () -> tensor<40xf32>\n"
             "  %d = ivy.constant {value = dense<1.0> : tensor<40xf32>} : () -> tensor<40xf32>\n")
    _at(_refused(two, max_dense_elements=64), 3, 43, "dense literal of 40 elements",
        "may hold 64 elements in all")


def test_deep_nesting_is_an_error_not_a_recursion_error() -> None:
    text = "func.func @f() attributes {a = " + "[" * 5000 + "]" * 5000 + "} {\n  func.return\n}\n"
    # the `{` of the attributes is the first bracket, so the 64th `[` is one too many
    _at(_refused(text), 1, 32 + 63, "brackets nested deeper than 64", "max_nesting")
    err = _refused(text, max_nesting=10_000)  # past the limit, Python's stack is the backstop
    assert str(err).startswith("<ir>: the IR nests too deeply for Python's stack")
    _at(_refused(fn(), max_nesting=1), 1, 24, "deeper than 1")  # the `<` inside `(`
    assert ivy_ir.parse(fn()).op is not None  # the limit was for the `with` block only


CASES = [  # (text, line, col, words)
    (_const("300", "tensor<2xi8>"), 2, 36, ["Integer value 300 is out of range for type i8"]),
    (_const("[1, -129]", "tensor<2xi8>"), 2, 40, ["-129 is out of range"]),
    (_const("1.0e300", "tensor<2xf32>"), 2, 36, ["1.0e300 is out of range for f32"]),
    (_const("65520.0", "tensor<2xf16>"), 2, 36, ["65520.0 is out of range for f16"]),
    (_const("(1.0e300, 0.0)", "tensor<2xcomplex<f32>>"), 2, 36, ["out of range for f32"]),
    (_const("0.0", "tensor<complex<f32>>"), 2, 36, ["written (real, imaginary)"]),
    (_const("99999999999999999999999", "tensor<2xi64>"), 2, 36, ["does not fit in 64 bits"]),
    (_const("0x1FFFFFFFFFFFFFFFF", "tensor<2xi64>"), 2, 36, ["does not fit in 64 bits"]),
    (_const("1.0e999", "tensor<2xf64>"), 2, 36, ["1.0e999 is out of range for f64"]),
    (_const("0xFFFFFFFFFF", "tensor<2xf32>"), 2, 36, ["0xFFFFFFFFFF has more bits than f32"]),
    (fn(arg="tensor<2xi0>"), 1, 27, ["i0 is not an ivy element type"]),
    (fn(arg="tensor<2xi128>"), 1, 27, ["i128 is not an ivy element type"]),
    (fn(arg="tensor<2xf80>"), 1, 27, ["f80 is not an ivy element type"]),
    (fn(arg="tensor<9223372036854775808xf32>"), 1, 18,
     ["dimension 9223372036854775808 is out of range"]),
    (fn(attrs="attributes {x = 300 : i8} "), 1, 66, ["out of range for type i8"]),
    (fn(attrs="attributes {x = 1.0e300 : f32} "), 1, 66, ["value out of range for its type"]),
    (fn() + "// \ud800\n", 4, 4, ["lone surrogate U+D800"]),
]


@pytest.mark.parametrize("text, line, col, words", CASES)
def test_values_out_of_range_are_located_errors(text: str, line: int, col: int,
                                                words: list[str]) -> None:
    _at(_refused(text), line, col, *words)


@pytest.mark.parametrize("value, type_", [("3.4028235e+38", "f32"), ("-3.4028235e+38", "f32"),
                                          ("65504.0", "f16"), ("-128", "i8"), ("255", "i8"),
                                          ("18446744073709551615", "ui64")])
def test_largest_values_of_a_type_are_accepted(value: str, type_: str) -> None:
    body = f"  %c = ivy.constant {{value = dense<{value}> : tensor<2x{type_}>}} : () -> tensor<2x{type_}>\n"
    module = ivy_ir.parse(fn(body))
    assert f"tensor<2x{type_}>" in str(module)


def test_bad_utf8_bytes_are_located() -> None:
    err = _refused(b"func.func @f() {\n  \xff\n}\n")
    _at(err, 2, 3, "invalid UTF-8 (byte 0xff)")


def test_verifier_failure_points_at_the_op() -> None:
    text = fn("  %b = ivy.exp %a : (tensor<2xf32>) -> tensor<2xf64>\n")
    err = _refused(text)
    _at(err, 2, 8, "ivy.exp", "result types tensor<2xf64> do not match")
    assert err.token == "ivy.exp"
    generic = fn('  %b = "ivy.exp"(%a) : (tensor<2xf32>) -> tensor<2xf64>\n')
    _at(_refused(generic), 2, 8, "ivy.exp")


def test_program_level_failures_point_at_their_op() -> None:
    twice = fn() + fn()
    _at(_refused(twice), 1, 1, 'Redefinition of symbol "f"')
    late = fn("  %b = ivy.exp %c : (tensor<2xf32>) -> tensor<2xf32>\n"
              "  %c = ivy.exp %a : (tensor<2xf32>) -> tensor<2xf32>\n")
    _at(_refused(late), 2, 8, "ivy.exp", "%c is used before its definition")


def test_an_op_built_from_the_wrong_pieces_is_a_parse_error() -> None:
    text = fn("  %b = ivy.exp %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n")
    _at(_refused(text), 2, 8, "ivy.exp")


def test_a_block_name_xdsl_cannot_hold_is_a_parse_error() -> None:
    text = ('"func.func"() <{sym_name = "f", function_type = () -> ()}> ({\n'
            '^0:\n  "func.return"() : () -> ()\n}) : () -> ()\n')
    err = _refused(text)
    _at(err, 2, 1, "block name ^0 must not start with a digit")
    assert err.token == "^0"


def test_a_failing_op_with_a_name_location_names_it() -> None:
    """`loc("name")` (how importers can name a framework op) reaches the message."""
    text = ('func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
            '  %b = ivy.exp %a : (tensor<2xf32>) -> tensor<2xf64> loc("aten::exp")\n'
            '  func.return %a : tensor<2xf32>\n}\n')
    with pytest.raises(ivy_ir.IRError, match=r"<ir>:2:8: aten::exp: ivy\.exp: result types"):
        parse(text)


def test_the_public_parse_takes_limits() -> None:
    text = "func.func @f() -> tensor<5xf32> {\n  %c = ivy.constant {value = dense<1.0> : " \
           "tensor<5xf32>} : () -> tensor<5xf32>\n  func.return %c : tensor<5xf32>\n}\n"
    assert ivy_ir.parse(text).outputs[0].shape == (5,)
    with pytest.raises(ivy_ir.IRError, match="4 elements"):
        ivy_ir.parse(text, "small.mlir", ivy_ir.ParseLimits(max_dense_elements=4))
    with ivy_ir.parse_limits(max_dense_elements=4), pytest.raises(ivy_ir.IRError,
                                                                  match="small.mlir:2"):
        ivy_ir.parse(text, "small.mlir")


def test_malformed_complex_dense_element_is_a_located_parse_error() -> None:
    # xDSL asserts the tokens of a complex element; a mutant once leaked its AssertionError
    text = ("func.func @f() -> tensor<2xcomplex<f32>> {\n"
            "  %c = ivy.constant {value = dense<[(1.5, -2.0e+value)]> : "
            "tensor<2xcomplex<f32>>} : () -> tensor<2xcomplex<f32>>\n"
            "  func.return %c : tensor<2xcomplex<f32>>\n}")
    with pytest.raises(ivy_ir.IRError, match=r"<ir>:2:\d+: malformed dense literal: unexpected"):
        ivy_ir.parse(text)
