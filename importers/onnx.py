"""The ONNX importer: an ONNX model (a `ModelProto`, a `.onnx` path or serialized
bytes) -> the ivy dialect.

The model is data, not code: ONNX's own protobuf reader loads it (external-data
tensors from the model's folder, as raw bytes), and nothing from it is executed or
pasted into source. Graph inputs become IR inputs (types from the example `args`,
else from the graph's declared input types), their `dim_param` dims symbolic
(`onnx_dims`: one program for every batch or sequence length, the shape arithmetic
on them folded into size expressions by `onnx_sizes`); initializers become IR
parameters named exactly as in the graph, trainable when floating-point, except small
integer ones, which are known values (shapes and axes, so `Reshape` by an initializer
stays static: `onnx_walk.Walker.initializer`). `TABLE` maps each default-domain operator onto
registry ops, one family module each; `UPGRADES` rewrites nodes of older opsets into
the newest operator form first, so rules only know one form. The walk is
`onnx_walk.Walker`; unknown operators are reported all at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ivy_ir.core.errors import TraceError, UnsupportedOpsError
from ivy_ir.core.graph import is_array
from ivy_ir.core.module import Module
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import numpy_dtype

from . import (
    onnx_control,
    onnx_data_shaped,
    onnx_index,
    onnx_loss,
    onnx_math,
    onnx_ml,
    onnx_nn,
    onnx_nn_flex,
    onnx_optional,
    onnx_quant,
    onnx_random,
    onnx_reduce,
    onnx_rotary,
    onnx_sequence,
    onnx_shape,
    onnx_spectral,
    onnx_strings,
    onnx_tfidf,
    onnx_training,
)
from .common import ImportBuilder, Rule, Unmapped, merge_tables
from .onnx_ctx import Opt, Seq, elem_dtype
from .onnx_dims import declared_dims, dim_names, requested_dims
from .onnx_optional import form, leaves
from .onnx_sequence import SequenceCall
from .onnx_walk import MISSING, Upgrade, Walker, output_value

FAMILIES = (onnx_math, onnx_reduce, onnx_shape, onnx_index, onnx_data_shaped, onnx_control,
            onnx_loss, onnx_quant, onnx_random, onnx_rotary, onnx_spectral, onnx_training, onnx_ml,
            onnx_nn, onnx_nn_flex, onnx_sequence, onnx_optional, onnx_strings, onnx_tfidf)
"""The operator family modules, each with `TABLE` and optionally `UPGRADES` and
`DOMAIN` (the operator domain its table serves; the default domain when absent)."""

TABLES: dict[str, dict[str, Rule]] = {
    domain: merge_tables(*(f.TABLE for f in FAMILIES if getattr(f, "DOMAIN", "") == domain))
    for domain in sorted({getattr(f, "DOMAIN", "") for f in FAMILIES})}
"""Operator domain ("" for the default `ai.onnx`) -> op_type -> `Rule`, called as
`rule(ctx, *inputs, **attrs)`."""

TABLE = TABLES[""]
"""The default domain's operators."""

UPGRADES: dict[str, tuple[int, Upgrade]] = dict(
    merge_tables(*(getattr(f, "UPGRADES", {}) for f in FAMILIES)))
"""op_type (default domain) -> (since, upgrade): nodes of an opset older than `since`
are rewritten into the newest form before their rule runs."""


def load_model(model: Any) -> tuple[Any, str]:
    """The `ModelProto` and a short file name for locations. A path loads with ONNX's
    reader, external data from the model's folder (raw bytes, no code runs)."""
    import onnx  # lazy: `import ivy_ir` must not load onnx

    if isinstance(model, onnx.ModelProto):
        return model, "<onnx>"
    if isinstance(model, (bytes, bytearray, memoryview)):
        try:
            return onnx.load_model_from_string(bytes(model)), "<onnx>"
        except Exception as exc:  # protobuf's DecodeError: data, not an internal fault
            raise ValueError(f"the bytes are not a serialized ONNX model: {exc}") from None
    path = os.fspath(model)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such ONNX model file: {path}")
    try:
        proto = onnx.load(path)
    except Exception as exc:  # a truncated or foreign file, or missing external data
        raise ValueError(f"{path} could not be read as an ONNX model: {exc}") from None
    return proto, os.path.basename(path)


def needs_examples(model: Any) -> bool:
    """Whether some graph input has no static type (a symbolic or unknown dim): then
    `ivy_ir.compile` without example inputs compiles on the first call. That first
    compile still keeps the `dim_param` dims symbolic (one program for all their
    sizes), and its examples are there for the dims a node cannot keep symbolic
    (`import_program`'s fallback), so a model that imported before still does."""
    graph = load_model(model)[0].graph
    inits = {t.name for t in graph.initializer}
    for info in graph.input:
        tensor = info.type.tensor_type
        if info.name not in inits and (not tensor.HasField("shape") or any(
                not d.HasField("dim_value") for d in tensor.shape.dim)):
            return True
    return False


def import_program(model: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None,
                   *, params: Any = None, buffers: Any = None, name: str = "main",
                   dynamic: Any = None) -> Module:
    """Import an ONNX model. `args` (or `kwargs` by input name) are example inputs, one
    per graph input that is not an initializer; without them the graph's declared input
    types are used. An example given as a Python value (a list of ints, a number) rather
    than an array fixes that input at import: it is no input of the program, and rules
    that need a known shape, axes or bounds can read it. A sequence-typed input's
    example is a list of arrays, one IR input each (`onnx_sequence`); an optional
    input's is None for an empty one, else its tensor or list (`onnx_optional`).

    Input dims the model names with a `dim_param` stay symbolic (`{ivy.dims}`), whatever
    size the examples have: the model's author asked for them to be free, and one
    program then serves every size (`onnx_dims`). A dim with neither a value nor a name
    takes the example's size, or a generated name without examples. `dynamic` chooses:
    None (the default) as said, falling back to the examples' sizes for every dim when
    some node cannot keep a dim symbolic; True the same without that fallback (the
    node is reported); False every dim static, from the examples; or
    `{input name or position: {axis: dim name}}`: exactly those dims symbolic."""
    if params is not None or buffers is not None:
        raise TypeError("an ONNX model carries its weights as initializers; params= and "
                        "buffers= are not taken")
    proto, file = load_model(model)
    graph = proto.graph
    if graph.sparse_initializer:
        raise TraceError("sparse initializers are not supported")
    inits = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in inits]
    examples = _examples(inputs, tuple(args), dict(kwargs or {}))
    given = bool(args or kwargs)
    optional = [i.name for i in inputs if i.type.HasField("optional_type")]
    if optional and not given:
        raise TypeError(f"ONNX input '{optional[0]}' is optional: whether it holds a value "
                        "is known only when the model is called; pass example inputs "
                        "(None for an empty optional)")
    symbolic = _symbolic(inputs, dynamic, given)
    if optional or given and any(i.type.HasField("sequence_type") for i in inputs):
        symbolic = {}  # a program per call structure (`onnx_sequence`): dims static
    try:
        module = _import(proto, file, inputs, examples, symbolic, name)
    except UnsupportedOpsError:
        if dynamic is not None or not symbolic or not given:
            raise
        return _import(proto, file, inputs, examples, {}, name)
    if module.tree is not None and module.dims and given:
        # a sequence output makes a program per call structure too: its dims static
        return _import(proto, file, inputs, examples, {}, name)
    return module


def _symbolic(inputs: list[Any], dynamic: Any, given: bool) -> dict[str, dict[int, str]]:
    """Input name -> axis -> dim name of the dims that stay symbolic (see
    `import_program`)."""
    declared = [(i.name, declared_dims(i)) for i in inputs]
    if dynamic is False:
        return {}
    if dynamic is None or dynamic is True:
        return dim_names(declared, free_unnamed=not given)
    if isinstance(dynamic, Mapping):
        return requested_dims(dynamic, [n for n, _ in declared], [d for _, d in declared])
    raise TypeError("dynamic= must be None, True, False or a dict {input name or position: "
                    f"{{axis: dim name}}}}, not {type(dynamic).__name__}")


def _import(proto: Any, file: str, inputs: list[Any], examples: list[Any],
            symbolic: dict[str, dict[int, str]], name: str) -> Module:
    """One import of the graph with the dims of `symbolic` kept symbolic."""
    graph = proto.graph
    specs, bad, static, dims = {}, {}, {}, {}
    sequences: dict[str, tuple[int, str | None]] = {}
    optional = {i.name for i in inputs if i.type.HasField("optional_type")}
    for info, example in zip(inputs, examples):
        named = symbolic.get(info.name, {})
        if info.name in optional:
            if example is None:
                continue  # empty: no program input
            info = type(info)(name=info.name, type=info.type.optional_type.elem_type)
        try:
            if info.type.HasField("sequence_type"):
                elements = _sequence_inputs(info, example)
                sequences[info.name] = (len(elements), _sequence_dtype(info))
                specs.update(elements)
                dims.update((k, [None] * s.rank) for k, s in elements.items())
            elif example is not None and not is_array(example):
                static[info.name] = _static_input(info, example)
            else:
                specs[info.name] = _input_spec(info, example, named)
                dims[info.name] = [named.get(k) for k in range(specs[info.name].rank)]
        except Unmapped as exc:
            bad[info.name] = exc.detail
    builder = ImportBuilder("onnx", list(specs.values()), list(specs), list(dims.values()))
    opsets = {o.domain: o.version for o in proto.opset_import}
    walker = Walker(builder, TABLES, UPGRADES, opsets, file)
    args = iter(builder.inputs)
    for info in inputs:
        if info.name in sequences:
            length, dtype = sequences[info.name]
            walker.root.bind(info.name, Seq(tuple(next(args) for _ in range(length)), dtype))
        elif info.name in specs:
            walker.bind_input(info.name, next(args), dims[info.name])
    for input_name, array in static.items():
        walker.root.bind(input_name, array)
    for input_name in optional:  # what the call passes, held (None: empty)
        walker.root.bind(input_name, Opt(walker.root.values.get(input_name)))
    for input_name, detail in bad.items():
        walker.report(f"input '{input_name}' ({detail})", "graph")
        walker.root.bind(input_name, MISSING)
    kept = [i.name for i in inputs if i.name not in static]
    slots = tuple(form(walker.root.get(n)) for n in kept)
    for tensor in graph.initializer:
        walker.root.bind(tensor.name, walker.initializer(tensor))
    walker.walk(graph, walker.root)
    outs, shapes = [], []
    for out in graph.output:
        try:
            value = walker.root.get(out.name)
            outs += [output_value(builder, v, out.name) for v in leaves(value)]
            shapes.append(form(value))
        except Unmapped as exc:
            walker.report(f"output {exc.detail}", "graph")
    structured = bool(sequences or optional) or any(n is not None for n in shapes)
    try:
        module = builder.finish(outs, len(graph.output) != 1 or structured, name)
    except UnsupportedOpsError as exc:
        if walker.static_wanted:
            raise StaticInputsError(exc, sorted(walker.static_wanted)) from None
        raise
    if structured:
        module.tree = SequenceCall(tuple(kept), slots, tuple(shapes))
    return module


class StaticInputsError(UnsupportedOpsError):
    """The unsupported-op report of a model some of whose nodes need, at import, the
    values of graph inputs (a shape, axes, pads given as inputs, as ONNX's node tests
    do): `inputs` names them. Giving their examples as Python lists fixes them at
    import, e.g. `args=[a.tolist() if n in exc.inputs else a for n, a in ...]`."""

    def __init__(self, base: UnsupportedOpsError, inputs: list[str]):
        super().__init__(base.framework, base.missing)
        self.inputs = tuple(inputs)


def _examples(inputs: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
              ) -> list[Any]:
    """The example array of each graph input (None: use the declared type)."""
    names = [i.name for i in inputs]
    if len(args) > len(names):
        raise TypeError(f"the model takes {len(names)} input(s) ({', '.join(names)}), "
                        f"got {len(args)} example arguments")
    unknown = sorted(set(kwargs) - set(names[len(args):]))
    if unknown:
        raise TypeError(f"keyword input(s) {', '.join(unknown)} name no remaining model "
                        f"input; inputs: {', '.join(names)}")
    given = list(args) + [kwargs.get(n) for n in names[len(args):]]
    if args or kwargs:  # None is an empty optional, which must still be passed
        passed = set(names[:len(args)]) | set(kwargs)
        absent = [i.name for i, a in zip(inputs, given) if a is None and (
            i.name not in passed or not i.type.HasField("optional_type"))]
        if absent:
            raise TypeError(f"no example input for {', '.join(absent)}")
    return given


def _sequence_inputs(info: Any, example: Any) -> dict[str, TensorSpec]:
    """The IR inputs of a sequence-typed graph input, one per tensor of its example
    list (named `<input>.<k>`, their dims static): the length is known only when the
    model is called, so each length is its own program (`onnx_sequence`)."""
    if not isinstance(example, (list, tuple)):
        raise Unmapped("a sequence input's length is known only when it is called: give "
                       "its example as a list of arrays")
    element = type(info)(name=info.name, type=info.type.sequence_type.elem_type)
    return {f"{info.name}.{k}": _input_spec(element, item, {})
            for k, item in enumerate(example)}


def _sequence_dtype(info: Any) -> str | None:
    """The element dtype a sequence input declares (None: none)."""
    elem = info.type.sequence_type.elem_type.tensor_type.elem_type
    return elem_dtype(elem) if elem else None


def _static_input(info: Any, example: Any) -> np.ndarray:
    """The value of an input given as a Python value (a list, a number) rather than an
    array: fixed at import, like a static argument of a traced function, so a shape or
    axes input the registry needs as an attribute is known."""
    dtype = _declared_dtype(info)
    return np.asarray(example, None if dtype is None else numpy_dtype(dtype))


def _declared_dtype(info: Any) -> str | None:
    """The registry dtype an input declares (None: none declared); `Unmapped` for a
    sequence, map or optional input, or an element type the registry lacks."""
    kind = info.type.WhichOneof("value")
    if kind not in (None, "tensor_type"):
        raise Unmapped(f"a {kind.replace('_type', '')} input has no ivy type")
    elem = info.type.tensor_type.elem_type
    return elem_dtype(elem) if elem else None


def _input_spec(info: Any, example: Any, named: Mapping[int, str]) -> TensorSpec:
    """An input's type: the example's (checked against the declared element type and
    static dims), else the declared one; the dims of `named` are dynamic either way."""
    declared = _declared_dtype(info)
    dims = declared_dims(info)
    if dims is not None and any(isinstance(d, int) and d < 0 for d in dims):
        raise ValueError(f"ONNX input '{info.name}' declares a negative dim: {dims}")
    if example is None:
        if declared is None or dims is None or any(
                not isinstance(d, int) and k not in named for k, d in enumerate(dims)):
            shown = "?" if dims is None else ", ".join(
                str(d) if isinstance(d, int) else "?" for d in dims)
            raise TypeError(f"ONNX input '{info.name}' has no static type ([{shown}] "
                            f"{declared or 'unknown dtype'}); pass example inputs: "
                            "ivy_ir.compile(model, args=(x, ...))")
        return TensorSpec(tuple(None if k in named else d for k, d in enumerate(dims)),
                          declared)
    array = np.asarray(example.detach() if hasattr(example, "detach") else example)
    if dims is not None and (len(dims) != array.ndim or any(
            isinstance(d, int) and d != s for d, s in zip(dims, array.shape))):
        raise ValueError(f"example input '{info.name}' has shape {list(array.shape)}; the "
                         f"model declares {[d if isinstance(d, int) else '?' for d in dims]}")
    if any(k >= array.ndim for k in named):
        raise ValueError(f"dynamic=: example input '{info.name}' has rank {array.ndim}; "
                         f"axes {sorted(named)} do not exist")
    spec = TensorSpec.of(array)
    if declared is not None and spec.dtype != declared:
        raise TypeError(f"example input '{info.name}' has dtype {spec.dtype}; the model "
                        f"declares {declared} (ONNX does not convert inputs)")
    return spec.with_(shape=tuple(None if k in named else d for k, d in enumerate(spec.shape)))
