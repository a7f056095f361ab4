"""The TensorFlow / Keras importer: a `tf.function` concrete graph -> the ivy dialect.

The program is traced by TensorFlow itself (`tf.function(...).get_concrete_function`
on `tf.TensorSpec`s of the example arguments; a Keras model is called with
`training=False`), then `TABLE` maps each raw op of the graph onto registry ops
(`tensorflow_walk.Walker`; each rule sees a `tensorflow_ctx.Ctx`). Captured resource
variables become IR parameters named by their Keras path (`dense/kernel`) or TF
variable name (without ":0"), trainable as the variable says; captured constant
tensors become constants. Autograph turns a Python `if`/`while` on a tensor into an
`If`/`While` op; these, `tf.cond`/`tf.switch_case`/`tf.while_loop`, and the loops
`tf.scan`, `tf.map_fn` and Keras RNN layers stage to (with TensorLists) import as
`ivy.cond`, `ivy.while_loop` and `ivy.scan` (`tensorflow_control`, `_loops`, `_lists`).
A Keras functional model of several inputs takes them positionally, as a list or as a
dict (`tensorflow_keras`).
"""

from __future__ import annotations

import inspect
import os
import sys
import sysconfig
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf
from xdsl.transforms.dead_code_elimination import region_dce

from ivy_ir.core.errors import TraceError, UnsupportedOpsError
from ivy_ir.core.graph import is_array
from ivy_ir.core.locations import OWN_DIRS, short_path
from ivy_ir.core.module import Module
from ivy_ir.dialect import DTYPES, TensorSpec

from .common import ImportBuilder, location, merge_tables
from .tensorflow_control import CONTROL
from .tensorflow_ctx import NO_VALUE, Value, VarRef, tf_dtype
from .tensorflow_dims import DimFlow, input_dims, requested
from .tensorflow_fft import FFT
from .tensorflow_graph import GRAPH
from .tensorflow_image import IMAGE
from .tensorflow_index import INDEX
from .tensorflow_keras import ModelInputs, model_inputs
from .tensorflow_linalg import LINALG
from .tensorflow_lists import LISTS
from .tensorflow_loops import LOOPS
from .tensorflow_math import ACTIVATIONS, BINARY, MATH, UNARY
from .tensorflow_nn import NN
from .tensorflow_reduce import REDUCE, REDUCTIONS
from .tensorflow_shape import SHAPE
from .tensorflow_space import SPACE
from .tensorflow_walk import Walker

TABLE = merge_tables(MATH, REDUCTIONS, LINALG, SHAPE, SPACE, INDEX, NN, IMAGE, GRAPH, LISTS,
                     CONTROL, LOOPS, FFT)
"""Raw TF op type -> `Rule`, called as `rule(ctx, *inputs, **attrs)`, one family module
each (`tensorflow_math`, `_reduce`, `_linalg`, `_shape`, `_space`, `_index`, `_nn`,
`_image`, `_graph`, `_lists`, `_control`, `_loops`, `_fft`). Ops missing here are
reported."""

ONE_TO_ONE: dict[str, str] = {**UNARY, **BINARY, **ACTIVATIONS, **REDUCE}
"""Raw TF op type -> the registry op it imports as, for the ops that map one to one
(reductions with their axes operand as the `axis` attribute)."""

SIDE_EFFECTS = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                          "ResourceScatterUpdate", "ResourceScatterAdd"})
"""Ops walked even when no output depends on them: they mutate state, so dropping them
would change the program; they have no mapping and are reported."""

CONTROL_FLOW = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case",
                          "StatelessCase"})


class DataDependentControlFlowError(UnsupportedOpsError):
    """A tensor-dependent branch or loop (a Python `if`/`while` on a tensor that
    autograph turned into a graph op, tf.cond, tf.while_loop, a Keras RNN) that could
    not be imported, among the unmapped ops: its entry says why (a loop variable whose
    shape changes between iterations, a list of unknown length, an op of its body)."""

    def __init__(self, base: UnsupportedOpsError):
        super().__init__(base.framework, base.missing)
        flow = sorted(k for k in base.missing if k.split(" ")[0] in CONTROL_FLOW)
        where = ", ".join(loc for k in flow for loc in dict.fromkeys(base.missing[k]))
        self.args = (f"{self.args[0]}\ndata-dependent control flow at {where} could not be "
                     "imported as ivy.cond/while_loop/scan (see the reason given with it); "
                     "tf.where, or a loop over a Python range, records a static graph",)


def import_program(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
                   params: Any = None, buffers: Any = None, name: str = "main",
                   dynamic: Any = None) -> Module:
    """Trace `fn(*args, **kwargs)` (or `fn(params, *args)`) with TensorFlow and import
    the graph. Array arguments (of any framework) become inputs; the rest are static.
    `dynamic` names dims that stay symbolic (`tensorflow_dims`): TF traces them as
    unknown sizes, and one imported program serves every size of them."""
    kwargs = dict(kwargs or {})
    several = model_inputs(fn, args)
    if several is not None:
        fn, args = several
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple, dict)) and any(is_array(v) for _, v in _flatten(a)):
            raise TypeError(f"argument {i} is a {type(a).__name__} holding arrays: pass "
                            "each array as its own argument (a Keras functional model of "
                            "several inputs takes them as a list or dict too)")
    arrays = [i for i, a in enumerate(args) if is_array(a)]
    names = fn.names if isinstance(fn, ModelInputs) else \
        _input_names(fn, args, arrays, params is not None or buffers is not None)
    wanted = requested(dynamic, args, arrays, names) if dynamic else {}
    dims = input_dims(wanted, args, arrays)
    specs = [_spec(args[i], d) for i, d in zip(arrays, dims)]
    in_specs = [TensorSpec(tuple(s.shape), _input_dtype(s, n)) for s, n in zip(specs, names)]
    tree = _merge(params, buffers)
    leaves = _flatten(tree) if tree is not None else []
    call = _caller(fn, args, arrays, kwargs, tree is not None)
    tree_specs = tf.nest.map_structure(_spec, tree) if tree is not None else None
    concrete = _concrete(call, ([tree_specs] if tree is not None else []) + specs, wanted)
    graph = concrete.graph

    builder = ImportBuilder("tensorflow", in_specs, names, dims if wanted else ())
    flow = DimFlow(builder.inputs, dims) if wanted else None
    trainable = {path for path, _ in _flatten(params)} if params is not None else set()
    values: list[Value] = [builder.param(path, np.asarray(leaf), path in trainable)
                           for path, leaf in leaves]
    values += builder.inputs[:len(specs)]
    variables = _variable_refs(fn, graph)
    captured = {internal.name: variables.get(id(external), NO_VALUE)
                if external.dtype == tf.resource
                else np.asarray(external.numpy()) for external, internal in graph.captures}
    values += [captured[t.name] for t in graph.inputs[len(values):]]
    walker = Walker(builder, TABLE, Locator(), SIDE_EFFECTS, graph, flow)
    outputs = walker.run(graph, values)
    try:
        outs = [walker.output(v, i) for i, v in enumerate(outputs)]
        updates = [(builder.constant(v) if isinstance(v, np.ndarray) else v, k)
                   for k, v in walker.updates.items()]
        module = builder.finish(outs, _returns_sequence(concrete), name, updates)
    except UnsupportedOpsError as exc:
        if any(k.split(" ")[0] in CONTROL_FLOW for k in exc.missing):
            raise DataDependentControlFlowError(exc) from None
        raise
    # rules that recognise several ops as one (`tensorflow_space`) leave the ops they
    # replaced without uses: the import keeps only what the outputs need
    region_dce(module.entry.body)
    return module


def _input_dtype(spec: tf.TensorSpec, name: str) -> str:
    dtype = tf_dtype(spec.dtype)
    if dtype is None:
        raise TypeError(f"input '{name}' has dtype {spec.dtype.name}, which the ivy dialect "
                        f"does not support (supported: {', '.join(DTYPES)})")
    return dtype


def _spec(a: Any, dims: tuple[str | None, ...] = ()) -> tf.TensorSpec:
    """The TF type of an example argument; its dims named in `dims` unknown (None)."""
    if isinstance(a, (tf.Tensor, tf.Variable)):
        shape, dtype = a.shape.as_list(), a.dtype
    else:
        array = np.asarray(a)
        shape, dtype = list(array.shape), tf.as_dtype(array.dtype)
    return tf.TensorSpec([None if i < len(dims) and dims[i] else d
                          for i, d in enumerate(shape)], dtype)


def _is_keras_layer(fn: Any) -> bool:
    return any(c.__name__ == "Layer" and c.__module__.split(".")[0] in ("keras", "tf_keras")
               for c in type(fn).__mro__)


def _caller(fn: Any, args: tuple[Any, ...], arrays: list[int], kwargs: dict[str, Any],
            takes_tree: bool) -> Callable[..., Any]:
    """A function of the array arguments only (static ones are bound); a Keras layer or
    model is called in inference mode."""
    if _is_keras_layer(fn):
        kwargs.setdefault("training", False)

    def call(*traced: Any) -> Any:
        full = list(args)
        tree = traced[:1] if takes_tree else ()
        for i, t in zip(arrays, traced[len(tree):]):
            full[i] = t
        return fn(*tree, *full, **kwargs)
    return call


def _concrete(call: Callable[..., Any], sig: list[Any],
              wanted: dict[tuple[int, int], str]) -> Any:
    """TF's trace of `call`. A Python condition on a tensor that autograph did not
    convert becomes a `TraceError` naming the user's line; so does code that needs a
    size the user made dynamic (`wanted`) as a Python int."""
    try:
        return tf.function(call).get_concrete_function(*sig)
    except tf.errors.OperatorNotAllowedInGraphError as exc:
        frame = _raising_user_frame(exc)
        where = f" at {short_path(frame.filename)}:{frame.lineno}" if frame else ""
        raise TraceError(f"data-dependent Python control flow{where}: the truth value of a "
                         "traced tensor is not known while tracing; use tf.where "
                         "instead") from None
    except (TypeError, ValueError) as exc:
        if not wanted:
            raise
        named = ", ".join(dict.fromkeys(wanted.values()))
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TraceError(f"TensorFlow could not trace the program with {named} dynamic "
                         f"(unknown while tracing): {first}") from None


def _raising_user_frame(exc: BaseException) -> traceback.FrameSummary | None:
    """The innermost user frame where `exc` arose. Autograph re-raises errors as new
    exceptions; the original one, with the user's line, is the chain's innermost."""
    chain = [exc]
    while chain[-1].__context__ is not None and len(chain) < 16:
        chain.append(chain[-1].__context__)
    user = Locator().is_user
    for error in reversed(chain):
        frames = [f for f in traceback.extract_tb(error.__traceback__) if user(f.filename)]
        if frames:
            return frames[-1]
    return None


def _variable_refs(fn: Any, graph: Any) -> dict[int, VarRef]:
    """Captured resource handle (by id) -> the variable's parameter. Keras variables are
    named by their path, other TF variables by their name without ':0'; a name taken
    twice gets a numbered suffix."""
    paths = {}
    for v in getattr(fn, "variables", None) or ():
        inner = getattr(v, "value", None)
        if hasattr(v, "path") and hasattr(inner, "handle"):
            paths[id(inner.handle)] = v.path
    refs: dict[int, VarRef] = {}
    taken: set[str] = set()
    for v in graph.variables:
        name = paths.get(id(v.handle)) or v.name.removesuffix(":0")
        base, n = name, 1
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        refs[id(v.handle)] = VarRef(name, v.numpy(), bool(v.trainable))
    return refs


def _returns_sequence(concrete: Any) -> bool:
    out = concrete.structured_outputs
    return not isinstance(out, tf.Tensor)




class Locator:
    """Where the user's code created an op: the innermost frame of its traceback outside
    TensorFlow, Keras, the standard library and ivy_ir (verdicts cached per file)."""

    def __init__(self) -> None:
        frameworks = [sys.modules[m] for m in ("tensorflow", "keras", "tf_keras")
                      if getattr(sys.modules.get(m), "__file__", None)]
        self.dirs = OWN_DIRS + tuple(os.path.dirname(m.__file__) + os.sep
                                      for m in frameworks) + (sysconfig.get_paths()["stdlib"],)
        self.verdicts: dict[str, bool] = {}

    def is_user(self, filename: str) -> bool:
        if filename not in self.verdicts:
            self.verdicts[filename] = not filename.startswith(self.dirs + ("<",))
        return self.verdicts[filename]

    def __call__(self, op: Any) -> Any:
        for frame in reversed(op.traceback or ()):  # none in a graph rebuilt from a def
            if self.is_user(frame.filename):
                return location(short_path(frame.filename), frame.lineno)
        return location(None, None)




def _merge(params: Any, buffers: Any) -> Any:
    if params is None and buffers is None:
        return None
    if not isinstance(params or {}, dict) or not isinstance(buffers or {}, dict):
        raise TypeError("params and buffers must be (nested) dicts of arrays")
    tree = dict(params or {})
    for k, v in (buffers or {}).items():
        if k in tree:
            raise ValueError(f"'{k}' is both a parameter and a buffer")
        tree[k] = v
    return tree


def _flatten(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, leaf) pairs in `tf.nest.flatten` order (dict keys sorted)."""
    if isinstance(tree, dict):
        return [p for k in sorted(tree) for p in _flatten(tree[k], f"{prefix}{k}.")]
    if isinstance(tree, (list, tuple)):
        return [p for i, v in enumerate(tree) for p in _flatten(v, f"{prefix}{i}.")]
    return [(prefix[:-1], tree)]


def _input_names(fn: Any, args: tuple[Any, ...], arrays: list[int],
                 takes_tree: bool) -> list[str]:
    """Inputs named after the function's parameters, so the IR reads like the source."""
    try:
        names = list(inspect.signature(getattr(fn, "call", fn)).parameters)[int(takes_tree):]
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i}" for i in range(len(names), len(args))]
    return [names[i] for i in arrays]
