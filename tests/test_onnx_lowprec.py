"""The low-precision storage dtypes (float8, float4, int4, int2): ONNX's `Cast` into and
out of each (saturating and not, NaN and inf, ties, float8e8m0's rounding modes) and
`QuantizeLinear`/`DequantizeLinear` with them, every target against ONNX's reference
evaluator bit for bit; the ONNX exporter refuses them by name; the verifier
keeps the storage dtypes out of every op but `astype`; the text format round-trips them.
"""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_cases import make_model, tensor_info  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import IRError  # noqa: E402
from ivy_ir.dialect.dtypes import STORAGE_NAMES, numpy_dtype  # noqa: E402
from lowerings import LoweringError  # noqa: E402
from lowerings.runtime import host_array  # noqa: E402

FLOAT8 = {"float8_e4m3fn": TensorProto.FLOAT8E4M3FN, "float8_e4m3fnuz": TensorProto.FLOAT8E4M3FNUZ,
          "float8_e5m2": TensorProto.FLOAT8E5M2, "float8_e5m2fnuz": TensorProto.FLOAT8E5M2FNUZ}
SMALL_INTS = {"int4": TensorProto.INT4, "uint4": TensorProto.UINT4, "int2": TensorProto.INT2,
              "uint2": TensorProto.UINT2}
FLOAT4 = {"float4_e2m1fn": TensorProto.FLOAT4E2M1}
E8M0 = {"float8_e8m0fnu": TensorProto.FLOAT8E8M0}
ELEM = {**FLOAT8, **SMALL_INTS, **FLOAT4, **E8M0}
SUPPORTED = {  # the storage dtypes each target converts (the others refuse them)
    "numpy": set(ELEM), "jax": set(ELEM),
    "torch": set(ELEM),
    "tensorflow": set(ELEM),
}
TARGETS = ("numpy", "jax", "torch", "tensorflow")

# overflow, the midpoints around the largest finite values (464: e4m3fn's, 61440:
# e5m2's), ties to even (17, 19, 0.0703125), subnormals, signed zero, NaN and inf
VALUES = np.array([0.0, -0.0, 1.0, -3.3, 17.0, 19.0, 0.0703125, 2.0**-9, 2.0**-17, 240.0,
                   247.0, 448.0, 463.9, 464.0, 465.0, 500.0, 57344.0, 61439.0, 61440.0,
                   1e5, -1e5, np.inf, -np.inf, np.nan, 7.5, -8.5, 2.5, 16.0, 300.0, -2.5],
                  np.float32)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal dtype, shape and values, NaN where NaN (float8 compared as float32)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))


def _casts(source: int, targets: dict[str, int], **attrs: object) -> onnx.ModelProto:
    nodes = [helper.make_node("Cast", ["x"], [name], to=elem, **attrs)
             for name, elem in targets.items()]
    outs = [tensor_info(name, [len(VALUES)], elem) for name, elem in targets.items()]
    return make_model(nodes, [tensor_info("x", [len(VALUES)], source)], outs, opset=25)


def _check(model: onnx.ModelProto, inputs: dict[str, np.ndarray], target: str) -> None:
    want = ReferenceEvaluator(model).run(None, inputs)
    got = ivy_ir.compile(model, target=target, args=tuple(inputs.values()))(*inputs.values())
    for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want):
        _same(host_array(g), w)


def _only(target: str, table: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in table.items() if k in SUPPORTED[target]}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("saturate", [0, 1])
def test_cast_into_float8(target: str, saturate: int) -> None:
    model = _casts(TensorProto.FLOAT, _only(target, FLOAT8), saturate=saturate)
    _check(model, {"x": VALUES}, target)
    # from float16 too: one rounding, not two
    half = _casts(TensorProto.FLOAT16, _only(target, FLOAT8), saturate=saturate)
    with np.errstate(over="ignore"):  # 1e5 is inf in float16
        _check(half, {"x": VALUES.astype(np.float16)}, target)
    # from float64 through float32, as ml_dtypes rounds: 1.0625 + 2**-30 ties in float32
    double = _casts(TensorProto.DOUBLE, _only(target, FLOAT8), saturate=saturate)
    traps = VALUES.astype(np.float64) + np.where(VALUES == 1.0, 0.0625 + 2.0**-30, 0.0)
    _check(double, {"x": traps}, target)


@pytest.mark.parametrize("target", TARGETS)
def test_cast_into_small_ints_and_float4(target: str) -> None:
    """int4/int2 take the truncated value's low bits (NaN and inf give 0); float4 rounds
    to nearest even: ml_dtypes' conversion, which ONNX's reference uses."""
    _check(_casts(TensorProto.FLOAT, _only(target, {**SMALL_INTS, **FLOAT4})), {"x": VALUES},
           target)
    ints = np.array([-9, -8, -3, 7, 8, 15, 16, 300, 2**40 + 5], np.int64)
    doubles = np.array([2.0**31 - 0.5, -7.5, 7.9, 1e10], np.float64)  # 2**31 in float32
    for elem, x in ((TensorProto.INT64, ints), (TensorProto.DOUBLE, doubles)):
        model = make_model([helper.make_node("Cast", ["x"], [k], to=v)
                            for k, v in _only(target, SMALL_INTS).items()],
                           [tensor_info("x", [len(x)], elem)],
                           [tensor_info(k, [len(x)], v)
                            for k, v in _only(target, SMALL_INTS).items()], opset=25)
        _check(model, {"x": x}, target)


def _every_value(name: str) -> np.ndarray:
    """Every value of storage dtype `name` (all bit patterns)."""
    if name in SMALL_INTS:
        info = ml_dtypes.iinfo(numpy_dtype(name))
        return np.arange(info.min, info.max + 1).astype(numpy_dtype(name))
    return np.arange(256 if name in FLOAT8 else 16, dtype=np.uint8).view(numpy_dtype(name))


def _cast_out(name: str, n: int, outs: dict[str, int]) -> onnx.ModelProto:
    nodes = [helper.make_node("Cast", ["x"], [k], to=v) for k, v in outs.items()]
    return make_model(nodes, [tensor_info("x", [n], ELEM[name])],
                      [tensor_info(k, [n], v) for k, v in outs.items()], opset=25)


@pytest.mark.parametrize("target", TARGETS)
def test_cast_out_of_every_value(target: str) -> None:
    """Into float32 and float16 exactly; into int32 (finite values: the IR reads a
    storage float into an integer through float32, where ml_dtypes saturates inf)."""
    for name in sorted(SUPPORTED[target] - set(E8M0)):  # e8m0: 2**-127 is subnormal
        x = _every_value(name)
        floats = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16}
        _check(_cast_out(name, len(x), floats), {"x": x}, target)
        x = x[np.isfinite(x.astype(np.float32))]
        _check(_cast_out(name, len(x), {"i32": TensorProto.INT32}), {"x": x}, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("saturate", [0, 1])
def test_cast_into_float8e8m0(target: str, round_mode: str, saturate: int) -> None:
    x = np.array([0.0, 0.124, 0.25, 0.5, 1.1, 1.5, 1.75, 2.0, 3.0, 8.0, -4.0, 2.0**-130,
                  3e38, np.inf, np.nan], np.float32)
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0,
                            saturate=saturate, round_mode=round_mode)
    model = make_model([node], [tensor_info("x", [len(x)])],
                       [tensor_info("y", [len(x)], TensorProto.FLOAT8E8M0)], opset=25)
    _check(model, {"x": x}, target)


def _quantize(elem: int, scale: np.ndarray, axis: int = 1, block: int = 0,
              saturate: int = 1) -> onnx.ModelProto:
    zero = helper.make_tensor("zero", elem, scale.shape, [0] * scale.size)
    scales = helper.make_tensor("scale", TensorProto.FLOAT, scale.shape, scale.ravel())
    attrs = {"axis": axis, **({"block_size": block} if block else {})}
    quant = helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"],
                             saturate=saturate, **attrs)
    dequant = helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"], **attrs)
    return make_model([quant, dequant], [tensor_info("x", [3, 4])],
                      [tensor_info("q", [3, 4], elem), tensor_info("y", [3, 4])],
                      inits=[zero, scales], opset=21)


@pytest.mark.parametrize("target", TARGETS)
def test_quantize_round_trip(target: str) -> None:
    """Per-axis and blocked int4/int2/float8/float4 quantization (zero points given as
    initializers: ONNX packs the 4- and 2-bit ones two and four to a byte)."""
    x = np.array([[-9.0, -2.5, 0.4, 3.0], [7.5, 6.5, -100.0, 0.5], [2.0, 500.0, -1.0, 1e4]],
                 np.float32)
    for name in sorted(SUPPORTED[target]):
        if name in E8M0:
            continue
        elem = ELEM[name]
        _check(_quantize(elem, np.array([0.5, 2.0, 1.0], np.float32), axis=0), {"x": x},
               target)
        blocks = np.array([[0.5, 4.0], [1.0, 0.25], [2.0, 8.0]], np.float32)
        _check(_quantize(elem, blocks, axis=1, block=2), {"x": x}, target)
        if name in FLOAT8:
            _check(_quantize(elem, np.array([0.01], np.float32), axis=0, saturate=0),
                   {"x": x}, target)


def test_onnx_export_refuses_storage_dtypes() -> None:
    module = ivy_ir.trace(_casts(TensorProto.FLOAT, {"int4": TensorProto.INT4}), args=(VALUES,))
    with pytest.raises(LoweringError, match=r"(?s)onnx target cannot run .*astype in int4"):
        ivy_ir.lower(module, target="onnx")


def _program(op: str, args: str, result: str) -> str:
    """A one-op function of `x` (and `x` again where `args` names two operands)."""
    operands = ", ".join("%x" for _ in args.split(", "))
    return (f"func.func @f(%x: {args.split(', ')[0]}) -> {result} {{\n"
            f"  %y = {op.replace('%x', operands)} : ({args}) -> {result}\n"
            f"  func.return %y : {result}\n}}\n")


def test_text_round_trip_of_every_storage_dtype() -> None:
    from ivy_ir.dialect.types import DTYPES

    for name in STORAGE_NAMES:
        t = str(DTYPES[name])
        module = ivy_ir.parse(_program(f"ivy.astype %x {{dtype = {t}}}", "tensor<4xf32>",
                                       f"tensor<4x{t}>"))
        assert f"-> tensor<4x{t}>" in str(module)
        assert str(ivy_ir.parse(str(module))) == str(module)


@pytest.mark.parametrize(("op", "args", "result"), [
    ("ivy.reshape %x {shape = [2, 2]}", "tensor<4xf8E4M3FN>", "tensor<2x2xf8E4M3FN>"),
    ("ivy.add %x", "tensor<4xi4>, tensor<4xi4>", "tensor<4xi4>"),
    ("ivy.zeros_like %x {dtype = f8E5M2}", "tensor<4xf32>", "tensor<4xf8E5M2>"),
    ("ivy.bitcast %x {dtype = ui4}", "tensor<4xf32>", "tensor<4xui4>"),
])
def test_only_astype_touches_storage_dtypes(op: str, args: str, result: str) -> None:
    with pytest.raises(IRError, match="storage dtype|must have|real dtype"):
        ivy_ir.parse(_program(op, args, result))


@pytest.mark.parametrize("target", TARGETS)
def test_large_initializers_are_buffers(target: str) -> None:
    """Initializers of storage dtypes (ONNX packs int4/int2 two and four to a byte) are
    decoded by ONNX's reader and become buffers of their dtype on every target."""
    from onnx import numpy_helper

    names = sorted(SUPPORTED[target] - set(E8M0) - set(FLOAT4))
    inits = [numpy_helper.from_array(
        (np.arange(100) % 7 - 3).astype(np.int8).astype(numpy_dtype(n)), n) for n in names]
    nodes = [helper.make_node("Cast", [n], [f"{n}_f"], to=TensorProto.FLOAT) for n in names]
    nodes += [helper.make_node("Sum", ["x", *(f"{n}_f" for n in names)], ["y"])]
    model = make_model(nodes, [tensor_info("x", [100])], [tensor_info("y", [100])],
                       inits=inits, opset=21)
    _check(model, {"x": np.linspace(-1, 1, 100, dtype=np.float32)}, target)
    assert any("ivy.buffer" in line and "xi4" in line
               for line in str(ivy_ir.trace(model, args=(np.zeros(100, np.float32),))).split("\n"))


def test_canonicalize_keeps_rounding_casts() -> None:
    """astype(astype(x, m), dtype of x) becomes x only where m holds x exactly: a round
    trip through float8 rounds, one of int4 through int8 does not."""
    from ivy_ir.passes import run_pipeline

    text = ("func.func @f(%x: tensor<4xf32>, %i: tensor<4xi4>) -> (tensor<4xf32>, "
            "tensor<4xi4>) {\n"
            "  %a = ivy.astype %x {dtype = f8E4M3FN} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>\n"
            "  %b = ivy.astype %a {dtype = f32} : (tensor<4xf8E4M3FN>) -> tensor<4xf32>\n"
            "  %c = ivy.astype %i {dtype = i8} : (tensor<4xi4>) -> tensor<4xi8>\n"
            "  %d = ivy.astype %c {dtype = i4} : (tensor<4xi8>) -> tensor<4xi4>\n"
            "  func.return %b, %d : tensor<4xf32>, tensor<4xi4>\n}\n")
    module = ivy_ir.parse(text)
    module = run_pipeline(module, "default")
    printed = str(module)
    assert "(tensor<4xf32>) -> tensor<4xf8E4M3FN>" in printed
    assert "xi8>" not in printed
    x = np.array([1.0, 17.0, 500.0, -0.3], np.float32)
    i = np.array([-8, -1, 0, 7], np.int8).astype(numpy_dtype("int4"))
    b, d = ivy_ir.lower(module, target="numpy")(x, i)
    _same(b, x.astype(numpy_dtype("float8_e4m3fn")).astype(np.float32))
    _same(d, i)
