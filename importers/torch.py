"""The PyTorch importer: `torch.export` captures the program, one walker maps its ATen
graph onto the ivy dialect through `torch_table.TABLE` (ATen op -> `importers.common.Rule`).

Functions and `nn.Module`s both go through `torch.export.export` (static shapes unless
`dynamic=` names dims, `torch_dims`; the module in whatever train/eval mode it is in):
a function is wrapped in a small module first; an `ExportedProgram` the user made (say,
decomposed to core ATen) is walked as is. The exported graph keeps high-level ATen ops
(linear, conv2d, layer_norm, scaled_dot_product_attention, ...), which map one-to-one
onto registry ops; only when the graph holds in-place ops or ops without a table entry
does a normalization pre-pass run `ep.run_decompositions` with torch's decompositions
restricted to exactly those ops.
Parameters and buffers become IR parameters named by their state_dict keys; lifted
tensor constants become constants. Every op's location is the innermost frame of user
code in torch's recorded stack trace.

The rules live in one module per op family (`torch_math`: elementwise math and
activations, `torch_reduce`, `torch_shape`, `torch_index`, `torch_nn`, `torch_recurrent`:
LSTM/GRU/RNN as scans, `torch_segment`: bags and scatter-reductions, `torch_grad`:
backward kernels, `torch_random`, `torch_linalg`: factorizations, `torch_fft`: complex
numbers and FFTs), each exposing its table; `torch_table.TABLE` joins them.
Rules see the node through `torch_ctx.Ctx` (the torch `ImportContext`); capturing with
`torch.export` is `torch_capture`'s. Higher-order ops (`torch.cond`, `torch.while_loop`,
scan) are not table entries: the walker walks their body graphs into region ops
(`torch_control`).
"""

from __future__ import annotations

import operator
import os
from typing import Any

import numpy as np
import torch
from torch.export.graph_signature import InputKind, OutputKind
from xdsl.ir import SSAValue

from ivy_ir.core.errors import TraceError
from ivy_ir.core.locations import short_path
from ivy_ir.core.module import Module
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.ops import AttrError

from .common import (
    ImportBuilder,
    Unmapped,
    location,
    location_str,
    spec_of,
)
from .torch_cache import cache_step
from .torch_capture import (
    FRAME,
    TORCH_DIR,
    FunctionModule,
    check_exported,
    export,
    input_names,
    to_torch,
    user_frame,
)
from .torch_control import ControlFlow
from .torch_ctx import Ctx, DataDependent, TensorScalar, meta_spec, to_numpy
from .torch_dims import DimNames, export_shapes, requested, widened
from .torch_loops import LoopRewriter
from .torch_table import SKIPPED, lookup, normalize, packet

KNOWN_LIMIT = 1 << 16
"""Largest import-time constant (elements) whose derived values the walker tracks."""
_RANGES = frozenset({"arange", "linspace", "logspace", "eye", "zeros", "ones", "full",
                     "scalar_tensor"})
"""Ops of no tensor input whose values are fixed at import time (position ids), which
the walker tracks as constants; draws and `empty` are not."""


def import_program(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
                   params: dict[str, Any] | None = None, buffers: dict[str, Any] | None = None,
                   name: str = "main", dynamic: Any = None) -> Module:
    """Import a torch function or `nn.Module` called on `args` into an ivy module.

    A `torch.export.ExportedProgram` is imported as it is (no re-export), so what a user
    made of it stays: `torch.export.export(m, (x,)).run_decompositions()` imports the
    core-ATen graph. Its types are fixed; `args`, when given, must match them.
    `dynamic` names dims that stay symbolic (`torch_dims`)."""
    if isinstance(fn, torch.export.ExportedProgram):
        check_exported(fn, tuple(args), dict(kwargs or {}), params, buffers)
        return _Walker(normalize(fn)).run(name)
    module = fn if isinstance(fn, torch.nn.Module) else FunctionModule(fn, params, buffers)
    args, kwargs = to_torch(tuple(args)), to_torch(dict(kwargs or {}))
    tree = isinstance(module, FunctionModule) and module.has_tree
    source = fn if isinstance(module, FunctionModule) else module.forward
    names, prefix = input_names(source, args, kwargs, tree), "store." if tree else ""
    step = cache_step(module, args, kwargs)  # a KV cache in the call: see torch_cache
    if step is not None:
        (module, args, names), kwargs, prefix = step, {}, f"model.{prefix}"
    wanted = requested(dynamic, args, names) if dynamic else {}
    shapes = export_shapes(wanted, args) if wanted else None
    if shapes is not None and isinstance(module, FunctionModule):
        shapes = (shapes,)  # its forward(*args) has one parameter, the tuple of them
    args = widened(args, wanted)
    ep = normalize(export(module, args, kwargs, LoopRewriter(), shapes))
    imported = _Walker(ep, names, prefix, DimNames(wanted) if wanted else None).run(name)
    imported.tree = step[0].tree if step is not None else None
    return imported


def _numel(shape: tuple[int | None, ...]) -> int:
    return int(np.prod([d or 0 for d in shape]))



class _Walker(ControlFlow):
    """Walks the exported graph once, node by node, dispatching on node kind."""

    def __init__(self, ep: torch.export.ExportedProgram, names: list[str] | None = None,
                 prefix: str = "", dims: DimNames | None = None):
        self.ep = ep
        self.dims = dims
        """The user's names of torch's size symbols (None: every size is static)."""
        self.names = names
        self.prefix = prefix
        """Dropped from state names: the holder of a function's `params` tree."""
        self.specs = {s.arg.name: s for s in ep.graph_signature.input_specs
                      if hasattr(s.arg, "name")}
        self.env: dict[Any, Any] = {}
        self.tied: dict[int, SSAValue] = {}
        """Parameter of each state tensor (by identity): a tied weight is one parameter,
        named by its first name, its others aliases."""
        self.known: dict[SSAValue, np.ndarray] = {}
        self.read_sizes: dict[Any, int | float] = {}
        """Values of torch's unbacked symbols (a number `.item()` reads out of a tensor)
        whose tensor is fixed at import time: sizes made of them are static."""
        self.locations: dict[str, Any] = {}
        self.enclosing: Any = location(None, None)
        """Location of the control-flow op whose body is being walked: that of the
        body's nodes torch recorded without a frame of their own."""

    def run(self, name: str) -> Module:
        nodes = list(self.ep.graph.nodes)
        places = [n for n in nodes if n.op == "placeholder"]
        users = [n for n in places if self._kind(n) == InputKind.USER_INPUT]
        tensors = [n for n in users if isinstance(n.meta.get("val"), torch.Tensor)]
        names = dict(zip(users, self.names)) if self.names and \
            len(self.names) == len(users) else {}
        named = [self.dims.bind_input(users.index(n), n.meta["val"]) if self.dims else ()
                 for n in tensors]
        b = self.b = ImportBuilder("torch", [self._spec(n, d) for n, d in zip(tensors, named)],
                                   [names.get(n, n.name) for n in tensors], named)
        self.env.update(zip(tensors, b.inputs))
        for n in users:
            self.env.setdefault(n, n.meta.get("val"))
        for n in places:  # an effect token orders effects; a pure program holds none
            if n not in self.env:
                self.env[n] = None if self._kind(n) == InputKind.TOKEN else self._state(n)
        out = next(n for n in nodes if n.op == "output")
        self._walk(self.ep.graph_module, [a for a, _ in self._results(out)])
        outputs, updates = self._outputs(out)
        return b.finish(outputs, not self.ep.call_spec.out_spec.is_leaf(), name, updates)

    def _walk(self, graph: torch.fx.GraphModule, roots: list[Any]) -> None:
        """Import the nodes of `graph` that `roots` depend on, in graph order."""
        live: set[Any] = set()
        todo = list(roots)
        while todo:
            node = todo.pop()
            if node not in live:
                live.add(node)
                todo.extend(node.all_input_nodes)
        for node in graph.graph.nodes:
            if node not in live:
                continue
            if node.op == "call_function":
                self.b.at(self._location(node))
                self.env[node] = self._call(node)
            elif node.op == "get_attr":  # the body of a higher-order op (torch.cond)
                self.env[node] = getattr(graph, node.target)

    def _results(self, out: Any) -> list[tuple[Any, Any]]:
        """(node, spec) of the user's outputs and of the buffer updates (running
        statistics of a training-mode BatchNorm), which become `{ivy.update}` results."""
        kept = (OutputKind.USER_OUTPUT, OutputKind.BUFFER_MUTATION)
        return [(a, s) for a, s in zip(out.args[0], self.ep.graph_signature.output_specs)
                if s.kind in kept and isinstance(a, torch.fx.Node)]

    def _kind(self, node: Any) -> Any:
        spec = self.specs.get(node.name)
        return spec.kind if spec is not None else InputKind.USER_INPUT

    def _spec(self, node: Any, dims: tuple[str | None, ...]) -> Any:
        try:
            spec = meta_spec(node.meta["val"])
        except Unmapped as exc:
            raise TraceError(f"input '{node.name}': {exc.detail}") from None
        if spec is None or any(d is None and not (dims and dims[i])
                               for i, d in enumerate(spec.shape)):
            raise TraceError(f"input '{node.name}' has no static tensor type")
        return spec

    def _state(self, node: Any) -> Any:
        """A parameter, buffer or lifted constant placeholder."""
        spec = self.specs[node.name]
        value = self.ep.state_dict.get(spec.target)
        if value is None:
            value = self.ep.constants.get(spec.target)
        if not isinstance(value, torch.Tensor):
            raise TraceError(f"cannot import '{spec.target}' ({spec.kind.name.lower()})")
        name = spec.target.removeprefix(self.prefix)
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            tied = self.tied.get(id(value))
            if tied is not None:  # one tensor under two names (GPT-2's lm_head/wte)
                self.b.graph.alias(tied, name)
                return tied
            self.tied[id(value)] = self.b.param(name, to_numpy(value),
                                                trainable=spec.kind == InputKind.PARAMETER)
            return self.tied[id(value)]
        array = to_numpy(value)
        const = self.b.constant(array)
        self.known[const] = array
        return const

    def _location(self, node: Any) -> Any:
        trace = node.meta.get("stack_trace") or ""
        if trace not in self.locations:
            # the innermost user frame; inside a library module (nn.Linear called by
            # export itself) the innermost torch frame, relative to torch's parent dir;
            # generated code (`<eval_with_key>`: a control-flow body) is no place
            frames = [(f, int(n)) for f, n in FRAME.findall(trace) if not f.startswith("<")]
            users = [f for f in frames if user_frame(f[0])]
            if users:
                self.locations[trace] = location(short_path(users[-1][0]), users[-1][1])
            elif frames:
                file = os.path.relpath(frames[-1][0], os.path.dirname(TORCH_DIR[:-1]))
                self.locations[trace] = location(file, frames[-1][1])
            else:
                self.locations[trace] = None
        return self.locations[trace] or self.enclosing

    def _where(self) -> str:
        return location_str(self.b.graph.location)

    def _value(self, arg: Any) -> Any:
        if isinstance(arg, torch.fx.Node):
            return self.env[arg]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._value(a) for a in arg)
        return arg

    def _call(self, node: Any) -> Any:
        target = node.target
        args = self._value(node.args)
        kwargs = {k: self._value(v) for k, v in node.kwargs.items()}
        if target is operator.getitem:
            return self._getitem(node, args)
        if isinstance(target, torch._ops.HigherOrderOperator):
            return self.control(node, args)
        if not isinstance(target, torch._ops.OpOverload):
            return self._python(node, target, args, kwargs)
        name, overload = packet(target)
        if name in SKIPPED:
            return None
        val = self._resolved(node.meta.get("val"))
        if self.dims is not None and isinstance(val, torch.SymInt):
            return self.dims.size(val)  # shape arithmetic: a size expression
        rule = lookup(target)
        if rule is None and isinstance(val, torch.Tensor) and \
                not all(isinstance(d, int) for d in val.shape):
            raise TraceError(f"data-dependent shape at {self._where()}: aten.{overload} gives "
                             "a result whose size depends on tensor values, which a static "
                             "graph cannot hold")
        try:
            if rule is None:
                raise Unmapped()
            result = rule(Ctx(self.b, val, self.known, node, self.dims), *args, **kwargs)
            result = self._typed(overload, result, val)
        except Unmapped as exc:
            label = f"aten.{overload}" + (f" ({exc.detail})" if exc.detail else "")
            return self._placeholders(label, val)
        except DataDependent as exc:
            raise TraceError(f"data-dependent shape at {self._where()}: {exc}") from None
        except (InferError, AttrError) as exc:
            raise TraceError(f"cannot import aten.{overload} at {self._where()}: {exc}") \
                from None
        if isinstance(result, SSAValue) and result not in self.known:
            self._evaluate(node, result)
        if isinstance(result, TensorScalar) and result.value in self.known and \
                isinstance(val, (torch.SymInt, torch.SymFloat)) and val.node.expr.is_Symbol:
            self.read_sizes[val.node.expr] = self.known[result.value].item()
        return result

    def _resolved(self, val: Any) -> Any:
        """torch's meta value with the sizes made of `read_sizes` symbols as numbers (a
        meta tensor of that shape), so rules read static sizes where the walker knows
        them; anything else as it is."""
        if not self.read_sizes or not isinstance(val, torch.Tensor) or \
                all(isinstance(d, int) for d in val.shape):
            return val
        sizes = [d if isinstance(d, int) else d.node.expr.xreplace(self.read_sizes)
                 for d in val.shape]
        if not all(isinstance(d, int) or d.is_Integer for d in sizes):
            return val
        return torch.empty([int(d) for d in sizes], dtype=val.dtype, device="meta")

    def _evaluate(self, node: Any, result: SSAValue) -> None:
        """Record the value of an op whose tensor inputs are all import-time constants
        (a mask built from a constant), so indexing by it stays static. The IR keeps
        the op; only the importer's knowledge grows."""
        inputs = node.all_input_nodes
        if (not inputs and packet(node.target)[0] not in _RANGES) or \
                any(self.env.get(a) not in self.known for a in inputs) or \
                _numel(spec_of(result).shape) > KNOWN_LIMIT:
            return

        def real(arg: Any) -> Any:
            if isinstance(arg, torch.fx.Node):
                return torch.as_tensor(self.known[self.env[arg]])
            return arg

        args = torch.fx.node.map_aggregate(node.args, real)
        kwargs = torch.fx.node.map_aggregate(node.kwargs, real)
        value = node.target(*args, **kwargs)
        if isinstance(value, torch.Tensor):
            self.known[result] = to_numpy(value)

    def _placeholders(self, label: str, val: Any) -> Any:
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        specs = []
        for v in vals:
            try:
                spec = meta_spec(v)
            except Unmapped:
                spec = None
            if spec is not None:
                spec = spec.with_(shape=tuple(1 if d is None else d for d in spec.shape))
            specs.append(spec)
        outs = self.b.unsupported(label, [s for s in specs if s is not None])
        it = iter(outs)
        filled = [next(it) if s is not None else None for s in specs]
        return filled if isinstance(val, (list, tuple)) else filled[0]

    def _typed(self, overload: str, result: Any, val: Any) -> Any:
        """Cast results to the dtype torch recorded and check the shapes agree. A dim the
        IR leaves dynamic where torch knows its size, under the ranges it assumes for the
        dynamic dims (`x[:, :1]` of a length that is at least 1), is fixed by a reshape
        to torch's sizes, which fails where a run breaks that assumption."""
        if isinstance(val, (list, tuple)):
            return [self._typed(overload, r, v) if isinstance(r, SSAValue) else r
                    for r, v in zip(result, val)]
        spec = meta_spec(val)
        if spec is None:
            return result
        if not isinstance(result, SSAValue):
            raise TraceError(f"aten.{overload} at {self._where()}: expected a tensor result")
        got = spec_of(result).shape
        if self.dims is not None and len(got) == len(spec.shape) and any(
                g is None and w is not None for g, w in zip(got, spec.shape)):
            result = self.b.emit("reshape", [result], shape=list(self.dims.sizes(val)))
            got = spec_of(result).shape
        if len(got) != len(spec.shape) or any(w is not None and g != w
                                               for g, w in zip(got, spec.shape)):
            raise TraceError(f"importer bug: aten.{overload} at {self._where()} gave shape "
                             f"{got}, torch computed {spec.shape}")
        return self.b.cast(result, spec.dtype)

    def _getitem(self, node: Any, args: Any) -> Any:
        seq, index = args
        value = seq[index]
        if value is None:
            source = node.args[0]
            label = f"aten.{packet(source.target)[1]}" if isinstance(
                source.target, torch._ops.OpOverload) else str(source.target)
            return self._placeholders(f"{label} (result {index})", node.meta.get("val"))
        return value

    def _python(self, node: Any, target: Any, args: Any, kwargs: Any) -> Any:
        """Python-level nodes: grad-mode switches and arithmetic on static sizes."""
        if target is torch._C._set_grad_enabled:
            return None
        if self.dims is not None and isinstance(node.meta.get("val"), torch.SymInt):
            return self.dims.size(node.meta["val"])
        args, kwargs = self._numbers(args), {k: self._numbers(v) for k, v in kwargs.items()}
        flat = list(args) + list(kwargs.values())
        if all(isinstance(a, (int, float, bool)) for a in flat) and callable(target) and \
                getattr(target, "__module__", None) in ("_operator", "operator", "math"):
            return target(*args, **kwargs)
        return self._placeholders(getattr(target, "__name__", str(target)), node.meta.get("val"))

    def _numbers(self, args: Any) -> Any:
        """`args` with each number read out of a tensor whose value is fixed at import
        time as that number (torch.export's size arithmetic on such a read)."""
        if isinstance(args, (list, tuple)):
            return type(args)(self._numbers(a) for a in args)
        if isinstance(args, TensorScalar) and args.value in self.known:
            return self.known[args.value].item()
        return args

    def _outputs(self, out: Any) -> tuple[list[SSAValue], list[tuple[SSAValue, str]]]:
        values, updates = [], []
        for i, (arg, spec) in enumerate(zip(out.args[0], self.ep.graph_signature.output_specs)):
            if spec.kind == OutputKind.BUFFER_MUTATION:
                updates.append((self._value(arg), spec.target.removeprefix(self.prefix)))
                continue
            if spec.kind != OutputKind.USER_OUTPUT:
                continue
            value = self._value(arg)
            if not isinstance(value, SSAValue):
                raise TraceError(f"output {i} of the program is {type(value).__name__}, not "
                                 "a tensor")
            values.append(value)
        return values, updates
