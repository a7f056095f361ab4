"""The unsigned ints wider than uint8 and the complex dtypes, end to end: IR text,
inference, promotion, and every op of their classes on every target against NumPy
(`dtype_sweep.py`), where the registry does not declare the target unable to run it.

Programs call the tracer's recording ops (`OPS`), the registry's own signatures, so
these tests hold whatever the facade's public signatures are."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from dtype_sweep import NEW_DTYPES, SKIPPED, compare, ops_for, program, run, supported

import ivy_ir
from ivy_ir.core.tracer import OPS as F
from ivy_ir.dialect import SPECS, TensorSpec, dtype_name
from ivy_ir.dialect.attrs import dense_value
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.ops import infer_types
from lowerings import LoweringError

TARGETS = ["jax", "torch", "tensorflow"]
SHORT = {"uint16": "ui16", "uint32": "ui32", "uint64": "ui64", "complex64": "complex<f32>",
         "complex128": "complex<f64>"}
EDGES = {
    "uint16": [0, 1, 2**15, 2**16 - 1], "uint32": [0, 3, 2**31 + 7, 2**32 - 1],
    "uint64": [0, 5, 2**63 + 11, 2**64 - 1],
    "complex64": [0j, 1.5 - 2j, -0.0 + 3e38j, complex(np.inf, 1)],
    "complex128": [-0.0 - 0.0j, 1e-300 + 1j, complex(1, np.nan), complex(-np.inf, np.inf)],
}
"""Values at the ends of each dtype's range: wrapping sums, signed zeros, inf and NaN."""
INF_PARTS_DIFFER = {("torch", "add"), ("torch", "subtract")}
"""Complex results with a non-finite part that a target gives otherwise than NumPy (still
not finite; docs/targets.md): torch adds `x + 1 * y`, so an inf or NaN part of y meets
alpha's zero imaginary part (NaN). Every target's complex multiply differs likewise
(C99 Annex G or not)."""
TIE_ORDER = {("torch", "top_k")}
"""(target, op) whose indices at ties are the framework's choice (torch.topk's), as the
differential tests accept (`op_refs_shape._top_k_check`): left out of the sweep here,
tests/test_torch_unsigned.py checks them by the values they pick."""


def _constants_module(dtype: str) -> ivy_ir.Module:
    values = np.array(EDGES[dtype], dtype)
    return ivy_ir.trace(lambda x: (x + values, F.astype(x, dtype="float64")),
                        args=(np.zeros(4, dtype),))


def _constant_values(module: ivy_ir.Module) -> list[np.ndarray]:
    return [dense_value(op.properties["value"]) for op in module.op.walk()
            if op.name == "ivy.constant"]


@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_ir_text_round_trips(dtype: str) -> None:
    m = _constants_module(dtype)
    text = str(m)
    assert f"tensor<4x{SHORT[dtype]}>" in text
    again = ivy_ir.parse(text)
    assert str(again) == text
    got, want = _constant_values(again), [np.array(EDGES[dtype], dtype)]
    assert [g.dtype for g in got] == [w.dtype for w in want]
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]  # every bit, NaN too


@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_dtype_attribute_round_trips(dtype: str) -> None:
    text = f"""func.func @main(%x: tensor<2xf32>) -> tensor<2x{SHORT[dtype]}> {{
  %y = ivy.astype %x {{dtype = {SHORT[dtype]}}} : (tensor<2xf32>) -> tensor<2x{SHORT[dtype]}>
  func.return %y : tensor<2x{SHORT[dtype]}>
}}"""
    m = ivy_ir.parse(text)
    assert ivy_ir.parse(str(m)).outputs == [TensorSpec((2,), dtype)]


def test_complex_constants_print_readably_when_finite() -> None:
    m = ivy_ir.trace(lambda x: x * np.array([1 + 2j, 3.5 - 4j], np.complex64),
                     args=(np.zeros(2, np.complex64),))
    assert "dense<[(1.000000e+00,2.000000e+00), (3.500000e+00,-4.000000e+00)]>" in str(m)


def test_dtype_names() -> None:
    assert [dtype_name(n) for n in ("ui16", "ui32", "ui64", "complex")] == \
        ["uint16", "uint32", "uint64", "complex64"]
    assert dtype_name(np.complex128) == "complex128"
    assert dtype_name(np.dtype("uint32")) == "uint32"


def test_abs_of_complex_is_real() -> None:
    for c, r in (("complex64", "float32"), ("complex128", "float64")):
        assert infer_types(SPECS["abs"], [TensorSpec((2,), c)], {}) == [TensorSpec((2,), r)]
    assert infer_types(SPECS["abs"], [TensorSpec((2,), "uint32")], {})[0].dtype == "uint32"


@pytest.mark.parametrize("name", ["maximum", "less", "sort", "floor_divide", "vecdot"])
def test_ordering_ops_refuse_complex(name: str) -> None:
    x = np.ones(3, np.complex64)
    with pytest.raises(InferError, match=rf"ivy\.{name}.*real dtype, got complex64"):
        ivy_ir.trace(lambda a: getattr(F, name)(a, a) if len(SPECS[name].operands) == 2
                     else getattr(F, name)(a), args=(x,))


@pytest.mark.parametrize("operands,want", [
    ((np.ones(2, np.complex64), np.ones(2, np.float64)), "complex128"),
    ((np.ones(2, np.complex64), np.ones(2, np.int64)), "complex64"),
    ((np.ones(2, np.uint16), np.ones(2, np.uint32)), "uint32"),
    ((np.ones(2, np.uint64), 2), "uint64"),
    ((np.ones(2, np.uint16), 1.5), "float32"),
    ((np.ones(2, np.float64), 2j), "complex128"),
    ((np.ones(2, np.int32), 2j), "complex64"),
])
def test_promotion(operands: tuple, want: str) -> None:
    m = ivy_ir.trace(lambda x: F.add(x, operands[1]), args=(operands[0],)) \
        if not isinstance(operands[1], np.ndarray) else ivy_ir.trace(F.add, args=operands)
    assert m.outputs[0].dtype == want


def test_exp_of_ints_is_float_and_of_complex_complex() -> None:
    assert ivy_ir.trace(F.exp, args=(np.ones(2, np.uint32),)).outputs[0].dtype == "float32"
    assert ivy_ir.trace(F.exp, args=(np.ones(2, np.complex128),)).outputs[0].dtype == \
        "complex128"


@pytest.mark.parametrize("target", ["numpy", *TARGETS])
@pytest.mark.parametrize("dtype", NEW_DTYPES)
@pytest.mark.parametrize("name", ["add", "multiply", "sum", "abs"])
def test_core_ops_at_the_edges(name: str, dtype: str, target: str) -> None:
    """add/multiply/sum/abs on the ends of the range (uint sums wrap, complex inf and NaN
    parts) against NumPy itself."""
    x = np.array(EDGES[dtype], dtype)
    y = x[::-1].copy()
    fn = getattr(F, name)
    program, args = ((lambda a, b: fn(a, b)), (x, y)) if name in ("add", "multiply") \
        else ((lambda a: fn(a)), (x,))
    if dtype in SPECS[name].unsupported.get(target, ()):
        with pytest.raises(LoweringError, match=rf"(?s){target} target cannot run.*"
                                                rf"ivy\.{name} in {dtype}"):
            ivy_ir.compile(program, target, args=args)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf * 0 in NumPy's complex multiply
        want = np.asarray({"add": np.add, "multiply": np.multiply, "abs": np.abs,
                           "sum": lambda a: np.sum(a, dtype=a.dtype)}[name](*args))
        got = run(ivy_ir.compile(program, target, args=args).ir_module, list(args), target)[0]
    if dtype in ("complex64", "complex128") and (name == "multiply" or (target, name) in
                                                 INF_PARTS_DIFFER):
        finite = np.isfinite(want)
        compare(got[finite], want[finite], f"{name} on {target}")
        assert not np.isfinite(got[~finite]).any()
    else:
        compare(got, want, f"{name} on {target}")


def test_a_target_without_the_kernel_says_so() -> None:
    x = (np.eye(3) * 2).astype(np.float16)
    with pytest.raises(LoweringError) as err:
        ivy_ir.compile(lambda a: F.det(F.cholesky(a)), "jax", args=(x,))
    text = str(err.value)
    assert "jax target cannot run" in text
    assert "ivy.cholesky in float16" in text and "ivy.det in float16" in text  # all at once


def test_torch_runs_uint64_on_its_bits() -> None:
    """torch has no uint64 kernels for these: they run on the int64 view of the bits."""
    x = np.array([1, 2**63 + 5, 2**64 - 1, 7], np.uint64)
    got = ivy_ir.compile(lambda a: F.sum(F.add(a, a)), "torch", args=(x,))(x)
    np.testing.assert_array_equal(np.asarray(got), np.sum(x + x))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_every_op_in_the_dtype(dtype: str, target: str) -> None:
    """Every op whose class admits `dtype` in one program per target: the ones the
    registry declares unsupported fail to compile, all named at once; the others give
    NumPy's values."""
    names = [n for n in supported(ops_for(dtype), dtype, target) if (target, n) not in TIE_ORDER]
    module, inputs, labels = program(names, dtype)
    want = run(module, inputs, "numpy")
    got = run(module, inputs, target)
    for i, (g, w, label) in enumerate(zip(got, want, labels)):
        compare(g, w, f"ivy.{label} (result {i}) in {dtype} on {target}")


def test_skipped_ops_say_why() -> None:
    assert all(SPECS[n] and reason for n, reason in SKIPPED.items())


CASTS = ["bool", "int8", "uint8", "int64", "float32", "float64", *NEW_DTYPES]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_astype_from_the_dtype(dtype: str, target: str) -> None:
    """Casts out of each new dtype (complex to real keeps the real part, as NumPy)."""
    x = np.array([0, 1, 2 - 1j, 3 + 2j] if "complex" in dtype else [0, 1, 2, 3], dtype)

    def fn(a):
        return [F.astype(a, dtype=d) for d in CASTS if d != dtype]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's ComplexWarning: the imaginary part goes
        module = ivy_ir.trace(fn, args=(x,))
        want = run(module, [x], "numpy")
        got = run(module, [x], target)
    for g, w in zip(got, want):
        compare(g, w, f"astype {dtype} -> {w.dtype} on {target}")


def _sources() -> dict[str, tuple]:
    """Per source framework: its array constructor and a program over complex input and
    one over unsigned input, as its users write them."""
    import jax.numpy as jnp
    import tensorflow as tf
    import torch

    return {
        "numpy": (np.asarray, lambda a: (np.abs(a), np.exp(a) * a + 1, np.sum(a), a / a),
                  lambda b: b * 3 + np.uint32(1)),
        "jax": (jnp.asarray, lambda a: (jnp.abs(a), jnp.exp(a) * a + 1, jnp.sum(a), a / a),
                lambda b: b * 3 + 1),
        "torch": (torch.as_tensor, lambda a: (torch.abs(a), torch.exp(a) * a + 1,
                                              torch.sum(a), a / a), lambda b: b * 3),
        "tensorflow": (tf.constant, lambda a: (tf.math.abs(a), tf.math.exp(a) * a + 1,
                                               tf.reduce_sum(a), a / a), lambda b: b * 3 + 1),
    }


@pytest.mark.parametrize("source", ["numpy", "jax", "torch", "tensorflow"])
def test_importers_read_the_dtypes(source: str) -> None:
    """Each importer takes complex and unsigned inputs and imports what their programs
    compute, in the source framework's result dtypes."""
    make, on_complex, on_unsigned = _sources()[source]
    for fn, x in ((on_complex, np.array([1 + 2j, -0.5 + 1j], np.complex64)),
                  (on_unsigned, np.array([3, 2**32 - 1], np.uint32))):
        module = ivy_ir.trace(fn, (make(x),))
        want = fn(make(x))
        want = [np.asarray(w) for w in (want if isinstance(want, tuple) else (want,))]
        got = run(module, [x], "numpy")
        for g, w in zip(got, want, strict=True):
            compare(g, w, f"{source} import")


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "uint32"])
def test_default_passes_keep_every_bit(dtype: str) -> None:
    """The identities the canonicalizer uses on floats or integers, on these dtypes: the
    optimized program gives the same bits as the unoptimized one (complex: inf and NaN
    parts, signed zeros; unsigned: wrapping)."""
    from ivy_ir.passes import run_pipeline

    def fn(x):
        one, zero = np.ones((), dtype), np.zeros((), dtype)
        return [F.multiply(x, one), F.add(x, -zero), F.subtract(x, zero), F.subtract(x, x),
                F.sign(F.sign(x)), F.abs(F.abs(x)), F.negative(F.negative(x)),
                F.equal(x, x), F.pow(x, one + one), F.multiply(x, zero)]
    x = np.array(EDGES[dtype], dtype)
    module = ivy_ir.trace(fn, args=(x,), source="ivy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = run(module, [x], "numpy")
        got = run(run_pipeline(module, "default"), [x], "numpy")
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes(), f"result {i}: {g} != {w}"


def test_numpy_operators_on_a_tracer_record_the_operators_op() -> None:
    """`ndarray <op> tracer` reaches the tracer through `__array_ufunc__` (NumPy calls the
    operator's ufunc); ufuncs that are no operator, and ufunc methods, stay NumPy's
    TypeError unless the facade entered them."""
    from xdsl.ir import Block

    from ivy_ir.core.graph import Graph
    from ivy_ir.core.tracer import FOREIGN, Tracer
    from ivy_ir.dialect import TensorSpec

    block = Block()
    graph = Graph(block, allow_params=False)
    t = Tracer(block.insert_arg(TensorSpec((3,), "float32").to_xdsl(), 0), graph)
    a = np.arange(3, dtype=np.float32)
    for result, op in ((a + t, "ivy.add"), (a ** t, "ivy.pow"), (a < t, "ivy.less"),
                       (np.negative(t), "ivy.negative"), (abs(a) - t, "ivy.subtract")):
        assert isinstance(result, Tracer)
        assert result.value.owner.name == op
    if np.cumsum not in FOREIGN:
        with pytest.raises(TypeError, match="cumsum"):
            np.cumsum(t)
    with pytest.raises(TypeError):
        np.add.reduce(t)
