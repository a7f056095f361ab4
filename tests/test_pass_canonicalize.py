"""`canonicalize` and `strip-wrappers` keep the meaning of programs, bit for bit.

Each pattern family runs as a small IR program through the NumPy lowering (the
reference semantics) before and after the pass, on inputs full of the values where
float identities break (NaN, +-inf, -0.0, subnormals) and integer extremes, over 0-d,
size-0 and ordinary shapes. The rewrites claim exactness, so outputs must agree in
dtype, shape, every bit of every value (NaN positions, the sign of zeros) - no
tolerance. The FileCheck tests in tests/lit/passes/ pin down what each rule rewrites.
"""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy_ir.passes import run_pipeline

SHAPES = [(), (0,), (2, 0, 3), (7,), (2, 7)]
FLOAT_SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25, 1e-40, 3.0e38,
                           -7.0, 0.5], dtype=np.float32)
INT_SPECIALS = np.array([-2**31, 2**31 - 1, -1, 0, 1, 7, -7, 46341], dtype=np.int32)


def _t(shape: tuple[int, ...], dtype: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{dtype}>"


def _fill(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.resize(values, shape).astype(values.dtype)


def _outs(value: object) -> list[np.ndarray]:
    return [np.asarray(v) for v in (value if isinstance(value, (tuple, list)) else [value])]


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":  # the sign of zeros too (a NaN's sign bit means nothing)
        real = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]),
                                      err_msg="sign of a zero")


def check(text: str, *inputs: np.ndarray, passes: str = "canonicalize") -> ivy_ir.Module:
    """Run `text` before and after `passes` on the NumPy target; the outputs must be
    identical. Returns the optimized module for structural checks."""
    before = ivy_ir.parse(text)
    after = run_pipeline(before, passes)
    with np.errstate(all="ignore"):  # the special values overflow and divide by zero
        want = _outs(ivy_ir.lower(before, "numpy")(*inputs))
        got = _outs(ivy_ir.lower(after, "numpy")(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same_bits(g, w)
    return after


def ops(module: ivy_ir.Module) -> list[str]:
    return [op.name[4:] for op in module.entry.walk() if op.name.startswith("ivy.")]


def wrappers_program(shape: tuple[int, ...]) -> str:
    t, t1, t64 = _t(shape, "f32"), _t((1, *shape), "f32"), _t(shape, "f64")
    rev = list(reversed(range(len(shape))))
    tr = _t(tuple(reversed(shape)), "f32")
    return f"""func.func @main(%x: {t}) -> {t} {{
  %a = ivy.astype %x {{dtype = f32}} : ({t}) -> {t}
  %w = ivy.astype %a {{dtype = f64}} : ({t}) -> {t64}
  %n = ivy.astype %w {{dtype = f32}} : ({t64}) -> {t}
  %e = ivy.expand_dims %n {{axis = [0]}} : ({t}) -> {t1}
  %s = ivy.squeeze %e {{axis = [0]}} : ({t1}) -> {t}
  %p = ivy.permute_dims %s {{axes = {rev}}} : ({t}) -> {tr}
  %q = ivy.permute_dims %p {{axes = {rev}}} : ({tr}) -> {t}
  %b = ivy.broadcast_to %q {{shape = {list(shape)}}} : ({t}) -> {t}
  %one = ivy.constant {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>
  %m = ivy.multiply %one, %b : (tensor<f32>, {t}) -> {t}
  %nz = ivy.constant {{value = dense<-0.0> : tensor<f32>}} : () -> tensor<f32>
  %y = ivy.add %m, %nz : ({t}, tensor<f32>) -> {t}
  %pz = ivy.constant {{value = dense<0.0> : tensor<f32>}} : () -> tensor<f32>
  %z = ivy.subtract %y, %pz : ({t}, tensor<f32>) -> {t}
  %ol = ivy.ones_like %x : ({t}) -> {t}
  %r = ivy.multiply %z, %ol : ({t}, {t}) -> {t}
  func.return %r : {t}
}}"""


@pytest.mark.parametrize("passes", ["strip-wrappers", "canonicalize"])
@pytest.mark.parametrize("shape", SHAPES)
def test_wrappers_vanish_and_values_stay(passes: str, shape: tuple[int, ...]) -> None:
    after = check(wrappers_program(shape), _fill(FLOAT_SPECIALS, shape), passes=passes)
    assert ops(after) == []


def algebra_program(shape: tuple[int, ...]) -> str:
    f, i, b = _t(shape, "f32"), _t(shape, "i32"), _t(shape, "i1")
    outs = [("nn", f), ("an", f), ("aa", f), ("m1", f), ("d1", f), ("zx", f), ("p2", f),
            ("pm", f), ("p0", f), ("ph", f), ("mx", f), ("lt", b), ("wh", f),
            ("iz", i), ("is", i), ("in", i), ("id", i), ("i3", i), ("ie", b), ("ix", i),
            ("ia", i), ("ii", i), ("bt", b), ("bo", b), ("bx", b), ("bb", b)]
    body = f"""
  %c0f = ivy.constant {{value = dense<0.0> : tensor<f32>}} : () -> tensor<f32>
  %cnz = ivy.constant {{value = dense<-0.0> : tensor<f32>}} : () -> tensor<f32>
  %c1f = ivy.constant {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>
  %cm1f = ivy.constant {{value = dense<-1.0> : tensor<f32>}} : () -> tensor<f32>
  %c2f = ivy.constant {{value = dense<2.0> : tensor<f32>}} : () -> tensor<f32>
  %chf = ivy.constant {{value = dense<0.5> : tensor<f32>}} : () -> tensor<f32>
  %n = ivy.negative %x : ({f}) -> {f}
  %nn = ivy.negative %n : ({f}) -> {f}
  %an = ivy.abs %n : ({f}) -> {f}
  %a1 = ivy.abs %x : ({f}) -> {f}
  %aa = ivy.abs %a1 : ({f}) -> {f}
  %m1 = ivy.multiply %cm1f, %x : (tensor<f32>, {f}) -> {f}
  %d1 = ivy.divide %x, %cm1f : ({f}, tensor<f32>) -> {f}
  %zx = ivy.subtract %cnz, %x : (tensor<f32>, {f}) -> {f}
  %p2 = ivy.pow %x, %c2f : ({f}, tensor<f32>) -> {f}
  %pm = ivy.pow %x, %cm1f : ({f}, tensor<f32>) -> {f}
  %p0 = ivy.pow %x, %c0f : ({f}, tensor<f32>) -> {f}
  %ph = ivy.pow %x, %chf : ({f}, tensor<f32>) -> {f}
  %mx = ivy.maximum %x, %x : ({f}, {f}) -> {f}
  %lt = ivy.less %x, %x : ({f}, {f}) -> {b}
  %wh = ivy.where %c, %x, %x : ({b}, {f}, {f}) -> {f}
  %c0i = ivy.constant {{value = dense<0> : tensor<i32>}} : () -> tensor<i32>
  %c1i = ivy.constant {{value = dense<1> : tensor<i32>}} : () -> tensor<i32>
  %c3i = ivy.constant {{value = dense<3> : tensor<i32>}} : () -> tensor<i32>
  %cm1i = ivy.constant {{value = dense<-1> : tensor<i32>}} : () -> tensor<i32>
  %iz = ivy.multiply %i, %c0i : ({i}, tensor<i32>) -> {i}
  %is = ivy.subtract %i, %i : ({i}, {i}) -> {i}
  %in = ivy.subtract %c0i, %i : (tensor<i32>, {i}) -> {i}
  %id = ivy.floor_divide %i, %c1i : ({i}, tensor<i32>) -> {i}
  %i3 = ivy.pow %i, %c3i : ({i}, tensor<i32>) -> {i}
  %ie = ivy.equal %i, %i : ({i}, {i}) -> {b}
  %ix = ivy.bitwise_xor %i, %i : ({i}, {i}) -> {i}
  %ia = ivy.bitwise_and %cm1i, %i : (tensor<i32>, {i}) -> {i}
  %iv = ivy.bitwise_invert %i : ({i}) -> {i}
  %ii = ivy.bitwise_invert %iv : ({i}) -> {i}
  %ct = ivy.constant {{value = dense<true> : tensor<i1>}} : () -> tensor<i1>
  %bt = ivy.logical_and %c, %ct : ({b}, tensor<i1>) -> {b}
  %bo = ivy.logical_or %ct, %c : (tensor<i1>, {b}) -> {b}
  %bx = ivy.logical_xor %c, %ct : ({b}, tensor<i1>) -> {b}
  %bn = ivy.logical_not %c : ({b}) -> {b}
  %bb = ivy.logical_not %bn : ({b}) -> {b}"""
    names = ", ".join(f"%{n}" for n, _ in outs)
    types = ", ".join(t for _, t in outs)
    return (f"func.func @main(%x: {f}, %i: {i}, %c: {b}) -> ({types}) {{{body}\n"
            f"  func.return {names} : {types}\n}}")


@pytest.mark.parametrize("shape", SHAPES)
def test_algebra_is_exact(shape: tuple[int, ...]) -> None:
    x, i = _fill(FLOAT_SPECIALS, shape), _fill(INT_SPECIALS, shape)
    c = _fill(np.array([True, False, False]), shape)
    before = ivy_ir.parse(algebra_program(shape))
    after = check(algebra_program(shape), x, i, c)
    assert len(ops(after)) < len(ops(before)) // 2
    # every binary op became a unary one, a fill or an operand; the cube is x * square(x)
    assert set(ops(after)) <= {"abs", "negative", "square", "reciprocal", "sqrt", "ones_like",
                               "zeros_like", "logical_not", "multiply"}
    assert ops(after).count("multiply") == 1


def test_float_identities_that_must_not_fire() -> None:
    """x * 0, x - x, x + 0.0, x == x and float cubes stay: NaN, inf and -0.0 break them."""
    f = _t((11,), "f32")
    text = f"""func.func @main(%x: {f}) -> ({f}, {f}, {f}, {f}, {f}) {{
  %z = ivy.zeros {{shape = [11]}} : () -> {f}
  %a = ivy.multiply %x, %z : ({f}, {f}) -> {f}
  %b = ivy.subtract %x, %x : ({f}, {f}) -> {f}
  %c = ivy.add %z, %x : ({f}, {f}) -> {f}
  %k = ivy.constant {{value = dense<3.0> : tensor<f32>}} : () -> tensor<f32>
  %d = ivy.pow %x, %k : ({f}, tensor<f32>) -> {f}
  %e = ivy.subtract %z, %x : ({f}, {f}) -> {f}
  func.return %a, %b, %c, %d, %e : {f}, {f}, {f}, {f}, {f}
}}"""
    after = check(text, FLOAT_SPECIALS)
    assert ops(after) == ["zeros", "multiply", "subtract", "add", "constant", "pow", "subtract"]


def shapes_program() -> str:
    return """func.func @main(%x: tensor<2x0x3xf32>, %y: tensor<4x3x2xf32>, %i: tensor<8xi32>,
                  %h: tensor<8xf16>) -> (tensor<6xf32>, tensor<3x4x2xf32>, tensor<5x6xf32>,
                  tensor<8xf32>, tensor<8xi32>, tensor<0x3x2xf32>, tensor<1x4x3x2xf32>) {
  %r1 = ivy.reshape %y {shape = [24]} : (tensor<4x3x2xf32>) -> tensor<24xf32>
  %r2 = ivy.reshape %r1 {shape = [4, 6]} : (tensor<24xf32>) -> tensor<4x6xf32>
  %r3 = ivy.slice %r2 {start = [0, 0], stop = [1, 6], step = [1, 1]} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %r4 = ivy.squeeze %r3 {axis = [0]} : (tensor<1x6xf32>) -> tensor<6xf32>
  %p1 = ivy.permute_dims %y {axes = [1, 2, 0]} : (tensor<4x3x2xf32>) -> tensor<3x2x4xf32>
  %p2 = ivy.permute_dims %p1 {axes = [0, 2, 1]} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  %e1 = ivy.expand_dims %r4 {axis = [0]} : (tensor<6xf32>) -> tensor<1x6xf32>
  %b1 = ivy.broadcast_to %e1 {shape = [1, 6]} : (tensor<1x6xf32>) -> tensor<1x6xf32>
  %b2 = ivy.broadcast_to %b1 {shape = [5, 6]} : (tensor<1x6xf32>) -> tensor<5x6xf32>
  %i64 = ivy.astype %i {dtype = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %if = ivy.astype %i64 {dtype = f32} : (tensor<8xi64>) -> tensor<8xf32>
  %h64 = ivy.astype %h {dtype = f64} : (tensor<8xf16>) -> tensor<8xf64>
  %hi = ivy.astype %h64 {dtype = i32} : (tensor<8xf64>) -> tensor<8xi32>
  %x1 = ivy.permute_dims %x {axes = [1, 2, 0]} : (tensor<2x0x3xf32>) -> tensor<0x3x2xf32>
  %x2 = ivy.reshape %x1 {shape = [0, 3, 2]} : (tensor<0x3x2xf32>) -> tensor<0x3x2xf32>
  %s1 = ivy.stack %p1 {axis = 0} : (tensor<3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %s2 = ivy.permute_dims %s1 {axes = [0, 3, 1, 2]} : (tensor<1x3x2x4xf32>) -> tensor<1x4x3x2xf32>
  func.return %r4, %p2, %b2, %if, %hi, %x2, %s2 : tensor<6xf32>, tensor<3x4x2xf32>,
      tensor<5x6xf32>, tensor<8xf32>, tensor<8xi32>, tensor<0x3x2xf32>, tensor<1x4x3x2xf32>
}"""


def test_shape_and_cast_chains_compose() -> None:
    rng = np.random.default_rng(0)
    y = rng.standard_normal((4, 3, 2)).astype(np.float32)
    i = np.array([2**31 - 1, -2**31, 16777217, -16777217, 3, 0, -1, 123456789], np.int32)
    h = np.array([65504, -65504, 0.5, -0.0, 1e-7, 2049, -3.75, 12], np.float16)
    after = check(shapes_program(), np.zeros((2, 0, 3), np.float32), y, i, h)
    # reshape pairs, permute pairs, broadcast pairs and lossless cast pairs become one
    # op each, expand_dims(squeeze(s)) is s, stack of one is an expand_dims, and the
    # reshape of the empty permute to its own shape is gone
    assert ops(after) == ["reshape", "slice", "squeeze", "permute_dims", "permute_dims",
                          "broadcast_to", "astype", "astype", "permute_dims", "expand_dims",
                          "permute_dims"]


def test_slices_and_unit_dims_move_above_permutes() -> None:
    """torch's nn.MultiheadAttention q/k/v split, a strided slice of a transpose and a
    permute of unit dims: the same bits before and after, and no transpose left where
    the permute only moved what the slices drop."""
    after = check("""func.func @main(%x: tensor<5x2x48xf32>, %y: tensor<4x6xf32>, %u: tensor<5x1x3xf32>)
    -> (tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>, tensor<2x4xf32>,
        tensor<1x5x3xf32>) {
  %a = ivy.reshape %x {shape = [1, 5, 2, 3, 16]} : (tensor<5x2x48xf32>) -> tensor<1x5x2x3x16xf32>
  %p = ivy.permute_dims %a {axes = [3, 1, 2, 0, 4]} : (tensor<1x5x2x3x16xf32>) -> tensor<3x5x2x1x16xf32>
  %b = ivy.reshape %p {shape = [3, 5, 2, 16]} : (tensor<3x5x2x1x16xf32>) -> tensor<3x5x2x16xf32>
  %q = ivy.slice %b {start = [0, 0, 0, 0], stop = [1, 5, 2, 16], step = [1, 1, 1, 1]} : (tensor<3x5x2x16xf32>) -> tensor<1x5x2x16xf32>
  %k = ivy.slice %b {start = [1, 0, 0, 0], stop = [2, 5, 2, 16], step = [1, 1, 1, 1]} : (tensor<3x5x2x16xf32>) -> tensor<1x5x2x16xf32>
  %v = ivy.slice %b {start = [2, 0, 0, 0], stop = [3, 5, 2, 16], step = [1, 1, 1, 1]} : (tensor<3x5x2x16xf32>) -> tensor<1x5x2x16xf32>
  %t = ivy.permute_dims %y {axes = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %s = ivy.slice %t {start = [1, 0], stop = [5, 4], step = [2, 1]} : (tensor<6x4xf32>) -> tensor<2x4xf32>
  %w = ivy.permute_dims %u {axes = [1, 0, 2]} : (tensor<5x1x3xf32>) -> tensor<1x5x3xf32>
  func.return %q, %k, %v, %s, %w : tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>, tensor<2x4xf32>, tensor<1x5x3xf32>
}""", np.arange(480, dtype=np.float32).reshape(5, 2, 48),
        _fill(FLOAT_SPECIALS, (4, 6)), np.arange(15, dtype=np.float32).reshape(5, 1, 3))
    assert ops(after).count("permute_dims") == 1  # the strided slice's, now below it
    assert ops(after).count("slice") == 4


def test_a_permute_moves_below_a_linear_it_feeds() -> None:
    """nn.MultiheadAttention's seq-first turn before its in-projection: the product of x
    as it lies, permuted after, gives the same values (rows of one product either way:
    BLAS may group them differently, so within float32 rounding); a permute that
    another op reads too stays above its product."""
    text = """func.func @main(%x: tensor<3x4x8xf32>, %v: tensor<3x4x8xf32>, %w: tensor<6x8xf32>,
                     %b: tensor<6xf32>) -> (tensor<4x3x6xf32>, tensor<4x3x6xf32>, tensor<4x3x8xf32>) {
  %p = ivy.permute_dims %x {axes = [1, 0, 2]} : (tensor<3x4x8xf32>) -> tensor<4x3x8xf32>
  %y = ivy.linear %p, %w, bias = %b : (tensor<4x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<4x3x6xf32>
  %q = ivy.permute_dims %v {axes = [1, 0, 2]} : (tensor<3x4x8xf32>) -> tensor<4x3x8xf32>
  %z = ivy.linear %q, %w : (tensor<4x3x8xf32>, tensor<6x8xf32>) -> tensor<4x3x6xf32>
  %n = ivy.tanh %q : (tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  func.return %y, %z, %n : tensor<4x3x6xf32>, tensor<4x3x6xf32>, tensor<4x3x8xf32>
}"""
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32)
              for s in ((3, 4, 8), (3, 4, 8), (6, 8), (6,))]
    before = ivy_ir.parse(text)
    after = run_pipeline(before, "canonicalize")
    want = _outs(ivy_ir.lower(before, "numpy")(*inputs))
    got = _outs(ivy_ir.lower(after, "numpy")(*inputs))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    assert ops(after)[:2] == ["linear", "permute_dims"]  # the first product reads x
    assert ops(after).count("permute_dims") == 2  # v's permute stays for tanh

def test_constant_folding_matches_the_reference() -> None:
    text = """func.func @main() -> (tensor<3xf32>, tensor<i64>, tensor<0xf32>, tensor<2xi8>,
                                    tensor<1xi32>, tensor<2xi32>, tensor<20xf32>) {
  %a = ivy.constant {value = dense<[0.5, -1.0, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
  %t = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
  %m = ivy.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %d = ivy.prod %m : (tensor<2x2xi64>) -> tensor<i64>
  %z = ivy.zeros {shape = [0]} : () -> tensor<0xf32>
  %e = ivy.exp %z : (tensor<0xf32>) -> tensor<0xf32>
  %w = ivy.constant {value = dense<[127, -128]> : tensor<2xi8>} : () -> tensor<2xi8>
  %one = ivy.constant {value = dense<[1, -1]> : tensor<2xi8>} : () -> tensor<2xi8>
  %o = ivy.add %w, %one : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %k = ivy.constant {value = dense<[4, 5, 6]> : tensor<3xi32>} : () -> tensor<3xi32>
  %p, %q = ivy.split %k {sizes = [1, 2]} : (tensor<3xi32>) -> (tensor<1xi32>, tensor<2xi32>)
  %big = ivy.full {shape = [20], fill_value = 2.0} : () -> tensor<20xf32>
  %r = ivy.sqrt %big : (tensor<20xf32>) -> tensor<20xf32>
  func.return %t, %d, %e, %o, %p, %q, %r : tensor<3xf32>, tensor<i64>, tensor<0xf32>,
      tensor<2xi8>, tensor<1xi32>, tensor<2xi32>, tensor<20xf32>
}"""
    after = check(text)
    # everything folds (int8 wraps as the reference does) except the 20-element result
    assert sorted(set(ops(after))) == ["constant", "full", "sqrt"]
    assert ops(after).count("constant") == 6


def test_commutative_operands_merge_under_cse() -> None:
    def program(a, b):
        return (a + b) * (b + a) + ivy.maximum(a, b) - ivy.maximum(b, a) + 2.0 * a - a * 2.0

    a = FLOAT_SPECIALS[:8]
    b = np.array([-0.0, 0.0, 1.0, -1.0, np.nan, 0.0, 2.5, -0.0], np.float32)
    module = ivy_ir.trace(program, (a, b))
    after = check(str(module), a, b, passes="default")
    counts = {n: ops(after).count(n) for n in ("add", "multiply", "maximum")}
    # b + a merges into a + b (3 adds were 4), a * 2 into 2 * a (2 multiplies were 3);
    # float maximum keeps both operand orders (-0.0 against +0.0 tells them apart)
    assert counts == {"add": 3, "multiply": 2, "maximum": 2}


def test_rewritten_ops_keep_the_user_location() -> None:
    def program(x):
        return x ** 2.0

    module = ivy_ir.trace(program, (np.ones(3, np.float32),))
    pow_loc = next(op.location for op in module.entry.walk() if op.name == "ivy.pow")
    after = run_pipeline(module, "canonicalize")
    (square,) = [op for op in after.entry.walk() if op.name.startswith("ivy.")]
    assert square.name == "ivy.square" and square.location == pow_loc
    assert "test_pass_canonicalize.py" in str(pow_loc)


def facade_program(x, w):
    """What a user writes: copies, casts back and forth, transposes that cancel, a
    multiply by ones, a duplicated subexpression and a square through pow."""
    h = ivy.permute_dims(ivy.permute_dims(x, axes=[1, 0]), axes=[1, 0]) * 1.0
    h = ivy.astype(ivy.astype(h, dtype="float64"), dtype="float32")
    y = ivy.matmul(h, w) * np.ones((1, 4), np.float32)
    y = y ** 2.0 + ivy.tanh(y) + ivy.tanh(y)
    return ivy.reshape(ivy.reshape(y, shape=[-1]), shape=[2, 4])


@pytest.mark.parametrize("target", ["numpy", "torch"])
def test_default_pipeline_gives_identical_outputs(target: str) -> None:
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(
        np.float32)
    plain = ivy_ir.compile(facade_program, target=target, args=(x, w), passes="none")
    opt = ivy_ir.compile(facade_program, target=target, args=(x, w), passes="default")
    got, want = opt(x, w), plain(x, w)
    if target == "torch":
        got, want = got.detach().numpy(), want.detach().numpy()
    assert_same_bits(np.asarray(got), np.asarray(want))
    assert opt.ir.count("ivy.") < plain.ir.count("ivy.") - 8


def _torch_wrappers():
    import torch

    def program(x):
        # (not detach: that cuts gradients, the op stop_gradient, tests/test_stop_gradient.py)
        y = x.contiguous().clone().to(torch.float32).view(2, 3)
        y = y.reshape(-1).reshape(2, 3).permute(1, 0).permute(1, 0)
        return y.unsqueeze(0).squeeze(0).expand(2, 3).type_as(x) * 1
    return program, torch.as_tensor


def _jax_wrappers():
    import jax.numpy as jnp

    def program(x):
        y = jnp.transpose(jnp.transpose(jnp.asarray(x).astype(jnp.float32)))
        return jnp.expand_dims(y.reshape(-1).reshape(2, 3), 0)[0] * 1.0
    return program, jnp.asarray


def _tensorflow_wrappers():
    import tensorflow as tf

    def program(x):
        y = tf.transpose(tf.transpose(tf.cast(tf.identity(x), tf.float32)))
        y = tf.squeeze(tf.expand_dims(tf.reshape(tf.reshape(y, (-1,)), (2, 3)), 0), 0)
        return y * 1.0
    return program, tf.convert_to_tensor


@pytest.mark.parametrize("make", [_torch_wrappers, _jax_wrappers, _tensorflow_wrappers],
                         ids=["torch", "jax", "tensorflow"])
def test_strip_wrappers_on_imported_programs(make) -> None:
    """Copies, casts to the own dtype, views back to the own shape and transposes that
    cancel, as each framework spells them: whatever ops the importer makes of them,
    strip-wrappers leaves none, and the program still computes its input."""
    program, native = make()
    x = FLOAT_SPECIALS[:6].reshape(2, 3)
    module = ivy_ir.trace(program, (native(x),))
    after = check(str(module), x, passes="strip-wrappers")
    assert ops(after) == []
