"""API misuse: each mistake gives a TypeError/ValueError that names the argument (or the
user's line), never an internal AttributeError or an xDSL exception outside `Exception`;
and inputs the docs promise to accept (lists, Python numbers, another framework's
tensors) are converted at the call boundary."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy_ir.opt import expand_presets

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def exp2(a: Any) -> Any:
    return ivy.multiply(ivy.exp(a), 2.0)


# ---- passes= ----

@pytest.mark.parametrize("passes", [1, ["cse"], None])
def test_passes_must_be_a_string(passes):
    with pytest.raises(TypeError, match=r"passes= must be a pipeline string .*not "
                                        + type(passes).__name__):
        ivy_ir.compile(exp2, args=(X,), passes=passes)


@pytest.mark.parametrize("passes, words", [
    ("bogus", r"Unrecognized passes: \['bogus'\]"),
    ("cse{x=1}", r'arguments \["x"\] not found'),
    ("cse{", "Expected argument name here"),   # xDSL raises a BaseException here
    ("cse}", "passes='cse}' is not a valid pipeline"),
])
def test_malformed_pipelines_are_value_errors_naming_the_argument(passes, words):
    with pytest.raises(ValueError, match=words) as info:
        ivy_ir.compile(exp2, args=(X,), passes=passes)
    assert f"passes={passes!r} is not a valid pipeline" in str(info.value)


def test_presets_inside_a_pipeline_expand_as_in_ivy_opt():
    m = ivy_ir.trace(lambda a: ivy.add(ivy.exp(a), ivy.exp(a)), (X,))
    with_cse = ivy_ir.compile(m, passes="default,cse")
    assert with_cse.ir == ivy_ir.compile(m, passes=expand_presets("default,cse")).ir
    assert with_cse.ir.count("ivy.exp") == 1  # default's cse ran
    assert ivy_ir.compile(m, passes="none,cse").ir.count("ivy.exp") == 1
    np.testing.assert_allclose(with_cse(X), 2 * np.exp(X), rtol=1e-6)


# ---- what the traced function returns ----

@pytest.mark.parametrize("result, kind", [
    (lambda a: None, "NoneType"), (lambda a: {"y": ivy.exp(a)}, "dict"),
    (lambda a: "y", "str"), (lambda a: (ivy.exp(a) for _ in range(2)), "generator"),
])
def test_results_without_an_ir_form_are_named(result, kind):
    with pytest.raises(TypeError, match=f"returned a {kind}; a traced function must "
                                        "return an array or a tuple/list of arrays"):
        ivy_ir.compile(result, args=(X,))


def _exp_of(source: str) -> Any:
    if source == "numpy":
        return np.exp
    if source == "jax":
        return pytest.importorskip("jax").numpy.exp
    if source == "torch":
        return pytest.importorskip("torch").exp
    return pytest.importorskip("tensorflow").exp


@pytest.mark.parametrize("source", ["numpy", "jax", "torch", "tensorflow"])
@pytest.mark.parametrize("kind", ["NoneType", "str", "dict", "generator"])
def test_every_source_names_results_without_an_ir_form(source, kind):
    exp = _exp_of(source)
    results = {"NoneType": lambda a: None, "str": lambda a: "y",
               "dict": lambda a: {"y": exp(a)}, "generator": lambda a: (exp(a) for _ in "ab")}
    with pytest.raises(TypeError, match=f"returned a {kind}; a traced function must "
                                        "return an array or a tuple/list of arrays"):
        ivy_ir.compile(results[kind], args=(X,), source=source)


def test_a_bad_result_inside_a_tuple_is_named_by_position():
    with pytest.raises(TypeError, match="returned, as result 1, a NoneType"):
        ivy_ir.compile(lambda a: (ivy.exp(a), None), args=(X,))


def test_constant_results_still_work():
    c = ivy_ir.compile(lambda a: (ivy.exp(a), 3.0, np.ones(2, np.float32)), args=(X,))
    out = c(X)
    np.testing.assert_allclose(out[0], np.exp(X), rtol=1e-6)
    assert float(out[1]) == 3.0 and out[2].tolist() == [1.0, 1.0]


# ---- Python numbers from traced arrays ----

def _line(fn: Any) -> int:
    """The line of `fn`'s `return` statement (its last line)."""
    lines, first = inspect.getsourcelines(fn)
    return first + len(lines) - 1


def to_float(a):
    return a * float(ivy.sum(a))


def to_int(a):
    return a * int(ivy.sum(a))


def to_bool(a):
    return a if ivy.sum(a) else -a


@pytest.mark.parametrize("fn, words", [
    (to_float, r"float\(\) of a traced array"), (to_int, r"int\(\) of a traced array"),
    (to_bool, "data-dependent Python control flow"),
])
def test_python_numbers_of_traced_arrays_name_the_users_line(fn, words):
    with pytest.raises(ivy_ir.TraceError, match=words) as info:
        ivy_ir.compile(fn, args=(X,))
    assert f"test_api_misuse.py:{_line(fn)}" in str(info.value)


def test_float_of_a_tracer_is_also_a_type_error():
    """Code that probes `float(v)` inside `except TypeError` keeps working."""
    with pytest.raises(TypeError, match="float"):
        ivy_ir.compile(to_float, args=(X,))


# ---- args= and kwargs= ----

def test_args_given_an_array_says_to_write_a_tuple():
    with pytest.raises(TypeError, match=r"args= must be a tuple of example arguments, not "
                                        r"ndarray; for one argument write args=\(x,\)"):
        ivy_ir.compile(exp2, args=X)


def test_kwargs_must_be_a_dict():
    with pytest.raises(TypeError, match="kwargs= must be a dict of keyword arguments, not "
                                        "list"):
        ivy_ir.trace(exp2, (X,), kwargs=[("a", 1)])


def test_args_as_a_list_are_accepted():
    np.testing.assert_allclose(ivy_ir.compile(exp2, args=[X])(X), 2 * np.exp(X), rtol=1e-6)


# ---- inputs that are not the target's arrays ----

@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_lists_and_python_numbers_convert_in_the_inputs_dtype(target):
    c = ivy_ir.compile(exp2, target=target, args=(X,))
    got = _numpy(c(X.tolist()))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2 * np.exp(X), rtol=1e-6)
    ints = _numpy(c([[0, 1, 2], [3, 4, 5]]))  # ints fit a float32 input
    assert ints.dtype == np.float32
    np.testing.assert_allclose(ints, 2 * np.exp(X), rtol=1e-6)
    scalar = ivy_ir.compile(exp2, target=target, args=(np.float32(1.0),))
    one = _numpy(scalar(1.0))
    assert one.dtype == np.float32 and one.shape == ()
    np.testing.assert_allclose(one, 2 * np.e, rtol=1e-6)


def test_a_list_of_another_kind_retraces_or_is_refused_for_ir_text():
    ints = np.arange(3, dtype=np.int32)
    c = ivy_ir.compile(lambda a: a + 1, args=(ints,))
    got = c([0.5, 1.5, 2.5])  # float values do not fit int32: traced again in float64
    assert got.dtype == np.float64 and got.tolist() == [1.5, 2.5, 3.5]
    from_text = ivy_ir.compile(c.ir)
    with pytest.raises(TypeError, match=r"input 0 has type tensor<3xf64>, but the program was compiled for tensor<3xi32>"):
        from_text([0.5, 1.5, 2.5])


def _numpy(value: Any) -> np.ndarray:
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


def _foreign(kind: str) -> Any:
    if kind == "torch":
        import torch
        return torch.tensor(X, requires_grad=True)  # np.asarray alone refuses it
    if kind == "tensorflow":
        import tensorflow as tf
        return tf.constant(X)
    import jax.numpy as jnp
    return jnp.asarray(X)


@pytest.mark.parametrize("target, kind", [
    ("numpy", "torch"), ("jax", "torch"), ("jax", "tensorflow"), ("torch", "jax"),
    ("torch", "tensorflow"), ("tensorflow", "torch"), ("tensorflow", "jax"),
])
def test_another_frameworks_tensor_is_converted_at_the_boundary(target, kind):
    c = ivy_ir.compile(exp2, target=target, args=(X,))
    out = c(_foreign(kind))
    assert c.runtime.is_native(out) or isinstance(out, np.ndarray)
    np.testing.assert_allclose(_numpy(out), 2 * np.exp(X), rtol=1e-6)


def test_an_unconvertible_tensor_is_refused_naming_the_input():
    torch = pytest.importorskip("torch")
    c = ivy_ir.compile(exp2, target="numpy", args=(X,))
    with pytest.raises(TypeError, match=r"input 0: a torch.Tensor cannot be converted to "
                                        r"a numpy array"):
        c(torch.ones(2, 3, dtype=torch.complex32))  # NumPy has no complex32


def test_a_ragged_list_is_refused_naming_the_input():
    c = ivy_ir.compile(exp2, args=(X,))
    with pytest.raises(TypeError, match=r"input 0: a list cannot be converted to a numpy "
                                        r"array \(setting an array element with a sequence"):
        c([[1.0, 2.0, 3.0], [4.0]])
