"""JAX importer: `jax.make_jaxpr` of the user's function, walked equation by equation.

The program is staged out once with `jax.make_jaxpr` (abstract inputs, so no XLA
compilation), then `JaxprWalker` (`jax_walk.py`) maps every equation through `TABLE`
onto registry ops. `TABLE` (lax primitive name -> rule) joins the op-family tables:
elementwise math in `jax_math.py`, reductions in `jax_reduce.py`, shapes in
`jax_shape.py`, gather/scatter in `jax_index.py`, layers in `jax_nn.py`, PRNG keys and
threefry in `jax_random.py`, factorizations in `jax_linalg.py`, complex numbers and
FFTs in `jax_fft.py`; each rule is
called as `rule(ctx, *ins, **eqn.params)` with a `jax_ctx.Ctx`.

Parameters are the leaves of a params pytree (`fn(params, *args)`, or
`module.apply(variables, *args)` for Flax-style modules), named by their pytree path
joined with '.'.

Data-dependent Python control flow makes JAX raise a concretization error while
staging; it is reported as `ivy_ir.TraceError` naming the user's file:line.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from typing import Any

import jax
import numpy as np

from ivy_ir.core.errors import TraceError
from ivy_ir.core.graph import is_array
from ivy_ir.core.locations import OWN_DIRS, short_path
from ivy_ir.core.module import Module
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import dtype_name

from . import jax_nnx
from .common import ImportBuilder, Rule, merge_tables
from .dynamic import requested
from .jax_dims import symbolic_avals
from .jax_fft import FFT
from .jax_index import INDEX
from .jax_linalg import LINALG
from .jax_math import BINARY, MATH, UNARY
from .jax_nn import NN
from .jax_random import RANDOM, is_typed_key, key_data
from .jax_reduce import REDUCE
from .jax_shape import SHAPE
from .jax_walk import JaxprWalker

TABLE: dict[str, Rule] = merge_tables(MATH, REDUCE, SHAPE, INDEX, NN, RANDOM, LINALG, FFT)
"""Every lax primitive the importer maps; any other is reported as unsupported
(higher-order primitives such as `jit` and `scan` are walked into, not mapped)."""
ONE_TO_ONE: dict[str, str] = {**UNARY, **BINARY}
"""The lax primitives that are one registry op of the same meaning: name -> op."""

_CONTROL_FLOW_ERRORS = (
    jax.errors.ConcretizationTypeError,
    jax.errors.NonConcreteBooleanIndexError,
    jax.errors.TracerArrayConversionError,
    jax.errors.TracerIntegerConversionError,
)
_JAX_DIR = os.path.dirname(os.path.dirname(jax.__file__)) + os.sep
FLAX_PARAMS = "params"
"""The one trainable collection of a Flax variables dict; others (batch_stats) are buffers."""


def import_program(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
                   params: Any = None, buffers: Any = None, name: str = "main",
                   dynamic: Any = None) -> Module:
    """Stage `fn` out with `jax.make_jaxpr` and import the jaxpr as an ivy module;
    `dynamic` names dims that stay symbolic (`jax_dims`)."""
    kwargs = kwargs or {}
    nnx = jax_nnx.split(fn) if params is None and jax_nnx.is_nnx_module(fn) else None
    if nnx is not None:
        call, tree, takes_tree = nnx.call, nnx.tree, True
    else:
        call, tree, takes_tree = _callable(fn, params, buffers)
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0] if takes_tree else []
    names = [_path_name(path) for path, _ in leaves]
    trainable = ({n for n, (path, _) in zip(names, leaves) if path in nnx.trainable}
                 if nnx is not None else _trainable_names(fn, params, buffers))
    arrays = [i for i, a in enumerate(args) if is_array(a)]
    specs = [_input_spec(args[i]) for i in arrays]
    wanted = requested(dynamic, args, _input_names(fn, args, takes_tree, list(range(len(args)))),
                       lambda a: np.ndim(a) if is_array(a) else None) if dynamic else {}
    wanted = {(arrays.index(i), axis): dim for (i, axis), dim in wanted.items()}
    dims = [tuple(wanted.get((k, a)) for a in range(s.rank)) for k, s in enumerate(specs)]
    # typed key arrays (inputs, NNX streams' keys) cross as their key data, as on the targets
    key_args = {i: jax.random.key_impl(args[i]) for i in arrays if is_typed_key(args[i])}
    key_leaves = {i: jax.random.key_impl(v) for i, (_, v) in enumerate(leaves) if is_typed_key(v)}

    def staged(param_leaves: list[Any], *array_args: Any) -> Any:
        full = list(args)
        for i, a in zip(arrays, array_args):
            full[i] = jax.random.wrap_key_data(a, impl=key_args[i]) if i in key_args else a
        if not takes_tree:
            return call(*full, **kwargs)
        param_leaves = [jax.random.wrap_key_data(v, impl=key_leaves[i]) if i in key_leaves
                        else v for i, v in enumerate(param_leaves)]
        params_tree = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(tree),
                                                   param_leaves)
        return call(params_tree, *full, **kwargs)

    values = [np.asarray(jax.random.key_data(v) if is_typed_key(v) else v) for _, v in leaves]
    param_avals = [jax.ShapeDtypeStruct(np.shape(v), _dtype(v)) for v in values]
    arg_avals = symbolic_avals(specs, wanted)
    specs = [s.with_(shape=tuple(None if n else d for d, n in zip(s.shape, names_)))
             for s, names_ in zip(specs, dims)]
    try:
        closed, out_shape = jax.make_jaxpr(staged, return_shape=True)(param_avals, *arg_avals)
    except _CONTROL_FLOW_ERRORS as exc:
        raise TraceError(_control_flow_message(exc)) from None

    builder = ImportBuilder("jax", specs, _input_names(fn, args, takes_tree, arrays), dims)
    n_params = len(leaves)
    invars = closed.jaxpr.invars
    param_values = []
    for value, pname, var in zip(values, names, invars[:n_params]):
        array = value.astype(var.aval.dtype, copy=False)
        param_values.append(builder.param(pname, array, trainable=pname in trainable))
    walker = JaxprWalker(builder, TABLE)
    inputs = [builder.cast(v, dtype_name(var.aval.dtype))
              for v, var in zip(builder.inputs, invars[n_params:])]
    # a typed key array among the results comes back as its key data
    outs = [walker.ssa(key_data(walker.ctx, o))
            for o in walker.run(closed.jaxpr, list(closed.consts), param_values + inputs)]
    updates: list[tuple[Any, str]] = []
    if nnx is not None:  # (result, changed state leaves): the latter update buffers
        out_shape = out_shape[0]
        outs, new = outs[:len(outs) - len(nnx.changed)], outs[len(outs) - len(nnx.changed):]
        updates = [(v, names[i]) for v, i in zip(new, nnx.changed)]
        if trained := sorted(names[i] for i in nnx.changed if names[i] in trainable):
            raise TraceError(f"calling the NNX module changes its parameters {trained}; "
                             "only buffers (batch statistics, RNG counters) may change")
    out_leaves = jax.tree_util.tree_leaves(out_shape)
    returns_sequence = isinstance(out_shape, (tuple, list)) or len(out_leaves) != 1
    return builder.finish(outs, returns_sequence, name=name, updates=updates)


def _callable(fn: Any, params: Any, buffers: Any) -> tuple[Callable[..., Any], Any, bool]:
    """What to call and on which parameter tree: `fn(tree, *args)` for a function of
    params, `fn.apply(tree, *args)` for a Flax-style module, else `fn(*args)`."""
    takes_tree = params is not None or buffers is not None
    tree = _merge(params, buffers)
    if takes_tree and _is_module(fn):
        return fn.apply, tree, True
    if not callable(fn):
        raise TypeError(f"expected a function or a module with .apply, got {type(fn).__name__}")
    return fn, tree, takes_tree


def _merge(params: Any, buffers: Any) -> Any:
    if buffers is None:
        return params
    if params is None:
        return buffers
    if not (isinstance(params, Mapping) and isinstance(buffers, Mapping)):
        raise TypeError("params and buffers must both be dicts to be merged into one tree")
    out = dict(params)
    for key, value in buffers.items():
        if key in out:
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _trainable_names(fn: Any, params: Any, buffers: Any) -> set[str]:
    """Leaves of `params` train; `buffers` do not, nor Flax collections other than
    'params' when a module's `apply` gets a whole variables dict."""
    if params is None:
        return set()
    names = _leaf_names(params)
    if _is_module(fn) and isinstance(params, Mapping) and FLAX_PARAMS in params:
        names = {n for n in names if n.startswith(f"{FLAX_PARAMS}.")}
    return names - (_leaf_names(buffers) if buffers is not None else set())


def _leaf_names(tree: Any) -> set[str]:
    return {_path_name(path) for path, _ in jax.tree_util.tree_flatten_with_path(tree)[0]}


def _is_module(fn: Any) -> bool:
    """A Flax `nn.Module`-like object: called through `.apply(variables, *args)`."""
    return callable(getattr(fn, "apply", None)) and not inspect.isfunction(fn)


def _path_name(path: tuple[Any, ...]) -> str:
    parts = []
    for key in path:
        for attr in ("key", "name", "idx"):
            if hasattr(key, attr):
                parts.append(str(getattr(key, attr)))
                break
        else:
            parts.append(str(key))
    return ".".join(parts)


def _dtype(v: Any) -> np.dtype:
    dtype = getattr(v, "dtype", None)
    try:
        return np.dtype(dtype) if dtype is not None else np.asarray(v).dtype
    except TypeError:
        return np.asarray(v).dtype


def _input_spec(v: Any) -> TensorSpec:
    """The IR input type: the caller's array as given (JAX may narrow it, e.g. int64 to
    int32 without x64; the walker casts it the way `jnp.asarray` would); a typed key
    array's is that of its uint32 key data."""
    if is_typed_key(v):
        v = jax.random.key_data(v)
    return TensorSpec(tuple(int(d) for d in np.shape(v)), dtype_name(_dtype(v)))


def _input_names(fn: Any, args: tuple[Any, ...], takes_tree: bool,
                 arrays: list[int]) -> list[str]:
    target = fn.apply if takes_tree and _is_module(fn) else fn
    try:
        names = [p for p in inspect.signature(target).parameters if p != "self"]
    except (TypeError, ValueError):
        names = []
    names = names[int(takes_tree):]
    names += [f"arg{i}" for i in range(len(names), len(args))]
    return [names[i] for i in arrays]


def _control_flow_message(exc: BaseException) -> str:
    """Name the user's line that asked a traced value for a concrete Python value."""
    where = None
    tb = exc.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if not path.startswith(_JAX_DIR) and not path.startswith(OWN_DIRS):
            where = (path, tb.tb_lineno)
        tb = tb.tb_next
    at = f" at {short_path(where[0])}:{where[1]}" if where else ""
    kind = type(exc).__name__
    if isinstance(exc, jax.errors.NonConcreteBooleanIndexError):
        what = "boolean-mask indexing with a traced mask has a data-dependent shape"
    elif isinstance(exc, jax.errors.TracerArrayConversionError):
        what = "a traced JAX array was converted to a NumPy array"
    else:
        what = "Python control flow or conversion needs the value of a traced array"
    return (f"data-dependent Python control flow{at}: {what} ({kind}); a static graph "
            "cannot record it: use jnp.where or lax.cond/lax.select instead")

