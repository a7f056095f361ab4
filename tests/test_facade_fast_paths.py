"""The facade's fast paths give what its general paths give.

Two shortcuts keep `ivy.<fn>` close to the native call: inference remembers, per
agnostic function, which backend function the argument types picked; and the torch
and TensorFlow spellings call the framework once for the common case (tensors of one
computed dtype, one axis) before falling back to the kernels. Each is checked here
against NumPy's backend on the cases either side of its test (floats, integers, bools,
mixed dtypes, Python scalars, axis None / int / tuple / (), keepdims)."""

import numpy as np
import pytest

import ivy
from ivy_ir.core.tracer import Tracer

torch = pytest.importorskip("torch")
tf = pytest.importorskip("tensorflow")

REDUCTIONS = ["sum", "prod", "mean", "max", "min", "std", "var", "argmax", "argmin"]
UNARY = ["abs", "negative", "sign", "expm1", "log1p", "log", "tanh", "floor", "ceil",
         "round", "isnan", "isinf", "isfinite"]
BINARY = ["add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal",
          "greater", "greater_equal", "maximum", "minimum"]
MAKE = {"torch": torch.asarray, "tensorflow": tf.convert_to_tensor}

_rng = np.random.default_rng(7)
ARRAYS = {
    "float32": _rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32),
    "float64": np.array([[0.5, -0.0, np.nan, np.inf], [1.5, -2.5, 2.5, -np.inf],
                         [0.25, 3.0, -1.0, 0.0]]),
    "int32": _rng.integers(1, 5, (3, 4)).astype(np.int32),
    "uint8": _rng.integers(1, 5, (3, 4)).astype(np.uint8),
    "bool": _rng.integers(0, 2, (3, 4)).astype(bool),
}


def _close(got, want):
    got = ivy.to_numpy(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


def _valid(name, dtype):
    """Whether the standard defines `name` on `dtype` (mean/std/var want floats...)."""
    if name in ("mean", "std", "var", "expm1", "log1p", "log", "tanh"):
        return dtype.startswith("float")
    if name in ("negative", "abs", "sign", "sum", "prod", "max", "min", "argmax", "argmin",
                "floor", "ceil", "round", "maximum", "minimum", "add", "subtract",
                "multiply", "less", "less_equal", "greater", "greater_equal"):
        return dtype != "bool"
    return True


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_on_both_sides_of_the_fast_path(backend, name):
    ns, ref = getattr(ivy, backend), getattr(ivy.numpy, name)
    for dtype, a in ARRAYS.items():
        if not _valid(name, dtype):
            continue
        if name.startswith("arg"):
            a = np.nan_to_num(a)  # which NaN argmax picks is the framework's business
        x = MAKE[backend](a)
        axes = [None, 1, -1, (0, 1)] + ([()] if not name.startswith("arg") else [])
        for axis in axes:
            for keepdims in (False, True):
                if name.startswith("arg") and isinstance(axis, tuple):
                    continue
                got = getattr(ns, name)(x, axis=axis, keepdims=keepdims)
                _close(got, ref(a, axis=axis, keepdims=keepdims))
        if name in ("std", "var"):
            _close(getattr(ns, name)(x, 1, correction=1), ref(a, 1, correction=1))
        if name in ("sum", "prod"):
            _close(getattr(ns, name)(x, 1, dtype=ivy.numpy.float64),
                   ref(a, 1, dtype=np.float64))


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_on_both_sides_of_the_fast_path(backend, name):
    ns = getattr(ivy, backend)
    for dtype, a in ARRAYS.items():
        if _valid(name, dtype):
            _close(getattr(ns, name)(MAKE[backend](a)), getattr(ivy.numpy, name)(a))


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_on_both_sides_of_the_fast_path(backend, name):
    ns, ref = getattr(ivy, backend), getattr(ivy.numpy, name)
    pairs = [(a, a[::-1].copy()) for d, a in ARRAYS.items() if _valid(name, d)]
    pairs += [(ARRAYS["int32"], ARRAYS["uint8"]), (ARRAYS["float32"], ARRAYS["float64"])]
    for a, b in pairs:
        _close(getattr(ns, name)(MAKE[backend](a), MAKE[backend](b)), ref(a, b))
    scalar = ARRAYS["float32"]
    _close(getattr(ns, name)(MAKE[backend](scalar), 2.0), ref(scalar, 2.0))


SCALARS = {"float32": [2.0, -0.0, float("nan"), 3], "float64": [0.5, float("-inf"), 2],
           "int32": [3, -1], "uint8": [2], "bool": [True, False]}
"""Python scalars of a kind each dtype keeps (ints into floats; NaN and signed zero)."""


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("name", BINARY + ["where", "clip"])
def test_python_scalars_on_either_side_keep_the_array_dtype(backend, name):
    """torch takes a fitting scalar as it is (`where`, the comparisons, `clamp` for
    `maximum`/`minimum`); every other pairing goes through a 0-d tensor."""
    ns, ref = getattr(ivy, backend), getattr(ivy.numpy, name)
    for dtype, a in ARRAYS.items():
        if not _valid(name if name != "clip" else "maximum", dtype):
            continue
        x, cond = MAKE[backend](a), a > a.mean()
        for v in SCALARS[dtype]:
            if name == "where":
                _close(ns.where(MAKE[backend](cond), x, v), ref(cond, a, v))
                _close(ns.where(MAKE[backend](cond), v, x), ref(cond, v, a))
            elif name == "clip":
                _close(ns.clip(x, v, None), ref(a, v, None))
                _close(ns.clip(x, None, v), ref(a, None, v))
            else:
                _close(getattr(ns, name)(x, v), ref(a, v))
                _close(getattr(ns, name)(v, x), ref(v, a))


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
def test_joining_and_one_hot_on_both_sides_of_the_fast_path(backend):
    ns, make = getattr(ivy, backend), MAKE[backend]
    f32, f64, i32 = ARRAYS["float32"], ARRAYS["float64"], ARRAYS["int32"]
    for arrays in ([f32, f32], [f32, f64, f32], [i32, ARRAYS["uint8"]], [ARRAYS["bool"]] * 2):
        for axis in (0, -1, None):
            _close(ns.concat([make(a) for a in arrays], axis=axis),
                   ivy.numpy.concat(arrays, axis=axis))
        _close(ns.stack([make(a) for a in arrays], axis=1), ivy.numpy.stack(arrays, axis=1))
    idx = np.array([[0, 3], [5, 1]])  # 5 is out of range: a row of zeros
    for axis in (-1, 0, 1):
        _close(ns.one_hot(make(idx), 4, axis=axis, dtype=ns.float32),
               ivy.numpy.one_hot(idx, 4, axis=axis, dtype=ivy.numpy.float32))


def test_inference_remembers_the_pick_per_argument_types():
    a = np.arange(6.0, dtype=np.float32)
    t = torch.arange(6.0)
    assert isinstance(ivy.add(a, a), np.ndarray)
    assert isinstance(ivy.add(t, t), torch.Tensor)  # the same function, other types
    assert isinstance(ivy.add(a, a), np.ndarray)
    assert isinstance(ivy.add(t, 1.0), torch.Tensor)
    assert isinstance(ivy.add(1.0, t), torch.Tensor)
    assert isinstance(ivy.add(a, t.numpy()), np.ndarray)
    with pytest.raises(TypeError, match="two frameworks"):
        ivy.add(a, t)  # never cached: the error comes again
    with pytest.raises(TypeError, match="two frameworks"):
        ivy.add(a, t)
    # a list's items decide: remembered by their one type, never for mixed items
    for _ in range(2):
        assert isinstance(ivy.concat([a, a]), np.ndarray)
        assert isinstance(ivy.concat([t, t]), torch.Tensor)
        assert isinstance(ivy.stack((t, t)), torch.Tensor)
        assert isinstance(ivy.concat([t.numpy(), a]), np.ndarray)
        with pytest.raises(TypeError, match="two frameworks"):
            ivy.concat([t, a])
        with pytest.raises(TypeError, match="two frameworks"):
            ivy.stack([a, t])
    # f= and backend= are obeyed whatever was remembered
    assert isinstance(ivy.zeros_like(t), torch.Tensor)
    assert isinstance(ivy.zeros_like(t, f="numpy"), np.ndarray)  # NumPy reads a tensor
    assert isinstance(ivy.zeros_like(t, backend=ivy.numpy), np.ndarray)
    assert isinstance(ivy.zeros_like(t), torch.Tensor)


def test_tracers_are_remembered_as_tracers():
    a = np.ones(3, np.float32)
    ivy.exp(a)  # remember numpy for ndarrays first
    module = ivy.trace_graph(lambda x: ivy.exp(x) + ivy.exp(a), args=(a,))
    assert "ivy.exp" in str(module)
    assert isinstance(ivy.exp(a), np.ndarray)
    seen = []
    ivy.trace_graph(lambda x: seen.append(ivy.exp(x)) or seen[-1], args=(a,))
    assert isinstance(seen[0], Tracer)


def test_eager_functions_are_the_natives_where_ours_only_pass_arguments_on():
    eager = ivy.numpy.eager
    assert eager["abs"] is np.abs and eager["add"] is np.add
    assert eager["sum"] is ivy.numpy.sum  # keyword parameters: ours keeps its signature
    assert ivy.torch.eager["floor"] is torch.floor
    assert ivy.torch.eager["add"] is ivy.torch.add  # the dtype test stays
    assert ivy.numpy.eager["reduce_sum"] is eager["sum"]


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_compiled_op_with_only_python_scalars_for_its_arrays(backend):
    """`random_uniform(3, shape=...)` (a Python int key) goes through a one-op program,
    which needs an input to trace: the scalar becomes a 0-d array."""
    with getattr(ivy, backend).use:
        by_int = ivy.random_uniform(3, shape=(4,))
        by_array = ivy.random_uniform(ivy.asarray(3), shape=(4,))
    np.testing.assert_array_equal(ivy.to_numpy(by_int), ivy.to_numpy(by_array))
    assert type(by_int).__module__.split(".")[0] in ("torch", "jaxlib", "jax")


SPELLED_OPS = [
    ("cumsum", lambda x: (np.arange(12, dtype=np.float32).reshape(3, 4),), {"axis": 1}),
    ("cumsum", lambda x: (np.array([[1, 2], [3, 4]], np.int32),), {"axis": 0}),
    ("one_hot", lambda x: (np.array([0, 2, 5, -1]),), {"depth": 3}),
    ("one_hot", lambda x: (np.array([[0, 1]]),), {"depth": 3, "axis": 0, "dtype": "uint8"}),
    ("one_hot", lambda x: (np.array([1, 0]),), {"depth": 2, "dtype": "bool"}),
    ("scatter_add", lambda x: (np.zeros((3, 4), np.float32), np.array([[0, 1], [0, 1], [2, 3]]),
                               np.array([1.0, 2.0, 3.0], np.float32)), {}),
    ("scatter_add", lambda x: (np.zeros((3, 2), np.int64), np.array([1]),
                               np.array([5, 6])), {}),
    ("scatter_add", lambda x: (np.ones((2,), np.float32), np.zeros((3, 0), np.int64),
                               np.ones((3, 2), np.float32)), {}),
]


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("case", range(len(SPELLED_OPS)))
def test_direct_spellings_of_registry_ops_match_numpy(backend, case):
    """cumsum/one_hot/scatter_add call torch and TF directly (not run as a one-op
    program): the values and dtypes of the registry op (`ivy.ops`, the reference)."""
    name, make, kwargs = SPELLED_OPS[case]
    args = make(None)
    want = np.asarray(getattr(ivy.ops, name)(*args, **kwargs))
    with getattr(ivy, backend).use:
        got = getattr(ivy, name)(*(ivy.asarray(a) for a in args), **kwargs)
    assert getattr(ivy, backend).origin[name] in ("spelling", "rule")  # a direct call
    np.testing.assert_array_equal(ivy.to_numpy(got), want)
    assert ivy.to_numpy(got).dtype == want.dtype
