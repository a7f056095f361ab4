"""The public entry points: trace, compile, lower, parse, list_ops."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Block, Region
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError

import importers
import lowerings
from importers.dynamic import requested

from .compiled import Compiled
from .core.context import parse as parse_text
from .core.graph import Graph, input_names, is_array
from .core.ir_text import ParseLimits
from .core.locations import identifier
from .core.module import Module
from .core.tracer import Tracer, value_of
from .dialect import SPECS, TensorSpec
from .lazy import LazyCompiled
from .opt import expand_presets
from .passes import available_passes, run_pipeline


def list_ops() -> list[str]:
    """Sorted names of every op of the ivy dialect."""
    return sorted(SPECS)


def _flatten(tree: Any, keys: tuple[Any, ...] = (),
             seen: dict[str, tuple[Any, ...]] | None = None) -> dict[str, Any]:
    """Leaves of a nested dict keyed by dotted path. Two paths that print alike
    (`{"a.b": W}` beside `{"a": {"b": V}}`) would silently become one parameter, so
    they are refused, naming both."""
    seen = {} if seen is None else seen
    if not isinstance(tree, dict):
        path = ".".join(str(k) for k in keys)
        if path in seen:
            raise ValueError(f"params/buffers: {_spell(seen[path])} and {_spell(keys)} both "
                             f"name the parameter '{path}'; rename one of them")
        seen[path] = keys
        return {path: tree}
    out: dict[str, Any] = {}
    for k, v in tree.items():
        out.update(_flatten(v, (*keys, k), seen))
    return out


def _spell(keys: tuple[Any, ...]) -> str:
    return "".join(f"[{k!r}]" for k in keys)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        elif k in out:
            raise ValueError(f"'{k}' is both a parameter and a buffer")
        else:
            out[k] = v
    return out


def _unflatten(flat: dict[str, Any], like: Any, prefix: str = "") -> Any:
    if isinstance(like, dict):
        return {k: _unflatten(flat, v, f"{prefix}{k}.") for k, v in like.items()}
    return flat[prefix[:-1]]


DYNAMIC_SOURCES = ("ivy", "torch", "jax", "tensorflow", "onnx")
"""The sources whose importers take `dynamic=` (symbolic dims)."""


def trace(fn: Callable[..., Any], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None,
          params: dict[str, Any] | None = None, buffers: dict[str, Any] | None = None,
          name: str = "main", source: str | None = None, dynamic: Any = None) -> Module:
    """Trace a program into an ivy IR module.

    `source` names the framework `fn` is written in ("ivy", "numpy", "torch", "jax",
    "tensorflow"); by default it is detected from `fn` (an `nn.Module`, a Keras model),
    the example arguments (torch tensors, JAX or TF arrays) and the modules its code names.
    Programs of other frameworks go through their importer (`importers/`); the rest of
    this docstring is about the `ivy` facade.

    Array arguments become function inputs; other arguments (Python scalars, shapes,
    strings) are static and read as constants. With `params` (a nested dict of arrays)
    the function is called as `fn(params, *args)` and each leaf becomes a parameter
    named by its dotted path. `buffers` (e.g. batch-norm statistics) join the same tree
    as non-trainable parameters. An object with `__ivy_program__()` (an `ivy.Module`)
    gives its own `(apply, params, buffers)`: its variables become the parameters.

    `dynamic` keeps dims symbolic, so one program serves every size of them:
    `{"x": {0: "batch", 1: "seq"}}` (an input's name or position -> axis -> dim name) or
    True (dim 0 of every input, named `batch`; for an ONNX model, its own `dim_param`
    dims, which stay symbolic by default, and False makes every dim static).
    """
    source, args, kwargs = _prepared(fn, args, kwargs, params, buffers, source)
    if dynamic and source not in DYNAMIC_SOURCES:
        raise NotImplementedError(f"dynamic= is taken from {', '.join(DYNAMIC_SOURCES)} "
                                  f"programs so far; this one is {source}: trace it at each "
                                  "size, or write its IR with named dims ({ivy.dims})")
    program = getattr(fn, "__ivy_program__", None)
    if source == "ivy" and program is not None and params is None and buffers is None:
        fn, params, buffers = program()
    if source != "ivy":
        program = _checked(fn) if inspect.isfunction(fn) or inspect.ismethod(fn) else fn
        extra = {"dynamic": dynamic} if dynamic is not None and source in DYNAMIC_SOURCES \
            else {}
        return importers.importer(source).import_program(program, args, kwargs,
                                                         params=params, buffers=buffers,
                                                         name=name, **extra)
    takes_tree = params is not None or buffers is not None
    hints = input_names(fn, args, takes_tree)
    arrays = [a for a in args if is_array(a)]
    named = requested(dynamic, arrays, hints, lambda a: _spec_of(a).rank) if dynamic else {}
    in_specs = [_spec_of(a) for a in arrays]
    in_specs = [s.with_(shape=tuple(None if (i, k) in named else d
                                    for k, d in enumerate(s.shape)))
                for i, s in enumerate(in_specs)]
    block = Block(arg_types=[s.to_xdsl() for s in in_specs])
    graph = Graph(block)
    for i, (arg, hint) in enumerate(zip(block.args, hints)):
        arg.name_hint = identifier(hint)
        if any(j == i for j, _ in named):
            graph.declare_dims(arg, [named.get((i, k)) for k in range(in_specs[i].rank)])
    it = iter(block.args)
    call_args = [Tracer(next(it), graph) if is_array(a) else a for a in args]
    tree = _merge(params or {}, buffers or {})
    trainable = set(_flatten(params or {}))
    param_tracers = {k: Tracer(graph.add_param(k, np.asarray(v), k in trainable), graph)
                     for k, v in _flatten(tree).items()}
    if takes_tree:
        call_args.insert(0, _unflatten(param_tracers, tree))
    out = fn(*call_args, **kwargs)
    outs = _outputs(fn, out)
    values = [value_of(graph, o) for o in outs]
    block.add_op(func.ReturnOp(*values))
    fn_op = func.FuncOp(name, ([a.type for a in block.args], [v.type for v in values]),
                        Region(block))
    fn_op.arg_attrs = ArrayAttr([graph.param_attrs.get(i, DictionaryAttr({}))
                                 for i in range(len(block.args))])
    module = Module(ModuleOp([fn_op]), dict(graph.params),
                    returns_sequence=isinstance(out, (tuple, list)))
    module.verify()
    return module


def _check_arguments(args: Any, kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """`args` must be a tuple (or list) of example arguments and `kwargs` a dict: a bare
    array as `args` would otherwise be unpacked along its first axis."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"ivy_ir: args= must be a tuple of example arguments, not "
                        f"{type(args).__name__}; for one argument write args=(x,)")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise TypeError(f"ivy_ir: kwargs= must be a dict of keyword arguments, not "
                        f"{type(kwargs).__name__}")
    return tuple(args), dict(kwargs or {})


def _prepared(fn: Any, args: Any, kwargs: Any, params: Any, buffers: Any,
              source: str | None) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """The checked arguments, the source framework, and array keyword arguments moved
    to their parameters' positions (skipped ones in between take their defaults). The
    importers make positional arrays inputs, named after the parameter (a compiled call
    then takes them by that name); the JAX, TensorFlow and NumPy importers would bake a
    keyword array in as a constant. torch.export takes keyword inputs itself, so for
    torch only what has a position moves (one input order for every source)."""
    args, kwargs = _check_arguments(args, kwargs)
    source = source or importers.detect_source(fn, args, params)
    if source == "onnx" or not any(is_array(v) for v in kwargs.values()):
        # an ONNX model is data, not a function: its importer takes inputs by name
        return source, args, kwargs
    tree_first = (params is not None or buffers is not None) and inspect.isroutine(fn)
    slots = _positional_parameters(fn)[int(tree_first):]
    names = [p.name for p in slots]
    unplaced = [k for k, v in kwargs.items() if is_array(v) and k not in names[len(args):]]
    if unplaced and source != "torch":
        name = getattr(fn, "__qualname__", type(fn).__name__)
        raise TypeError(f"ivy_ir: array keyword argument(s) {', '.join(map(repr, unplaced))} "
                        f"of {name} match no positional parameter after the {len(args)} "
                        "given positionally; only those can become inputs")
    positions = [names.index(k) for k, v in kwargs.items() if is_array(v) and k not in unplaced]
    rest = dict(kwargs)
    placed = list(args)
    for p in slots[len(args):max(positions, default=-1) + 1]:
        if p.name not in rest and p.default is p.empty:
            return source, args, kwargs  # a required one is missing: the call says so
        placed.append(rest.pop(p.name, p.default))
    return source, tuple(placed), rest


def _positional_parameters(fn: Any) -> list[inspect.Parameter]:
    """The parameters a call can fill by position: of the function, or of the model's
    own forward (torch `forward`, Keras `call`, ivy `_forward`, Flax `__call__`)."""
    target = fn
    if not inspect.isroutine(fn):
        target = next((m for m in (getattr(fn, a, None) for a in ("forward", "call", "_forward"))
                       if inspect.ismethod(m)), fn)
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in parameters if p.kind in kinds]


def _outputs(fn: Any, out: Any) -> list[Any]:
    """The traced function's results as a list: an array, or a tuple/list of arrays
    (NumPy arrays and Python numbers become constants). Anything else (None, a dict, a
    string, a generator) has no IR form, and is named here rather than failing deep
    inside constant building."""
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, o in enumerate(outs):
        if not (isinstance(o, (Tracer, bool, int, float, complex)) or is_array(o)):
            _refuse(fn, out, i, o)
    return outs


NEVER_ARRAYS = (type(None), str, bytes, dict, set, frozenset, types.GeneratorType)
"""Results no importer can turn into IR values (each would fail somewhere deep, or a
generator or None would silently become an empty program)."""


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, refusing results of `NEVER_ARRAYS` types by name (another framework's
    function: its importer records whatever arrays it returns)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        items = list(out) if isinstance(out, (tuple, list)) else [out]
        for i, o in enumerate(items):
            if isinstance(o, NEVER_ARRAYS):
                _refuse(fn, out, i, o)
        return out
    return call


def _refuse(fn: Any, out: Any, i: int, o: Any) -> NoReturn:
    what = f"returned, as result {i}," if isinstance(out, (tuple, list)) else "returned"
    name = getattr(fn, "__qualname__", type(fn).__name__)
    raise TypeError(f"ivy_ir: {name} {what} a {type(o).__name__}; a traced function must "
                    "return an array or a tuple/list of arrays")


def _spec_of(array: Any) -> TensorSpec:
    """The type of an example argument of any framework (a torch tensor that requires
    grad is read through `detach`, which NumPy conversion needs)."""
    if getattr(array, "requires_grad", False):
        array = array.detach()
    return TensorSpec.of(np.asarray(array))


def parse(text: str | bytes, name: str = "<ir>", limits: ParseLimits | None = None) -> Module:
    """Parse IR text (e.g. `str(module)`) back into a verified module.

    Every failure is an `IRError` pointing at `name:line:col`. `limits`
    (`ParseLimits(max_dense_elements=..., max_nesting=...)`) bounds what untrusted text
    may make the parser allocate; `ivy_ir.parse_limits(...)` sets them for a block.
    """
    return parse_text(text, name, limits)


def lower(module: Module, target: str = "numpy", params: dict[str, Any] | None = None,
          **options: Any) -> Compiled:
    """Lower a module as it is (no passes) to a callable of `target`.

    `options` are the target's own: `torch_compile=True` (torch), `jit_compile=True`
    (TensorFlow XLA).
    """
    return Compiled(module, lowerings.lower(module, target, params, **options))


def compile(fn: Any, target: str = "numpy", args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None, passes: str = "default",
            params: dict[str, Any] | None = None, buffers: dict[str, Any] | None = None,
            source: str | None = None, print_ir_after_all: bool = False,
            dynamic: Any = None, **options: Any) -> Compiled:
    """Trace (or take) a program, optimize it with `passes` and lower it to `target`.

    `fn` may be a function or model of any source framework (see `trace`), an
    `ivy_ir.Module` or IR text. `passes` is a pipeline string whose items are passes
    or preset names ("default", "none", "default,fuse-elementwise"), as `ivy-opt -p`
    takes it; "" runs no pass at all. Target options (see `lower`) pass through.

    With no example `args` for a function that needs some, the result compiles on its
    first call and again per new argument signature, as `jax.jit` does (`LazyCompiled`,
    with `cache_info()`). `dynamic` (see `trace`) makes one compile serve every size of
    the named dims.
    """
    lowerings.get_runtime(target).check_options(options)
    pipeline = _pipeline(passes)
    if isinstance(args, tuple) and not args and kwargs is None and \
            _needs_arguments(fn, params is not None):
        def build(call_args: tuple[Any, ...], call_kwargs: dict[str, Any]) -> Compiled:
            return _compile_now(fn, target, call_args, call_kwargs, pipeline, params,
                                buffers, source, print_ir_after_all, options, dynamic)
        return LazyCompiled(build, getattr(fn, "__name__", type(fn).__name__))
    return _compile_now(fn, target, args, kwargs, pipeline, params, buffers, source,
                        print_ir_after_all, options, dynamic)


def _compile_now(fn: Any, target: str, args: Any, kwargs: Any, pipeline: str,
                 params: Any, buffers: Any, source: str | None, print_ir_after_all: bool,
                 options: dict[str, Any], dynamic: Any = None) -> Compiled:
    if isinstance(fn, str) and not importers.is_onnx_model(fn):
        module = parse(fn)
    elif isinstance(fn, Module):
        module = fn
    else:
        source, args, kwargs = _prepared(fn, args, kwargs, params, buffers, source)
        module = trace(fn, args, kwargs, params, buffers, source=source, dynamic=dynamic)
    optimized = run_pipeline(module, pipeline, print_ir_after_all=print_ir_after_all,
                             verify_each=False)

    retrace = None
    if callable(fn) and not isinstance(fn, Module):
        def retrace(new_inputs: tuple[Any, ...]) -> Compiled:
            # the inputs are the array arguments only (positional, then torch's keyword
            # ones): the static ones (`n` of `f(x, n)`) go back to their places; a
            # structured program (`Module.tree`) is given the call's (args, kwargs)
            if optimized.tree is not None:
                new_args, new_kwargs = new_inputs
            else:
                it = iter(new_inputs)
                new_args = tuple(next(it) if is_array(a) else a for a in args)
                new_kwargs = {k: next(it) if is_array(v) else v for k, v in kwargs.items()}
            return _compile_now(fn, target, new_args, new_kwargs, pipeline, params,
                                buffers, source, print_ir_after_all, options, dynamic)
    return Compiled(optimized, lowerings.lower(optimized, target, **options), retrace)


def _needs_arguments(fn: Any, takes_params: bool) -> bool:
    """Whether `fn` (a function, or a model's `forward`/`call`) has a required argument
    beyond the parameter tree: then a compile without example arguments waits for the
    first call. An ONNX model needs them when an input's type is not static."""
    if importers.is_onnx_model(fn):
        return importers.importer("onnx").needs_examples(fn)
    if isinstance(fn, (str, Module)) or not callable(fn):
        return False
    required = [p for p in _positional_parameters(fn) if p.default is p.empty]
    return len(required) > int(takes_params)


def _pipeline(passes: Any) -> str:
    """`passes` as a pipeline string with presets expanded (`"default,cse"`, as
    `ivy-opt -p` takes it), checked before anything is traced. xDSL reports a malformed
    spec with an exception outside `Exception` (`ArgSpecParseError`), which a user's
    `except Exception` would not catch; it becomes a ValueError naming the argument."""
    if not isinstance(passes, str):
        raise TypeError(f"ivy_ir: passes= must be a pipeline string such as 'default' or "
                        f"'canonicalize,cse', not {type(passes).__name__}")
    spec = expand_presets(passes)
    try:
        PassPipeline.parse_spec(available_passes(), spec)
    except (ValueError, ArgSpecParseError) as exc:
        detail = " ".join(str(exc).split())
        raise ValueError(f"ivy_ir: passes={passes!r} is not a valid pipeline: {detail}"
                         ) from None
    return spec
