"""The JAX importer: source detection, parameter names, dtype promotion, the
unsupported-op and control-flow errors, locations, the walked higher-order primitives
(jit, custom_jvp, scan, while, cond), and the lax table's names."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import Primitive
from zoo_jax import build_500_op

import ivy_ir
from importers import detect_source
from importers.jax import ONE_TO_ONE, TABLE
from importers.jax_control import CONTROL
from importers.jax_walk import INLINED
from ivy_ir.dialect import SPECS

HERE = "tests/test_import_jax.py"
rng = np.random.default_rng(5)


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ops(module: ivy_ir.Module) -> list[str]:
    return re.findall(r"= ivy\.(\w+)", str(module))


def _line_of(fn, marker: str) -> int:
    lines, start = __import__("inspect").getsourcelines(fn)
    return start + next(i for i, s in enumerate(lines) if marker in s)


def mlp_apply(params, x):
    for layer in params["layers"]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x * params["scale"]


MLP_PARAMS = {"layers": [{"w": _f32(3, 4), "b": _f32(4)}, {"w": _f32(4, 2), "b": _f32(2)}],
              "scale": np.float32(2.0)}


def test_source_is_detected_without_source_argument():
    x = _f32(2, 3)
    assert detect_source(lambda a: jnp.sin(a), (x,)) == "jax"
    c = ivy_ir.compile(lambda a: jnp.sin(a) * 2, target="numpy", args=(x,))
    np.testing.assert_allclose(c(x), np.sin(x) * 2, rtol=1e-6)


def test_a_model_bound_as_a_default_argument_names_the_source():
    """`lambda x, m=model: m.apply({}, x)` on NumPy input: the model of the default (a
    Flax module without parameters: no JAX array anywhere) says JAX."""
    nn = pytest.importorskip("flax.linen")
    pool = nn.Sequential([lambda y: nn.max_pool(y, (2, 2), strides=(2, 2)), jnp.tanh])
    x = _f32(1, 4, 4, 2)
    fn = lambda y, m=pool: m.apply({}, y)  # noqa: E731 - the form under test
    assert detect_source(fn, (x,)) == "jax"
    np.testing.assert_allclose(np.asarray(ivy_ir.compile(fn, target="numpy", args=(x,))(x)),
                               np.asarray(fn(x)), rtol=1e-6)


def test_params_keep_their_pytree_paths():
    x = _f32(5, 3)
    module = ivy_ir.trace(mlp_apply, (jnp.asarray(x),), params=MLP_PARAMS)
    names = ["layers.0.w", "layers.0.b", "layers.1.w", "layers.1.b", "scale"]
    assert sorted(module.params) == sorted(names)
    assert all(a.trainable for a in module.args() if a.param)
    c = ivy_ir.compile(mlp_apply, target="jax", args=(jnp.asarray(x),), params=MLP_PARAMS)
    assert sorted(c.params) == sorted(names)
    want = mlp_apply(jax.tree_util.tree_map(jnp.asarray, MLP_PARAMS), x)
    np.testing.assert_allclose(np.asarray(c(x)), np.asarray(want), rtol=1e-5, atol=1e-6)
    # weights are parameters, never inline constants
    assert "dense<" not in str(module).split("ivy.tanh")[0].split("{")[-1]


class TinyDense:
    """The Flax `nn.Module` duck type: `apply(variables, x)`, trainable 'params' plus a
    'batch_stats' collection of buffers."""

    def apply(self, variables, x):
        p, s = variables["params"], variables["batch_stats"]
        return (x - s["mean"]) @ p["Dense_0"]["kernel"] + p["Dense_0"]["bias"]


class FrozenDictLike(Mapping):
    """The shape of flax.core.FrozenDict: an immutable mapping registered as a pytree."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


jax.tree_util.register_pytree_with_keys(
    FrozenDictLike,
    lambda d: ([(jax.tree_util.DictKey(k), d[k]) for k in sorted(d)], tuple(sorted(d))),
    lambda keys, values: FrozenDictLike(zip(keys, values)))


@pytest.mark.parametrize("frozen", [False, True], ids=["dict", "frozendict"])
def test_flax_style_module_apply(frozen):
    wrap = FrozenDictLike if frozen else dict
    variables = wrap({"params": wrap({"Dense_0": wrap({"kernel": jnp.asarray(_f32(3, 2)),
                                                       "bias": jnp.asarray(_f32(2))})}),
                      "batch_stats": wrap({"mean": jnp.asarray(_f32(3))})})
    x = _f32(4, 3)
    module = ivy_ir.trace(TinyDense(), (x,), params=variables, source="jax")
    kinds = {a.param: a.trainable for a in module.args() if a.param}
    assert kinds == {"params.Dense_0.kernel": True, "params.Dense_0.bias": True,
                     "batch_stats.mean": False}
    c = ivy_ir.compile(module, target="numpy")
    np.testing.assert_allclose(c(x), np.asarray(TinyDense().apply(variables, x)), rtol=1e-5)


def test_buffers_join_the_tree_as_non_trainable():
    def apply(tree, x):
        return x * tree["w"] + tree["stats"]["shift"]
    module = ivy_ir.trace(apply, (jnp.asarray(_f32(2, 3)),), params={"w": _f32(3)},
                          buffers={"stats": {"shift": _f32(3)}})
    assert {a.param: a.trainable for a in module.args() if a.param} == {
        "w": True, "stats.shift": False}


def promote(i, x, d):
    return i + x, x * d, i * 2.5


def test_dtype_promotion_is_explicit_where_jax_promotes():
    i, x, d = rng.integers(-3, 3, (2, 3)).astype(np.int32), _f32(2, 3), np.ones((2, 3))
    with jax.enable_x64(True):  # the state the jax target leaves behind
        module = ivy_ir.trace(promote, (jnp.asarray(i), jnp.asarray(x), jnp.asarray(d)))
        want = promote(jnp.asarray(i), jnp.asarray(x), jnp.asarray(d))
        converts = [e for e in jax.make_jaxpr(promote)(i, x, d).eqns
                    if e.primitive.name == "convert_element_type"]
    text = str(module)
    # i + x: i -> f32; x * d: x -> f64; i * 2.5: the weak float is float64 under x64
    assert re.findall(r"ivy\.astype %(\w+) \{dtype = (\w+)\}", text) == [
        ("i", "f32"), ("x", "f64"), ("i", "f64")]
    assert _ops(module).count("astype") == len(converts) == 3
    assert [str(o) for o in module.outputs] == ["tensor<2x3xf32>", "tensor<2x3xf64>",
                                                "tensor<2x3xf64>"]
    outs = ivy_ir.compile(module, target="numpy")(i, x, d)
    for got, w in zip(outs, want):
        assert got.dtype == w.dtype
        np.testing.assert_allclose(got, np.asarray(w), rtol=1e-6)


def test_dtype_promotion_without_x64():
    x, d = _f32(2, 3), np.ones((2, 3))
    with jax.enable_x64(False):
        module = ivy_ir.trace(jnp.multiply, (x, d), source="jax")
        want = np.asarray(jnp.asarray(x) * jnp.asarray(d))
    # the float64 input is narrowed at the entry, as jnp.asarray does without x64
    assert [str(s) for s in module.inputs] == ["tensor<2x3xf32>", "tensor<2x3xf64>"]
    assert _ops(module) == ["astype", "multiply"]
    got = ivy_ir.compile(module, target="numpy")(x, d)
    assert got.dtype == np.float32 == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def uses_unmapped(x):
    a = lax.igamma(x, x + 1)
    b = lax.igamma(x + 2, x)
    return a + b + lax.bessel_i1e(x)


def test_unsupported_ops_are_reported_all_at_once(monkeypatch):
    import lowerings

    def no_lowering(*args, **kwargs):
        raise AssertionError("lowering started before the import error")
    monkeypatch.setattr(lowerings, "lower", no_lowering)
    with pytest.raises(ivy_ir.UnsupportedOpsError) as info:
        ivy_ir.compile(uses_unmapped, target="numpy", args=(jnp.asarray(_f32(3, 4)),))
    msg = str(info.value)
    first, second = _line_of(uses_unmapped, "x + 1)"), _line_of(uses_unmapped, "x + 2")
    bessel = _line_of(uses_unmapped, "bessel_i1e")
    assert msg.splitlines()[0] == ("3 jax ops of 2 kinds cannot be imported (no mapping to "
                                   "the ivy dialect):")
    assert f"  igamma (x2): {HERE}:{first}, {HERE}:{second}" in msg
    assert f"  bessel_i1e (x1): {HERE}:{bessel}" in msg
    assert info.value.missing == {"igamma": [f"{HERE}:{first}", f"{HERE}:{second}"],
                                  "bessel_i1e": [f"{HERE}:{bessel}"]}


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return x


def test_data_dependent_branch_is_a_trace_error():
    with pytest.raises(ivy_ir.TraceError) as info:
        ivy_ir.trace(branchy, (jnp.asarray(_f32(2, 2)),))
    line = _line_of(branchy, "if x.sum()")
    assert f"data-dependent Python control flow at {HERE}:{line}" in str(info.value)
    assert "TracerBoolConversionError" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_locations_point_at_the_users_lines():
    module = ivy_ir.trace(mlp_apply, (jnp.asarray(_f32(2, 3)),), params=MLP_PARAMS)
    line = _line_of(mlp_apply, "jnp.tanh")
    tanh = next(s for s in str(module).splitlines() if "ivy.tanh" in s)
    assert f'loc("{HERE}":{line}:' in tanh
    scale = next(s for s in str(module).splitlines() if "ivy.multiply" in s)
    assert f'loc("{HERE}":{line + 1}:' in scale


def test_library_bodies_take_the_callers_line():
    def f(x):
        return jnp.pad(x, 1) * 2
    module = ivy_ir.trace(f, (jnp.asarray(_f32(3)),))
    pad = next(s for s in str(module).splitlines() if "ivy.pad" in s)
    assert f'loc("{HERE}":{_line_of(f, "jnp.pad")}:' in pad


def test_scan_is_one_body_and_cond_with_known_predicate_inlines():
    def f(xs, h):
        h, ys = lax.scan(lambda c, x: (c * 0.5 + x, c.sum()), h, xs)
        return lax.cond(xs.shape[0] > 2, lambda v: v + 1, lambda v: v - 1, h), ys
    xs, h = _f32(4, 3), _f32(3)
    module = ivy_ir.trace(f, (jnp.asarray(xs), jnp.asarray(h)))
    ops = _ops(module)
    assert ops.count("scan") == 1 and ops.count("sum") == 1
    assert "cond" not in ops and "stack" not in ops
    got = ivy_ir.compile(module, target="numpy")(xs, h)
    for g, w in zip(got, f(jnp.asarray(xs), jnp.asarray(h))):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5)


def while_then_cond(x):
    y = lax.while_loop(lambda v: v.sum() < 10, lambda v: v * 2, x)
    return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, y)


def test_while_loop_and_traced_cond_are_region_ops_at_their_lines():
    x = np.abs(_f32(3)) + 1
    module = ivy_ir.trace(while_then_cond, (jnp.asarray(x),))
    lines = str(module).splitlines()
    for op, marker in (("while_loop", "lax.while_loop"), ("cond", "lax.cond")):
        head = next(i for i, s in enumerate(lines) if f"ivy.{op} " in s)
        close = next(s for s in lines[head:] if s.lstrip().startswith("} loc("))
        assert f'}} loc("{HERE}":{_line_of(while_then_cond, marker)}:' in close
    got = ivy_ir.compile(module, target="numpy")(x)
    np.testing.assert_allclose(got, np.asarray(while_then_cond(jnp.asarray(x))), rtol=1e-6)


def unmapped_in_bodies(x):
    y = lax.while_loop(lambda v: v.sum() < 10, lambda v: lax.igamma(v, v) * 2, x)
    return lax.cond(x.sum() > 0, lambda v: lax.bessel_i1e(v), jnp.cos, y)


def test_unsupported_ops_inside_bodies_are_reported():
    with pytest.raises(ivy_ir.UnsupportedOpsError) as info:
        ivy_ir.trace(unmapped_in_bodies, (jnp.asarray(_f32(3)),))
    assert info.value.missing == {
        "igamma": [f"{HERE}:{_line_of(unmapped_in_bodies, 'igamma')}"],
        "bessel_i1e": [f"{HERE}:{_line_of(unmapped_in_bodies, 'bessel_i1e')}"]}


def test_out_of_range_indices_follow_jax_modes():
    # take fills with NaN, clip mode clamps, .at[].set drops out-of-range updates
    def f(x, i):
        return jnp.take(x, i, axis=0), jnp.take(x, i, axis=0, mode="clip"), x.at[i].set(9.0)
    x, i = _f32(4, 2), np.array([0, 5, -7, 3], np.int32)
    module = ivy_ir.trace(f, (jnp.asarray(x), jnp.asarray(i)))
    want = f(jnp.asarray(x), jnp.asarray(i))
    for target in ("numpy", "tensorflow"):
        got = ivy_ir.compile(module, target=target)(x, i)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_single_index_scatter_on_tensorflow():
    # regression: TF read rank-1 scatter indices as a batch of scalars
    def f(x, v):
        return x.at[1].set(v), x.at[2].add(v)
    x, v = _f32(3, 4), _f32(4)
    got = ivy_ir.compile(f, target="tensorflow", args=(jnp.asarray(x), jnp.asarray(v)))(x, v)
    for g, w in zip(got, f(jnp.asarray(x), jnp.asarray(v))):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_new_shapes_retrace_from_numpy_inputs():
    c = ivy_ir.compile(lambda a: jnp.cumsum(a, axis=-1), target="numpy",
                       args=(jnp.asarray(_f32(2, 3)),))
    x = _f32(4, 5)
    np.testing.assert_allclose(c(x), np.cumsum(x, axis=-1), rtol=1e-5)


def test_a_500_op_model_imports():
    fn, args, params = build_500_op()
    module = ivy_ir.trace(fn, args, params=params, source="jax")
    assert module.op_count() >= 450


def _jax_primitive_names() -> set[str]:
    """The name of every primitive JAX defines: each `Primitive` bound in one of its
    loaded modules (`jax.lax.*_p`, `jax.extend.core.primitives`, and those only
    `jax._src` binds, such as `pvary`), higher-order ones (`jit`, `scan`) included."""
    return {value.name for name, module in list(sys.modules.items())
            if name.partition(".")[0] == "jax"
            for value in list(getattr(module, "__dict__", {}).values())
            if isinstance(value, Primitive)}


def test_every_table_key_is_a_lax_primitive_and_every_value_a_registry_op():
    names = _jax_primitive_names()
    # primitive names, not the Python names of their objects (`scatter_add_p`)
    assert {"add", "scatter-add", "dot_general", "jit", "scan", "cond"} <= names
    assert not {"scatter_add", "add_p", "copy_p"} & names
    assert sorted(set(TABLE) - names) == []
    assert set(CONTROL) <= names
    assert sorted(set(TABLE) & {*INLINED, *CONTROL}) == []  # walked, never looked up
    assert sorted(set(ONE_TO_ONE.values()) - set(SPECS)) == []
    assert set(ONE_TO_ONE) <= set(TABLE)
