"""The storage dtypes TensorFlow carries as bytes (int2, uint2, float8e4m3fnuz,
float8e5m2fnuz, float8e8m0fnu, float4e2m1fn: `lowerings/tensorflow_storage.py`), bit
for bit against the NumPy target (ml_dtypes): every code read into every kind, a sweep
of values written from every kind (ties, subnormals, overflow, NaN, inf, -0.0), the call
boundary (ml_dtypes arrays and TF tensors in, ml_dtypes arrays out, buffers, XLA), the
float remainder's edge cases, and ONNX's own node tests of the ops that use them.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
ml_dtypes = pytest.importorskip("ml_dtypes")

import ivy_ir  # noqa: E402
from ivy_ir.dialect.dtypes import numpy_dtype  # noqa: E402
from ivy_ir.dialect.types import DTYPES, STORAGE_INTS  # noqa: E402
from lowerings.storage import FORMATS  # noqa: E402
from lowerings.tensorflow_storage import CARRIED  # noqa: E402

NAMES = sorted(CARRIED)
READ_INTO = ("float32", "float64", "float16", "bfloat16", "int32", "int8", "uint8", "bool",
             "float8_e4m3fn", "float8_e5m2", *NAMES)
WRITE_FROM = ("float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "bool",
              "float8_e4m3fn", *NAMES)


def _pairs(sources: tuple[str, ...], targets: tuple[str, ...]) -> list[tuple[str, str]]:
    """The casts ml_dtypes (the NumPy target, the reference) has: not every pair of
    storage dtypes."""
    pairs = []
    for src in sources:
        for dst in targets:
            try:
                np.zeros(1, numpy_dtype(src)).astype(numpy_dtype(dst))
            except TypeError:
                continue
            if src != dst:
                pairs.append((src, dst))
    return pairs


def _cast(src: str, dst: str, n: int) -> ivy_ir.Module:
    t, u = str(DTYPES[src]), str(DTYPES[dst])
    return ivy_ir.parse(
        f"func.func @f(%x: tensor<{n}x{t}>) -> tensor<{n}x{u}> {{\n"
        f"  %y = ivy.astype %x {{dtype = {u}}} : (tensor<{n}x{t}>) -> tensor<{n}x{u}>\n"
        f"  func.return %y : tensor<{n}x{u}>\n}}\n")


def _bits(a: Any) -> np.ndarray:
    """An array's bytes as unsigned integers of its width (NaN payloads and signs kept)."""
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(np.uint8) if a.dtype == bool else a.view(f"uint{a.dtype.itemsize * 8}")


def _agree(src: str, dst: str, x: np.ndarray, **options: Any) -> None:
    """astype(x, dst) on TF equals the NumPy target's bit for bit, dtype included."""
    module = _cast(src, dst, len(x))
    want = ivy_ir.lower(module, target="numpy")(x)
    got = np.asarray(ivy_ir.lower(module, target="tensorflow", **options)(x))
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    bad = np.nonzero(_bits(got) != _bits(want))[0]
    assert not len(bad), f"{src} -> {dst} at {x[bad[:5]]}: {got[bad[:5]]}, want {want[bad[:5]]}"


def _every_code(name: str) -> np.ndarray:
    """Every value of `name`: each bit pattern ml_dtypes gives a value (one per byte)."""
    if name in FORMATS:
        fmt = FORMATS[name]
        count = 1 << (fmt.exponent + fmt.mantissa + fmt.signed)
        return np.arange(count, dtype=np.uint8).view(numpy_dtype(name))
    info = ml_dtypes.iinfo(numpy_dtype(name))
    return np.arange(info.min, info.max + 1).astype(numpy_dtype(name))


@pytest.mark.parametrize(("name", "dst"), _pairs(tuple(NAMES), READ_INTO))
def test_every_code_reads(name: str, dst: str) -> None:
    x = _every_code(name)
    if dst in ("int8", "uint8"):  # TF's own float -> int8 cast saturates, NumPy's wraps
        wide = x.astype(np.float64)
        x = x[(wide >= np.iinfo(dst).min) & (wide <= np.iinfo(dst).max)]
    _agree(name, dst, x)


def _sweep() -> np.ndarray:
    """float32 values at every place the encodings decide something: each code's value
    of every format, the midpoints between neighbours (ties) and the floats beside
    them, subnormals of float32 and of the formats, the overflow thresholds, NaN, inf
    and -0.0, and random bit patterns."""
    points = [np.float32(v) for v in (0.0, 2.0**-149, 2.0**-130, 2.0**-127, 1.5 * 2.0**-127,
                                      2.0**-126, 3e38, np.inf, np.nan, 1e-10, 0.3, 1e5)]
    for name in FORMATS:
        values = np.unique(_every_code(name).astype(np.float64))
        values = values[np.isfinite(values)]
        mids = (values[1:] + values[:-1]) / 2
        top = 2 * values[-1] - mids[-1]  # the midpoint above the largest value
        points += [*values.astype(np.float32), *mids.astype(np.float32), np.float32(top)]
    points = np.array(points, np.float32)
    near = np.concatenate([points, np.nextafter(points, np.float32(np.inf)),
                           np.nextafter(points, np.float32(0))])
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = np.concatenate([near, noise])
    return np.concatenate([near, -near])


def written_values(src: str) -> np.ndarray:
    """The values of dtype `src` to write into a storage dtype: the float sweep, every
    code of a storage int, integers around the small ones' wrap points."""
    with np.errstate(all="ignore"):
        if "float" in src:
            x = _sweep().astype(numpy_dtype(src))
            if src == "float64":  # beside the float64 -> float32 rounding's ties, and
                # the edges of int32 (ml_dtypes reads float64 into int2 directly)
                edges = [2.0**31 - 1, 2.0**31 - 0.5, 2.0**31, -2.0**31 - 0.5, 2.0**25 + 1]
                x = np.concatenate([x, x * (1 + 2.0**-25), x * (1 - 2.0**-25), edges])
            return x
        if src in STORAGE_INTS:
            return _every_code(src)
        x = np.array([0, 1, -1, 2, 3, -2, 5, -7, 100, 255, -128, 2**20 + 3, 2**40 + 5])
        return x.astype(numpy_dtype(src))


@pytest.mark.parametrize(("src", "name"), _pairs(WRITE_FROM, (*NAMES, "int4", "uint4")))
def test_values_write(src: str, name: str) -> None:
    _agree(src, name, written_values(src))


@pytest.mark.parametrize("name", ["float8_e8m0fnu", "float4_e2m1fn", "int2", "int4", "uint4"])
def test_under_xla(name: str) -> None:
    """int4/uint4 too: TF's own int4 tensors leave an XLA function scrambled."""
    _agree("float32", name, _sweep(), jit_compile=True)
    _agree(name, "float32", _every_code(name), jit_compile=True)


def test_call_boundary() -> None:
    """ml_dtypes arrays and TF's own tensors of these dtypes go in; results come out as
    ml_dtypes arrays, a carried input returned as it is included; buffers hold bytes."""
    text = ("func.func @f(%x: tensor<4xf32>, %q: tensor<4xui2>) -> (tensor<4xf8E5M2FNUZ>, "
            "tensor<4xf32>, tensor<4xui2>) {\n"
            "  %a = ivy.astype %x {dtype = f8E5M2FNUZ} : (tensor<4xf32>) -> tensor<4xf8E5M2FNUZ>\n"
            "  %b = ivy.astype %q {dtype = f32} : (tensor<4xui2>) -> tensor<4xf32>\n"
            "  func.return %a, %b, %q : tensor<4xf8E5M2FNUZ>, tensor<4xf32>, tensor<4xui2>\n}\n")
    x = np.array([1.0, -0.0, 3e5, 0.1], np.float32)
    q = np.array([0, 1, 2, 3], np.uint8).astype(ml_dtypes.uint2)
    want = ivy_ir.lower(ivy_ir.parse(text), target="numpy")(x, q)
    compiled = ivy_ir.lower(ivy_ir.parse(text), target="tensorflow")
    for inputs in ((x, q), (tf.constant(x), tf.constant(q)), (x, q.tolist())):
        got = compiled(*inputs)
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == w.dtype
            np.testing.assert_array_equal(_bits(g), _bits(w))


def test_buffers_and_constants_of_carried_dtypes() -> None:
    """A buffer (a `tf.Variable` of the bytes) and a small inline constant of each."""
    rows = []
    for i, name in enumerate(NAMES):
        t = str(DTYPES[name])
        rows.append((f"%p{i}: tensor<8x{t}> {{ivy.buffer = \"w{i}\"}}",
                     f"  %c{i} = ivy.astype %p{i} {{dtype = f32}} : (tensor<8x{t}>) -> "
                     "tensor<8xf32>\n", f"%c{i}"))
    args = ", ".join(r[0] for r in rows)
    body = "".join(r[1] for r in rows)
    outs = ", ".join(r[2] for r in rows)
    types = ", ".join("tensor<8xf32>" for _ in rows)
    text = f"func.func @f({args}) -> ({types}) {{\n{body}  func.return {outs} : {types}\n}}\n"
    module = ivy_ir.parse(text)
    params = {f"w{i}": _every_code(n)[:8] for i, n in enumerate(NAMES)}
    want = ivy_ir.lower(module, target="numpy", params=params)()
    got = ivy_ir.lower(module, target="tensorflow", params=params)()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(_bits(g), _bits(w))


EDGES = (np.array([0.0, -0.0, 0.0, -0.0, -3.0, 3.0, -1.0, 1.0, np.inf, -np.inf, 1.0, 1.0,
                   np.nan, 1.0, 5.5, -5.5, 1e30, 7.0]),
         np.array([-2.0, 2.0, 2.0, -2.0, np.inf, np.inf, -np.inf, -np.inf, 2.0, 2.0, 0.0, -0.0,
                   2.0, np.nan, -2.0, 2.0, 3.0, -np.inf]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", ["remainder", "floor_divide"])
def test_float_division_edges(op: str, dtype: str) -> None:
    """NumPy's answers, signed zeros included; float16 and bfloat16 in float32."""
    t = str(DTYPES[dtype])
    n = len(EDGES[0])
    module = ivy_ir.parse(
        f"func.func @f(%x: tensor<{n}x{t}>, %y: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
        f"  %z = ivy.{op} %x, %y : (tensor<{n}x{t}>, tensor<{n}x{t}>) -> tensor<{n}x{t}>\n"
        f"  func.return %z : tensor<{n}x{t}>\n}}\n")
    x, y = (e.astype(numpy_dtype(dtype)) for e in EDGES)
    with np.errstate(all="ignore"):
        want = ivy_ir.lower(module, target="numpy")(x, y)
    got = np.asarray(ivy_ir.lower(module, target="tensorflow")(x, y))
    got, want = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)  # NaN's sign is not pinned
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


NODE_TESTS = re.compile(r"test_(cast|castlike|quantizelinear|dequantizelinear|mod)_\w*_cpu")
"""ONNX's node tests of the ops these dtypes and the float remainder serve."""


def _node_tests() -> dict[str, type]:
    """ONNX's harness on the TF target, only the `NODE_TESTS` (the others dropped, not
    skipped one by one)."""
    from onnx.backend.test import BackendTest

    from ivy_ir.onnx_backend import backend

    os.environ.setdefault("ONNX_HOME", tempfile.mkdtemp(prefix="onnx_home_"))
    harness = BackendTest(backend("tensorflow", skip_unsupported=True), __name__)
    node = harness.test_cases["OnnxBackendNodeModelTest"]
    members = {k: v for k, v in vars(node).items()
               if not k.startswith("test_") or NODE_TESTS.fullmatch(k)}
    return {node.__name__: type(node.__name__, node.__bases__, members)}


pytest.importorskip("onnx")
globals().update(_node_tests())
