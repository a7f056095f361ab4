"""The NumPy importer: source detection, parameters, NEP 50 promotion checked on the IR,
errors that name the user's line, in-place and view semantics, and a 500-op import."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import zoo_numpy

import ivy_ir
from importers import detect_source
from importers.numpy import FUNCTIONS, ONE_TO_ONE, TABLE, UFUNCS
from importers.numpy_context import public_name
from ivy_ir.dialect import SPECS, TensorSpec

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
HERE = "tests/test_import_numpy.py"


def _line(fn, marker: str) -> int:
    """Line number (in this file) of the line of `fn` containing `marker`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def _numpy_run(fn, *args, **kw):
    return ivy_ir.compile(fn, target="numpy", args=args, **kw)(*args)


def _assert_same(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


# ---- detection and parameters ----

def test_numpy_source_detected_without_source_argument():
    def f(x):
        return np.tanh(x) * 2 + x.sum(axis=0)
    assert detect_source(f, (X,)) == "numpy"
    c = ivy_ir.compile(f, target="numpy", args=(X,))
    assert "ivy.tanh" in c.ir
    _assert_same(c(X), f(X))


def test_parameters_keep_dotted_names():
    def f(params, x):
        h = np.tanh(x @ params["enc"]["w"] + params["layers"][0]["b"])
        return h - params["stats"]["mean"]
    params = {"enc": {"w": RNG.standard_normal((4, 2))}, "layers": [{"b": np.ones(2)}]}
    buffers = {"stats": {"mean": np.full(2, 0.5)}}
    m = ivy_ir.trace(f, (X,), params=params, buffers=buffers)
    assert set(m.params) == {"enc.w", "layers.0.b", "stats.mean"}
    text = str(m)
    assert '{ivy.param = "enc.w"}' in text and '{ivy.param = "layers.0.b"}' in text
    assert '{ivy.buffer = "stats.mean"}' in text
    c = ivy_ir.compile(f, target="torch", args=(X,), params=params, buffers=buffers)
    assert set(c.params) == {"enc.w", "layers.0.b", "stats.mean"}
    assert c.params["enc.w"].requires_grad and not c.params["stats.mean"].requires_grad
    np.testing.assert_allclose(c(X).detach().numpy(), f({**params, **buffers}, X), rtol=1e-12)


def test_large_closed_over_arrays_become_buffers_small_ones_inline():
    w, b = RNG.standard_normal((4, 8)), np.arange(3.0)

    def f(x):
        return (x @ w)[:, :3] + b
    m = ivy_ir.trace(f, (X,))
    assert [k for k in m.params] == ["const0"]
    assert "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]>" in str(m)
    _assert_same(_numpy_run(f, X), f(X))


def test_example_args_may_be_other_frameworks_arrays():
    torch = pytest.importorskip("torch")

    def f(x):
        return np.exp(x).mean(axis=1)
    m = ivy_ir.trace(f, (torch.ones(2, 3),), source="numpy")
    assert str(m.inputs[0]) == "tensor<2x3xf32>"


def test_new_input_shapes_retrace():
    def f(x):
        return np.cumsum(x, axis=-1)[..., ::-1]
    c = ivy_ir.compile(f, target="numpy", args=(X,))
    other = RNG.standard_normal((2, 5, 3))
    _assert_same(c(other), f(other))


# ---- NEP 50 promotion: astype exactly where NumPy promotes ----

I8, U8 = np.arange(-3, 3, dtype=np.int8), np.arange(6, dtype=np.uint8)
I32, I64 = np.arange(1, 7, dtype=np.int32), np.arange(1, 7, dtype=np.int64)
F32, F64 = np.linspace(-1, 1, 6, dtype=np.float32), np.linspace(1, 2, 6)

PROMOTION = [
    ("int32 + float64", lambda a, b: a + b, (I32, F64), ["f64"]),
    ("float32 * weak float", lambda a: a * 2.5, (F32,), []),
    ("float32 * strong float64", lambda a: a * np.float64(2.5), (F32,), ["f64"]),
    ("float32 + strong float32", lambda a: a + np.float32(1), (F32,), []),
    ("float32 + float64 array", lambda a, b: a + b, (F32, F64), ["f64"]),
    ("int / int is float64", lambda a, b: a / b, (I32, I64), ["f64", "f64"]),
    ("int64 * weak float", lambda a: a * 0.5, (I64,), ["f64"]),
    ("int8 + weak int", lambda a: a + 100, (I8,), []),
    ("uint8 + int8", lambda a, b: a + b, (U8, I8), ["i16", "i16"]),
    ("bool + bool is or", lambda a: (a > 0) + (a < 2), (I8,), []),
    ("sqrt of int8 is float16", lambda a: np.sqrt(np.abs(a)), (I8,), ["f16"]),
    ("mean of int32", lambda a: np.mean(a), (I32,), ["f64"]),
    ("sum of int32 is int64", lambda a: a.sum(), (I32,), ["i64"]),
    ("where with weak scalar", lambda a: np.where(a > 0.5, a, 0), (F32,), []),
    ("concatenate promotes", lambda a, b: np.concatenate([a, b]), (I32, F32), ["f64", "f64"]),
]


@pytest.mark.parametrize("fn,args,casts", [p[1:] for p in PROMOTION],
                         ids=[p[0] for p in PROMOTION])
def test_promotion_matches_numpy(fn, args, casts):
    m = ivy_ir.trace(fn, args, source="numpy")
    text = m.to_text(locations=False)
    got = re.findall(r"ivy\.astype [^:]*: \(tensor<[^>]*>\) -> tensor<(?:\d+x)*(\w+)>", text)
    assert sorted(got) == sorted(casts), text
    want = fn(*args)
    assert m.outputs == [TensorSpec.of(want)]
    _assert_same(ivy_ir.compile(m, target="numpy")(*args), want)


def test_python_int_out_of_range_fails_like_numpy():
    def f(a):
        return a + 300
    with pytest.raises(OverflowError, match=rf"{HERE}:{_line(f, 'a + 300')}: .*out of bounds "
                                            "for int8"):
        ivy_ir.trace(f, (I8,), source="numpy")


# ---- errors name the user's line ----

def test_unsupported_ops_are_listed_together_before_lowering(monkeypatch):
    import lowerings

    def f(x):
        m1 = np.median(x, axis=0)
        m2 = np.median(x)
        return np.logaddexp(x, m1) + m2
    monkeypatch.setattr(lowerings, "lower", lambda *a, **k: pytest.fail("lowered"))
    with pytest.raises(ivy_ir.UnsupportedOpsError) as info:
        ivy_ir.compile(f, target="numpy", args=(X,))
    msg = str(info.value)
    l1, l2, l3 = (_line(f, s) for s in ("m1 =", "m2 =", "logaddexp"))
    assert "3 numpy ops of 2 kinds" in msg
    assert f"numpy.median (x2): {HERE}:{l1}, {HERE}:{l2}" in msg
    assert f"numpy.logaddexp (x1): {HERE}:{l3}" in msg
    assert info.value.missing == {"numpy.median": [f"{HERE}:{l1}", f"{HERE}:{l2}"],
                                  "numpy.logaddexp": [f"{HERE}:{l3}"]}


def test_unsupported_argument_values_are_named():
    def f(x):
        return np.repeat(x, [1, 2, 1], axis=0), np.add(x, 1, where=x > 0)
    with pytest.raises(ivy_ir.UnsupportedOpsError, match=r"numpy\.add\(where=\) \(x1\)[\s\S]*"
                                                         r"numpy\.repeat\(repeats=\) \(x1\)"):
        ivy_ir.trace(f, (X,))


def test_data_dependent_branch_raises_trace_error():
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(ivy_ir.TraceError, match=rf"{HERE}:{_line(f, 'if x.sum()')}: the truth "
                                                "value"):
        ivy_ir.trace(f, (X,), source="numpy")


def test_traced_boolean_mask_selection_raises_trace_error():
    def f(x):
        return x[x > 0]
    with pytest.raises(ivy_ir.TraceError, match=rf"{HERE}:{_line(f, 'x[x > 0]')}: boolean mask "
                                                "indexing"):
        ivy_ir.trace(f, (X,), source="numpy")


@pytest.mark.parametrize("fn", [lambda x: float(x[0, 0]), lambda x: np.asarray(x),
                                lambda x: int(x.argmax()), lambda x: range(x.sum())],
                         ids=["float", "asarray", "int", "index"])
def test_concrete_values_raise_trace_error(fn):
    with pytest.raises(ivy_ir.TraceError, match=rf"{HERE}:{inspect.getsourcelines(fn)[1]}: "):
        ivy_ir.trace(fn, (X,), source="numpy")


def test_numpy_errors_keep_their_type_and_gain_the_line():
    def shapes(x):
        return x + np.ones(3)

    def axis(x):
        return x.sum(axis=2)

    def cast(x):
        i = x.astype(np.int64)
        i += 1.5
        return i
    with pytest.raises(ValueError, match=rf"{HERE}:{_line(shapes, '+')}: numpy.add: operands "
                                         r"could not be broadcast together with shapes \(3, 4\) "
                                         r"\(3,\)"):
        ivy_ir.trace(shapes, (X,), source="numpy")
    with pytest.raises(np.exceptions.AxisError, match=rf"{HERE}:{_line(axis, 'sum')}: .*axis 2 "
                                                      "is out of bounds"):
        ivy_ir.trace(axis, (X,), source="numpy")
    with pytest.raises(TypeError, match=rf"{HERE}:{_line(cast, '+=')}: Cannot cast ufunc 'add' "
                                        "output from dtype\\('float64'\\) to dtype\\('int64'\\)"):
        ivy_ir.trace(cast, (X,), source="numpy")


def test_ir_locations_point_at_user_lines():
    def f(x):
        y = np.exp(x)
        return y.mean(axis=1)
    text = str(ivy_ir.trace(f, (X,)))
    assert re.search(rf'ivy\.exp .* loc\("{HERE}":{_line(f, "np.exp")}:\d+\)', text)
    assert re.search(rf'ivy\.mean .* loc\("{HERE}":{_line(f, "mean")}:\d+\)', text)


# ---- in-place updates and views behave as in NumPy ----

def _aliasing(x):
    y = np.copy(x)
    v = y[1:, ::2]
    v *= 2.0
    y.T[0] += 1.0
    w = np.swapaxes(y, 0, 1)
    w[0, 0] = 9.0
    f = np.flip(y, axis=1)
    f[:, 0] = -3.0
    e = np.expand_dims(y, 0)
    e[0, 2] = np.arange(4.0)
    return y, v, w, f


def _assignments(x):
    y = x.copy()
    y[[0, 0, 2], 1] = np.array([1.0, 2.0, 3.0])
    y[y > 0.5] = 0.5
    y[:, ::3] = -1.0
    np.add.at(y, [0, 0, 1], 10.0)
    np.copyto(y, 7.0, where=y < -0.9)
    np.multiply(y, 2, out=y)
    return y, y[..., None][1, -1]


@pytest.mark.parametrize("fn", [_aliasing, _assignments])
def test_inplace_updates_and_views_match_numpy(fn):
    _assert_same(_numpy_run(fn, X), fn(X.copy()))


def test_writes_through_reshape_results_are_refused():
    def f(x):
        flat = x.reshape(-1)
        flat += 1.0
        return x * 2
    with pytest.raises(ivy_ir.TraceError, match=rf"{HERE}:{_line(f, '+=')}: writing into the "
                                                f"result of reshape/ravel at {HERE}:"
                                                f"{_line(f, 'reshape')}"):
        ivy_ir.trace(f, (X,), source="numpy")


def test_read_only_views_refuse_writes():
    def f(x):
        b = np.broadcast_to(x, (2, 3, 4))
        b[0] = 1.0
        return b
    with pytest.raises(ValueError, match=rf"{HERE}:{_line(f, 'b[0]')}: assignment destination "
                                         "is read-only"):
        ivy_ir.trace(f, (X,))


# ---- speed ----

def test_500_op_program_imports():
    fn, args, params = zoo_numpy.build_500_op()
    m = ivy_ir.trace(fn, args, params=params)
    assert m.op_count() >= 450
    assert len(m.params) == 250


# ---- the mapping tables ----

def _numpy_attr(dotted: str):
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def test_every_table_key_is_a_numpy_function_or_ufunc_and_every_op_a_registry_op():
    assert TABLE == {**FUNCTIONS, **UFUNCS} and not set(FUNCTIONS) & set(UFUNCS)
    assert set(ONE_TO_ONE) <= set(UFUNCS)
    wrong = []
    for key in TABLE:
        obj = _numpy_attr(key)
        if key in UFUNCS:
            if not (isinstance(obj, np.ufunc) and obj.__name__ == key):
                wrong.append(f"{key}: not the name of a NumPy ufunc")
        elif not callable(obj) or isinstance(obj, np.ufunc):
            wrong.append(f"{key}: not a NumPy function")
        elif public_name(obj) not in FUNCTIONS:
            wrong.append(f"{key}: NumPy calls it {public_name(obj)}, which has no rule")
    assert not wrong, wrong
    not_ops = {name: op for name, op in ONE_TO_ONE.items() if op not in SPECS}
    assert not not_ops, not_ops
