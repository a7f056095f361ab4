"""One meaning per op at the edges (docs/semantics.md), pinned on every target.

Each case is an op on hand-picked hostile operands (NaN, infinities, -0.0, dtype
extremes, zero divisors) with the answer the IR gives them, NumPy's; every target must
give it. A second table pins the differences the page documents instead of correcting.
The gradient tests put inputs on every kink (relu and clip bounds, abs at 0, ties of
maximum and of max-pool windows, where's switch) and require the compiled program's
gradient to equal the source framework's, for torch -> torch and jax -> jax.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from differential import run_compiled
from dtype_sweep import HALF_FLOATS, half_units

import ivy_ir

TARGETS = ("numpy", "jax", "torch", "tensorflow")
nan, inf = np.nan, np.inf
I32_MIN, I64_MIN = np.iinfo(np.int32).min, np.iinfo(np.int64).min


def f32(*v: float) -> np.ndarray:
    return np.array(v, np.float32)


def f64(*v: float) -> np.ndarray:
    return np.array(v, np.float64)


def i32(*v: int) -> np.ndarray:
    return np.array(v, np.int32)


def u8(*v: int) -> np.ndarray:
    return np.array(v, np.uint8)


def c64(*v: complex) -> np.ndarray:
    return np.array(v, np.complex64)


CASES: dict[str, tuple[str, list[np.ndarray], dict[str, Any], np.ndarray]] = {
    # id: (op, operands, attributes, the IR's answer)
    "float->int32 of NaN, inf and out of range is INT_MIN": (
        "astype", [f32(nan, inf, -inf, 3e9, -3e9, -2.5)], {"dtype": "int32"},
        i32(*[I32_MIN] * 5, -2)),
    "float->int64 of NaN and inf is INT64_MIN": (
        "astype", [f64(nan, inf, -inf, 1e19, 7.9)], {"dtype": "int64"},
        np.array([I64_MIN] * 4 + [7], np.int64)),
    "float->uint8 goes through int32 and wraps": (
        "astype", [f32(nan, inf, 300, -1, 2.5)], {"dtype": "uint8"}, u8(0, 0, 44, 255, 2)),
    "integer floor_divide by zero is 0; INT_MIN // -1 wraps": (
        "floor_divide", [i32(5, -5, 0, I32_MIN, 7), i32(0, 0, 0, -1, -2)], {},
        i32(0, 0, 0, I32_MIN, -4)),
    "integer remainder by zero is 0": (
        "remainder", [i32(5, -5, 0, I32_MIN, 7), i32(0, 0, 0, -1, -2)], {}, i32(0, 0, 0, 0, -1)),
    "float floor_divide at infinities and zero divisors": (
        "floor_divide", [f32(1, -1, inf, -inf, 5, 0, 7), f32(inf, inf, 1, 2, 0, 0, -2)], {},
        f32(0, -1, nan, nan, inf, nan, -4)),
    "integer overflow wraps": (
        "multiply", [i32(2 ** 30, I32_MIN), i32(4, -1)], {}, i32(0, I32_MIN)),
    "abs(INT_MIN) wraps": ("abs", [i32(I32_MIN, -3)], {}, i32(I32_MIN, 3)),
    "shift by a negative count or past the width": (
        "bitwise_left_shift", [i32(1, 1, 1, -1), i32(-1, 31, 32, 40)], {},
        i32(0, I32_MIN, 0, 0)),
    "right shift by a negative count or past the width": (
        "bitwise_right_shift", [i32(8, -8, -8, 8, -8), i32(-1, 31, 32, 40, 1)], {},
        i32(0, -1, -1, 0, -4)),
    "float remainder is exact for a huge quotient": (
        "remainder", [f32(3.4028235e38, -1e30, 7.5), f32(0.84147096, 3, -2)], {},
        np.remainder(f32(3.4028235e38, -1e30, 7.5), f32(0.84147096, 3, -2))),
    "gelu of huge float64 values": (
        "gelu", [f64(1e200, -1e200, nan, 2)], {"approximate": "none"},
        f64(1e200, 0, nan, 1.9544997361036416)),
    "sign(NaN) is NaN": ("sign", [f32(nan, -inf, 2, 0)], {}, f32(nan, -1, 1, 0)),
    "erf(+-inf) and erf of huge float64": (
        "erf", [f64(inf, -inf, 1e200, -1.7e308, nan)], {}, f64(1, -1, 1, -1, nan)),
    "erf(+-inf) in float32": ("erf", [f32(inf, -inf, nan)], {}, f32(1, -1, nan)),
    "lgamma at the poles and -inf is +inf": (
        "lgamma", [f32(0, -0.0, -1, -2, -inf, inf, nan)], {},
        f32(inf, inf, inf, inf, inf, inf, nan)),
    "digamma at the poles and -inf is NaN": (
        "digamma", [f64(0, -0.0, -1, -7, -inf, inf, nan)], {},
        f64(nan, nan, nan, nan, nan, inf, nan)),
    "cbrt of negatives, zeros and infinities": (
        "cbrt", [f32(-27, -0.0, 0, -inf, inf, nan, 0.125)], {},
        f32(-3, -0.0, 0, -inf, inf, nan, 0.5)),
    "population_count counts the two's-complement bits": (
        "population_count", [i32(-1, I32_MIN, 0, 7)], {}, i32(32, 1, 0, 3)),
    "softmax of a slice holding NaN is NaN": (
        "softmax", [f32(nan, 1, 2)], {"axis": 0}, f32(nan, nan, nan)),
    "softmax of a slice holding +inf is NaN": (
        "softmax", [f32(inf, 1, 2)], {"axis": 0}, f32(nan, nan, nan)),
    "log_softmax of a slice holding NaN is NaN": (
        "log_softmax", [f32(1, nan, 2)], {"axis": 0}, f32(nan, nan, nan)),
    "argmax gives the first NaN": ("argmax", [f32(1, nan, 2, nan)], {"axis": 0},
                                   np.array(1, np.int64)),
    "argmin gives the first NaN": ("argmin", [f32(-1, 3, nan, -2)], {"axis": 0},
                                   np.array(2, np.int64)),
    "max propagates NaN": ("max", [f32(1, nan, 2)], {}, np.float32(nan)),
    "maximum propagates NaN": ("maximum", [f32(nan, 1), f32(1, nan)], {}, f32(nan, nan)),
    "max_pool propagates NaN": (
        "max_pool", [np.array([[[nan, 1, 2, 3, -inf, -inf]]], np.float32)],
        {"kernel": [2], "strides": [2], "padding": [0, 0]},
        np.array([[[nan, 3, -inf]]], np.float32)),
    "clip of uint8 with a bound past its range": (
        "clip", [u8(0, 5, 200)], {"min": -1.0, "max": 100.0}, u8(0, 5, 100)),
    "clip keeps NaN": ("clip", [f32(nan, -1, 7)], {"min": 0.0, "max": 6.0}, f32(nan, 0, 6)),
    "reciprocal is correctly rounded": (
        "reciprocal", [np.arange(1, 33, dtype=np.float32) / 8], {},
        (1 / (np.arange(1, 33, dtype=np.float32) / 8)).astype(np.float32)),
    "all of uint8 is bool": ("all", [u8(0, 5, 200)], {}, np.bool_(False)),
    "any of uint8 is bool": ("any", [u8(0, 5, 200)], {}, np.bool_(True)),
    "abs of a complex with an infinite part is inf, NaN or not in the other": (
        "abs", [c64(complex(inf, nan), complex(nan, -inf), complex(nan, 1), 3 - 4j)], {},
        f32(inf, inf, nan, 5)),
    "complex keeps infinite, NaN and signed-zero parts": (
        "complex", [f32(inf, nan, -0.0), f32(nan, -inf, -0.0)], {},
        c64(complex(inf, nan), complex(nan, -inf), complex(-0.0, -0.0))),
    "an ascending sort puts NaN last, above +inf": (
        "sort", [f32(nan, 1, -inf, inf, -2)], {"axis": 0}, f32(-inf, -2, 1, inf, nan)),
    "a descending sort puts NaN first": (
        "sort", [f32(1, nan, inf, -2)], {"axis": 0, "descending": True}, f32(nan, inf, 1, -2)),
    "argsort ranks NaN last, ties in their order": (
        "argsort", [f32(nan, 1, -inf, 1, nan)], {"axis": 0},
        np.array([2, 1, 3, 0, 4], np.int64)),
    "top_k takes NaN as the largest": (
        "top_k", [f32(1, nan, inf, 3)], {"k": 2, "axis": 0}, f32(nan, inf)),
    "irfft ignores the imaginary parts of bins 0 and n / 2": (
        "irfft", [c64(4 + 5j, 0, 8 + 7j)], {"axis": 0, "n": 4}, f32(3, -1, 3, -1)),
    "the transforms of an empty signal are zeros": (
        "rfft", [np.zeros((2, 0), np.float32)], {"axis": 1, "n": 4},
        np.zeros((2, 3), np.complex64)),
    "the inverse transforms of an empty spectrum are zeros": (
        "irfft", [np.zeros((2, 0), np.complex64)], {"axis": 1, "n": 5},
        np.zeros((2, 5), np.float32)),
}


def run(op: str, operands: list[np.ndarray], attrs: dict[str, Any], target: str
        ) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, _ = run_compiled(op, operands, attrs, target)
    return got[0]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_edge_values_mean_the_same_on_every_target(case: str, target: str) -> None:
    op, operands, attrs, want = CASES[case]
    got = run(op, operands, attrs, target)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)  # NaN matches NaN; -0.0 matches 0.0


def test_numpy_answers_are_the_ones_pinned() -> None:
    # the table is NumPy's semantics, not wishes: NumPy itself must give every answer
    for case, (op, operands, attrs, want) in CASES.items():
        np.testing.assert_array_equal(run(op, operands, attrs, "numpy"), want, err_msg=case)


SIGN_OF_ZERO = {"numpy": False, "jax": False, "torch": True, "tensorflow": True}
"""signbit of relu(-0.0) per target: the documented, uncorrected difference."""


@pytest.mark.parametrize("target", TARGETS)
def test_sign_of_a_zero_from_relu_is_the_documented_one(target: str) -> None:
    got = run("relu", [f32(-0.0, -1, 2)], {}, target)
    np.testing.assert_array_equal(got, f32(0, 0, 2))
    assert bool(np.signbit(got[0])) is SIGN_OF_ZERO[target]


# ---- gradients at kinks: the compiled program's equal its source framework's ----

KINKS = np.array([-2.0, -1.0, 0.0, 0.5, 2.0, 6.0, 7.0], np.float32)
"""Every kink of the functions below: relu/abs at 0, the bounds of relu6 and of the
hardtanh and clamp examples, and points between and past them."""


def torch_cases() -> dict[str, Any]:
    import torch
    import torch.nn.functional as F
    return {
        "nn.ReLU6": torch.nn.ReLU6(), "nn.Hardtanh(-1, 2)": torch.nn.Hardtanh(-1.0, 2.0),
        "clamp(0, 6)": lambda x: torch.clamp(x, 0.0, 6.0), "relu": torch.relu,
        "abs": torch.abs, "maximum tie": lambda x: torch.maximum(x, torch.flip(x, [0])),
        "minimum with 0": lambda x: torch.minimum(x, torch.zeros_like(x)),
        "where at its switch": lambda x: torch.where(x >= 0, x * 2, -x),
        "max_pool tie": lambda x: F.max_pool1d(torch.stack([x, x])[None], 2, 1)[0, 0],
    }


@pytest.mark.parametrize("name", list(torch_cases()))
def test_torch_gradient_at_kinks(name: str) -> None:
    import torch
    fn = torch_cases()[name]
    x = torch.tensor(KINKS, requires_grad=True)
    want = torch.autograd.grad(fn(x).sum(), x)[0]
    compiled = ivy_ir.compile(fn, "torch", args=(torch.tensor(KINKS),))
    x2 = torch.tensor(KINKS, requires_grad=True)
    got = torch.autograd.grad(compiled(x2).sum(), x2)[0]
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)


def jax_cases() -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    return {
        "nn.relu6": jax.nn.relu6, "clip(0, 6)": lambda x: jnp.clip(x, 0.0, 6.0),
        "clip(-1, 2)": lambda x: jnp.clip(x, -1.0, 2.0), "nn.relu": jax.nn.relu,
        "abs": jnp.abs, "maximum tie": lambda x: jnp.maximum(x, x[::-1]),
        "where at its switch": lambda x: jnp.where(x >= 0, x * 2, -x),
    }


@pytest.mark.parametrize("name", list(jax_cases()))
def test_jax_gradient_at_kinks(name: str) -> None:
    import jax
    fn = jax_cases()[name]
    want = jax.grad(lambda x: fn(x).sum())(KINKS)
    compiled = ivy_ir.compile(fn, "jax", args=(KINKS,))
    got = jax.grad(lambda x: compiled.apply(compiled.params, x).sum())(KINKS)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)


def tf_cases() -> dict[str, Any]:
    import tensorflow as tf
    return {
        "nn.relu6": tf.nn.relu6, "nn.relu": tf.nn.relu,
        "clip_by_value(0, 6)": lambda x: tf.clip_by_value(x, 0.0, 6.0),
        "clip_by_value(-1, 2)": lambda x: tf.clip_by_value(x, -1.0, 2.0),
        "abs": tf.abs, "maximum tie": lambda x: tf.maximum(x, tf.reverse(x, [0])),
        "minimum with 0": lambda x: tf.minimum(x, tf.zeros_like(x)),
        "where at its switch": lambda x: tf.where(x >= 0, x * 2, -x),
        "max_pool tie": lambda x: tf.nn.max_pool1d(tf.stack([x, x], -1)[None], 2, 1,
                                                   "VALID")[0, :, 0],
    }


@pytest.mark.parametrize("name", list(tf_cases()))
def test_tensorflow_gradient_at_kinks(name: str) -> None:
    import tensorflow as tf
    fn = tf_cases()[name]

    def grad(f: Any) -> np.ndarray:
        x = tf.constant(KINKS)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(f(x))
        return tape.gradient(y, x).numpy()
    compiled = ivy_ir.compile(fn, "tensorflow", args=(tf.constant(KINKS),))
    np.testing.assert_array_equal(grad(compiled), grad(fn), err_msg=name)


def ir_clip_gradient(target: str) -> np.ndarray:
    """d/dx sum(ivy.clip(x, 0, 6)) at KINKS, through `target`'s own autodiff."""
    import ivy.ops as ops
    compiled = ivy_ir.compile(lambda x: ops.clip(x, min=0.0, max=6.0), target, args=(KINKS,))
    if target == "jax":
        import jax
        return np.asarray(jax.grad(lambda x: compiled.apply(compiled.params, x).sum())(KINKS))
    if target == "torch":
        import torch
        x = torch.tensor(KINKS, requires_grad=True)
        return torch.autograd.grad(compiled(x).sum(), x)[0].numpy()
    import tensorflow as tf
    x = tf.constant(KINKS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(compiled(x))
    return tape.gradient(y, x).numpy()


@pytest.mark.parametrize("target", ("jax", "torch", "tensorflow"))
def test_ir_clip_gradient_is_one_on_its_bounds(target: str) -> None:
    # the IR's convention (docs/semantics.md): 1 on [min, max] bounds included, as
    # torch.clamp and tf.clip_by_value; jnp.clip alone would give 1/2 at 0 and 6
    np.testing.assert_array_equal(ir_clip_gradient(target), (KINKS >= 0) & (KINKS <= 6))


@pytest.mark.parametrize("target", ("numpy", "jax", "torch", "tensorflow"))
def test_integer_pow_with_a_negative_exponent_is_pinned(target: str) -> None:
    """docs/semantics.md: an error; NumPy and TF raise, torch and jax are not corrected
    and give the truncated power. Pinned so that a change on any side shows."""
    import ivy.ops as ops
    x = np.array([1, 2], np.int32)
    c = ivy_ir.compile(lambda v: ops.pow(v, np.array([-1], np.int32)), target, args=(x,),
                       passes="none")
    if target in ("jax", "torch"):
        np.testing.assert_array_equal(np.asarray(c(x)), [1, 0])
        return
    with pytest.raises(Exception, match="Integers to negative integer powers are not "
                                        "allowed") as info:
        c(x)
    assert target != "numpy" or isinstance(info.value, ValueError)


@pytest.mark.parametrize("target", ("numpy", "jax", "torch", "tensorflow"))
def test_clip_with_infinite_or_nan_bounds(target: str) -> None:
    import ivy.ops as ops
    x = np.array([-1.0, 0.5, 3.0, np.inf, -np.inf], np.float32)
    for lo, hi in ((0.0, np.inf), (-np.inf, 1.0)):
        c = ivy_ir.compile(lambda v, lo=lo, hi=hi: ops.clip(v, min=lo, max=hi), target,
                           args=(x,), passes="none")
        np.testing.assert_array_equal(np.asarray(c(x)), np.clip(x, lo, hi), err_msg=str(lo))


@pytest.mark.parametrize("target", TARGETS)
def test_not_of_a_comparison_is_true_where_a_nan_made_it_false(target: str) -> None:
    """`not (x < y)` is not `x >= y`: inside a `tf.function` TF's Grappler rewrites the
    one into the other, which the TF lowering's spelling of `not` prevents."""
    import ivy.ops as ops
    x, y = f32(nan, 1, 2, nan), f32(0, nan, 1, 3)
    cases = {"not less": (lambda a, b: ops.logical_not(ops.less(a, b)), ~(x < y)),
             "invert greater_equal": (lambda a, b: ops.bitwise_invert(ops.greater_equal(a, b)),
                                      ~(x >= y))}
    for name, (fn, want) in cases.items():
        c = ivy_ir.compile(fn, target, args=(x, y), passes="none")
        np.testing.assert_array_equal(np.asarray(c(x, y)), want, err_msg=name)


ORDERED = f32(-0.0, 1, nan, 0.0, -nan, -inf, -0.0, inf, 0.0, -1)
"""NaN of both sign bits, infinities and zeros of both signs (ties: -0.0 == 0.0)."""
ASCENDING = [5, 9, 0, 3, 6, 8, 1, 7, 2, 4]  # NaN last; ties in their order
DESCENDING = [2, 4, 7, 1, 0, 3, 6, 8, 9, 5]  # NaN first; ties in their order


@pytest.mark.parametrize("target", [*TARGETS, "onnx"])
def test_orders_put_nan_last_and_keep_ties_in_order(target: str) -> None:
    """NaN is the largest value whatever its sign bit, and ties (0.0 with -0.0) keep
    their order, in sort, argsort and top_k both ways. The JAX target's top_k put -NaN
    last and reordered signed zeros (XLA ranks the bits), its descending sort reversed
    tied zeros, and onnxruntime's TopK placed NaN anywhere."""
    for descending, order in ((False, ASCENDING), (True, DESCENDING)):
        got = run("argsort", [ORDERED], {"axis": 0, "descending": descending}, target)
        np.testing.assert_array_equal(got, order)
        values = run("sort", [ORDERED], {"axis": 0, "descending": descending}, target)
        numbers = slice(2, None) if descending else slice(0, 8)  # NaN's sign may change
        np.testing.assert_array_equal(np.signbit(values[numbers]),
                                      np.signbit(ORDERED[order][numbers]))
        np.testing.assert_array_equal(values, ORDERED[order])
        for k in (3, 10):
            top, _ = run_compiled("top_k", [ORDERED], {"k": k, "axis": 0,
                                                      "largest": descending}, target)
            np.testing.assert_array_equal(top[1], order[:k])
            np.testing.assert_array_equal(top[0], ORDERED[order[:k]])


@pytest.mark.parametrize("target", [*TARGETS, "onnx"])
@pytest.mark.parametrize("dtype, top, rtol", [("float32", 9, 1e-5), ("float64", 20, 1e-13)])
def test_erfc_keeps_its_relative_precision_in_the_tail(target: str, dtype: str, top: float,
                                                      rtol: float) -> None:
    """erfc(x) where 1 - erf(x) is all rounding (zero past x ~ 4 in float32, which the
    JAX and TF importers computed), against math.erfc. XLA's own float32 kernel is the
    least precise, 1.8e-6 relatively at x ~ 7."""
    x = np.concatenate([np.linspace(-3, 3, 13), np.linspace(3, top, 12)]).astype(dtype)
    want = np.array([math.erfc(v) for v in x.astype(np.float64)])
    np.testing.assert_allclose(run("erfc", [x], {}, target).astype(np.float64), want,
                               rtol=rtol, atol=0)


@pytest.mark.parametrize("target", TARGETS)
def test_sign_of_an_infinite_complex_is_pinned(target: str) -> None:
    """docs/semantics.md: NumPy 2 gives the unit direction of the infinite part; jax,
    torch and TF give NaN + NaNj (z / |z|), not corrected. Finite z agree."""
    got = run("sign", [c64(complex(inf, 3), 3 - 4j)], {}, target)
    first = 1 + 0j if target == "numpy" else complex(nan, nan)
    np.testing.assert_array_equal(got, c64(first, 0.6 - 0.8j))


def _standard(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)


def _rows(rng: np.random.Generator) -> list[np.ndarray]:
    return [1 + rng.random((8, 1000))]


def _offset(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return 5 + 3 * rng.standard_normal(shape)


ONE_ROUNDING: dict[str, tuple[Any, dict[str, Any], Any]] = {
    # op: (operands from a generator, attributes, the exact answer from float64 operands)
    "sum": (_rows, {"axis": (1,), "keepdims": False}, lambda x: x.sum(1)),
    "mean": (_rows, {"axis": (1,), "keepdims": True}, lambda x: x.mean(1, keepdims=True)),
    "cumsum": (_rows, {"axis": 1}, lambda x: x.cumsum(1)),
    "var": (_rows, {"axis": (1,), "keepdims": False, "correction": 1.0},
            lambda x: x.var(1, ddof=1)),
    "std": (_rows, {"axis": (1,), "keepdims": False, "correction": 0.0}, lambda x: x.std(1)),
    "conv": (lambda r: [1 + r.random((1, 8, 1000)), 1 + r.random((8, 1, 60))],
             {"strides": (1,), "padding": (0, 0), "dilations": (1,), "groups": 8},
             lambda x, w: np.stack([np.convolve(x[0, c], w[c, 0, ::-1], "valid")
                                    for c in range(8)])[None]),
    "layer_norm": (lambda r: [_offset(r, (8, 1000)), 0.5 + r.random(1000), r.random(1000)],
                   {"axis": (-1,)}, lambda x, w, b: _standard(x, (1,)) * w + b),
    "rms_norm": (lambda r: [_offset(r, (8, 1000)), None], {"axis": (-1,), "eps": 1e-5},
                 lambda x, _: x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5)),
    "group_norm": (lambda r: [_offset(r, (2, 8, 250)), None, None], {"num_groups": 4},
                   lambda x, *_: _standard(x.reshape(2, 4, -1), (2,)).reshape(x.shape)),
    "batch_norm": (lambda r: [_offset(r, (4, 8, 100)), 5 + r.random(8), 9 + r.random(8),
                              None, None], {"axis": 1},
                   lambda x, m, v, *_: (x - m[:, None]) / np.sqrt(v[:, None] + 1e-5)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", HALF_FLOATS)
@pytest.mark.parametrize("op", ONE_ROUNDING)
def test_half_float_sums_and_statistics_round_once(op: str, dtype: str, target: str
                                                   ) -> None:
    # rounding each partial sum or statistic to 8 or 11 bits (XLA told the dtype,
    # ml_dtypes, TF's scans and half kernels, an expansion op by op) drifts several units;
    # computing in float32 stays within one
    make, attrs, exact_of = ONE_ROUNDING[op]
    half = HALF_FLOATS[dtype][0]
    operands = [None if o is None else o.astype(np.float32).astype(half)
                for o in make(np.random.default_rng(7))]
    exact = exact_of(*(None if o is None else o.astype(np.float64) for o in operands))
    got = run(op, operands, attrs, target)
    assert got.dtype == operands[0].dtype
    # at least a quarter's unit: a normalized result near 0 is as exact as the inputs
    err = np.abs(got.astype(np.float64) - exact) / half_units(exact, dtype, 0.25)
    assert err.max() <= 1, f"{err.max():.1f} units off"


@pytest.mark.parametrize("target", TARGETS)
def test_float16_division_by_a_broadcast_operand_is_correctly_rounded(target: str) -> None:
    # XLA multiplies by the reciprocal rounded to float16 instead (a softmax's last step)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((64, 300)).astype(np.float16), \
        rng.standard_normal((64, 1)).astype(np.float16)
    want = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(run("divide", [x, y], {}, target), want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", HALF_FLOATS)
def test_nextafter_steps_one_unit_of_the_half_dtype(dtype: str, target: str) -> None:
    # TF has no half kernel: its rule steps the bits; zeros, infinities, the largest
    # finite value, NaN and equal operands, broadcast
    half = HALF_FLOATS[dtype][0]
    top = float(ml_dtypes.finfo(half).max)
    x = np.array([[0, -0.0, 1, -1, top, inf, -inf, nan, 2, 3]], np.float32).astype(half)
    y = np.array([[1], [-1], [0], [nan], [inf], [-0.0]], np.float32).astype(half)
    with np.errstate(all="ignore"):  # C's rule: x == y gives y (NumPy's float16 gives x)
        want = np.where(x == y, y, np.nextafter(x, y))
    got = run("nextafter", [x, y], {}, target)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)],
                                  want.view(np.uint16)[~np.isnan(want)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", HALF_FLOATS)
def test_erf_of_tiny_half_floats_is_not_flushed(dtype: str, target: str) -> None:
    # torch's own half-float erf gives 0 below ~1e-5, where erf(x) is 2x / sqrt(pi)
    half = HALF_FLOATS[dtype][0]
    x = np.array([1e-7, -1e-7, 2e-6, 1e-5, 3e-3, 0.5], np.float32).astype(half)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    got = run("erf", [x], {}, target).astype(np.float64)
    assert (np.abs(got - exact) <= half_units(exact, dtype)).all(), (got, exact)
