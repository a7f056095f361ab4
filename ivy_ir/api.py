"""The public entry points: trace, compile, lower, parse, list_ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Block, Region

import importers
import lowerings

from .compiled import Compiled
from .core.context import parse as parse_text
from .core.graph import Graph, input_names, is_array
from .core.module import Module
from .core.tracer import Tracer, value_of
from .dialect import SPECS, TensorSpec
from .passes import run_pipeline


def list_ops() -> list[str]:
    """Sorted names of every op of the ivy dialect."""
    return sorted(SPECS)


def _flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for k, v in tree.items():
            out.update(_flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: tree}


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


def trace(fn: Callable[..., Any], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None,
          params: dict[str, Any] | None = None, buffers: dict[str, Any] | None = None,
          name: str = "main", source: str | None = None) -> Module:
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
    as non-trainable parameters.
    """
    kwargs = kwargs or {}
    source = source or importers.detect_source(fn, args, params)
    if source != "ivy":
        return importers.importer(source).import_program(fn, args, kwargs, params=params,
                                               buffers=buffers, name=name)
    in_specs = [_spec_of(a) for a in args if is_array(a)]
    block = Block(arg_types=[s.to_xdsl() for s in in_specs])
    graph = Graph(block)
    takes_tree = params is not None or buffers is not None
    for arg, hint in zip(block.args, input_names(fn, args, takes_tree)):
        arg.name_hint = hint
    it = iter(block.args)
    call_args = [Tracer(next(it), graph) if is_array(a) else a for a in args]
    tree = _merge(params or {}, buffers or {})
    trainable = set(_flatten(params or {}))
    param_tracers = {k: Tracer(graph.add_param(k, np.asarray(v), k in trainable), graph)
                     for k, v in _flatten(tree).items()}
    if takes_tree:
        call_args.insert(0, _unflatten(param_tracers, tree))
    out = fn(*call_args, **kwargs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
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


def _spec_of(array: Any) -> TensorSpec:
    """The type of an example argument of any framework (a torch tensor that requires
    grad is read through `detach`, which NumPy conversion needs)."""
    if getattr(array, "requires_grad", False):
        array = array.detach()
    return TensorSpec.of(np.asarray(array))


def parse(text: str) -> Module:
    """Parse IR text (e.g. `str(module)`) back into a verified module."""
    return parse_text(text)


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
            source: str | None = None,
            print_ir_after_all: bool = False, **options: Any) -> Compiled:
    """Trace (or take) a program, optimize it with `passes` and lower it to `target`.

    `fn` may be a function or model of any source framework (see `trace`), an
    `ivy_ir.Module` or IR text. `passes` is a preset
    name ("default", "none") or a pipeline string; "" runs no pass at all. Target options
    (see `lower`) pass through.
    """
    lowerings.get_runtime(target).check_options(options)
    if isinstance(fn, str):
        module = parse(fn)
    elif isinstance(fn, Module):
        module = fn
    else:
        module = trace(fn, args, kwargs, params, buffers, source=source)
    optimized = run_pipeline(module, passes, print_ir_after_all=print_ir_after_all)

    retrace = None
    if callable(fn) and not isinstance(fn, Module):
        def retrace(new_args: tuple[Any, ...]) -> Compiled:
            return compile(fn, target, new_args, kwargs, passes, params, buffers, source,
                           print_ir_after_all=print_ir_after_all, **options)
    return Compiled(optimized, lowerings.lower(optimized, target, **options), retrace)
