"""The ONNX target: ivy IR to an ONNX `ModelProto`, run by onnxruntime.

Unlike the other targets it builds a model, not Python source: one walker (`Exporter`)
visits the IR in order and looks each op up in `RULES`, the table merged from the family
files (`onnx_math.py` with `onnx_precise.py`, `onnx_shape.py`, `onnx_nn.py` with
`onnx_windows.py`, `onnx_recurrent.py`); region ops export their bodies
as subgraphs through the same walker. Parameters become initializers under their dotted
source names; inputs and outputs are named from the IR's name hints. Ops ONNX cannot
express exactly are refused up front, all at once, each with its location (`REFUSED`,
`refusal`), never exported approximately. `ivy_ir.compile(..., target="onnx")` runs the
model in an onnxruntime CPU session (NumPy in and out) and keeps it as `c.model`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper
from xdsl.ir import Block, Region

from ivy_ir.core.decompose import DECOMPOSITIONS, decompose_ops
from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError
from ivy_ir.dialect import COMPOSITE, SPECS, FusedOp, IvyOp, TensorSpec
from ivy_ir.dialect.ops import location_text
from ivy_ir.dialect.types import COMPLEX

from .onnx_graph import GraphBuilder, Names, OnnxContext, Size, value_info
from .onnx_linalg import LINALG_RULES
from .onnx_math import ELEMENTWISE_RULES, REDUCTION_RULES, OnnxRule
from .onnx_nn import CONTROL_RULES, FUSED, NN_RULES
from .onnx_recurrent import RECURRENT
from .onnx_shape import SHAPE_RULES
from .runtime import Runtime
from .target import Target

DEFAULT_OPSET = 26
"""The newest opset both the installed onnx (28) and onnxruntime 1.31 (26) run."""
OLDEST_OPSET = 18
"""Reductions take their axes as inputs and the bitwise operators exist from 18 on."""

REFUSED: dict[str, str] = {
    "cholesky": "ONNX has no Cholesky factorization",
    "inv": "ONNX has no matrix inverse",
    "matrix_exp": "ONNX has no matrix exponential",
    "solve": "ONNX has no linear solver",
    "qr": "ONNX has no QR factorization",
    "svd": "ONNX has no singular value decomposition",
    "eigh": "ONNX has no eigendecomposition",
    "lu": "ONNX has no LU factorization",
    "slogdet": "ONNX has no LU factorization (its Det has no sign and log form)",
    "random_uniform": "ONNX's random operators cannot reproduce the key's stream",
    "random_normal": "ONNX's random operators cannot reproduce the key's stream",
    "nextafter": "ONNX has no operator stepping a float by one unit in the last place",
    **dict.fromkeys(("lgamma", "digamma", "bessel_i0e"),
                    "ONNX has no gamma, digamma or Bessel function operator"),
    **dict.fromkeys(("complex", "fftn", "rfft", "irfft"),
                    "onnxruntime has no complex tensors (ONNX's DFT holds a complex signal as "
                    "real (re, im) pairs, a form the IR's complex values are not exported in)"),
    **dict.fromkeys((n for n, s in SPECS.items() if any(a.dtype_class == "text"
                                                        for a in s.operands)),
                    "the exporter writes no STRING tensors yet (ONNX's own text operators "
                    "would take them)"),
}
"""Ops with no exact ONNX form at all (the text ops: none exported yet)."""

NO_FLOAT64: dict[str, str] = {"det": "Det"}
"""Ops onnxruntime has no float64 kernel for, and no exact rewrite here (float64 `conv`,
`conv_transpose` and `avg_pool` are rewritten: `onnx_windows.py`)."""

STATIC: frozenset[str] = frozenset({
    "roll", "diagonal", "take_along_axis", "adaptive_avg_pool",
    "interpolate", "repeat"})
"""Ops whose rules write the operands' static sizes into the model (and, in float64,
`conv` and `avg_pool`, rewritten from slices)."""
SPATIAL = frozenset({"adaptive_avg_pool", "interpolate"})
"""Of those, the ones that write only the spatial sizes: batch and channels may vary."""


def _refuse(reason: str) -> OnnxRule:
    def rule(c: OnnxContext) -> str:
        raise LoweringError(f"ivy.{c.op.SPEC.name}: {reason}")
    return rule


REAL_PARTS: dict[str, OnnxRule] = {
    # of a real x: complex operands are refused (`refusal`)
    "real": lambda c: c.node("Identity", [c.x]),
    "conj": lambda c: c.node("Identity", [c.x]),
    "imag": lambda c: c.node("Expand", [c.b.const(0.0, c.out.dtype), c.node("Shape", [c.x])]),
}

FUSED_OPS = {**FUSED, **RECURRENT}
"""Composite op -> its fused ONNX operator (decomposed where that does not fit)."""

RULES: dict[str, OnnxRule] = {
    **ELEMENTWISE_RULES, **REAL_PARTS, **REDUCTION_RULES, **SHAPE_RULES, **LINALG_RULES,
    **NN_RULES,
    **CONTROL_RULES,
    **{name: fused.rule for name, fused in FUSED_OPS.items()},
    **{name: _refuse(reason) for name, reason in REFUSED.items()},
}


def refusal(op: IvyOp) -> str | None:
    """Why `op` cannot be exported exactly, or None."""
    name = op.SPEC.name
    if name in REFUSED:
        return REFUSED[name]
    specs = [TensorSpec.from_xdsl(v.type) for v in (*op.operands, *op.results)]
    dtypes = {s.dtype for s in specs}
    if dtypes & COMPLEX:
        return "onnxruntime has no complex arithmetic"
    if name in NO_FLOAT64 and "float64" in dtypes:
        return f"onnxruntime has no float64 {NO_FLOAT64[name]} kernel"
    if name == "matrix_norm" and op.attr_values()["ord"] in ("nuc", "2", "-2"):
        return "the nuclear and spectral norms need an SVD, which ONNX lacks"
    if name == "max_pool" and dtypes & {"int64", "uint64"}:
        return "onnxruntime pools 64-bit integers only through float64, inexact past 2**53"
    static = name in STATIC or (name in ("conv", "conv_transpose", "avg_pool")
                                and "float64" in dtypes)
    if name in SPATIAL:
        x = specs[0]
        specs = [x.with_(shape=x.shape[2:] if op.attr_values()["layout"] == "channels_first"
                         else x.shape[1:-1])]
    if static and any(None in s.shape for s in specs):
        return "the export needs static sizes here, and a size is dynamic"
    return None


def check_exportable(module: Module) -> None:
    problems = []
    for op in module.entry.walk():
        reason = refusal(op) if isinstance(op, IvyOp) else None
        if reason:
            where = location_text(op.location) or "an unknown location"
            problems.append(f"  ivy.{op.SPEC.name} at {where}: {reason}")
    if problems:
        raise LoweringError("the onnx target cannot export these ops exactly:\n"
                            + "\n".join(problems))


def _fits(op: IvyOp, opset: int) -> bool:
    fused = FUSED_OPS.get(op.SPEC.name)
    return fused is not None and fused.opset <= opset and fused.fits(op)


class Exporter:
    """The walker: one model per module, names shared by all its graphs."""

    def __init__(self, module: Module, values: dict[str, np.ndarray], opset: int):
        self.module, self.values, self.opset = module, values, opset
        self.names = Names()

    def model(self) -> onnx.ModelProto:
        b = GraphBuilder(self.names, self.opset)
        block = self.module.entry.body.block
        inputs, names = [], []
        for i, (arg, info) in enumerate(zip(block.args, self.module.args())):
            if info.param is not None:
                names.append(b.initializer(self.names.reserve(info.param),
                                           self.values[info.param]))
                continue
            names.append(self.names.fresh(arg.name_hint or f"input_{i}"))
            inputs.append(value_info(names[-1], info.spec, info.dims))
        for dim, (i, axis) in self.module.dims.items():  # symbolic sizes read these
            b.sizes[dim] = Size(b, b.node("Shape", [names[i]], start=axis, end=axis + 1,
                                          hint=dim))
        # the outputs take their hints first: inner values yield the plain names to them
        out_names = [self.names.fresh(v.name_hint or f"output_{i}")
                     for i, v in enumerate(block.last_op.operands)]
        results = self.block(block, b, names)
        outputs = []
        for value, name, spec in zip(results, out_names, self.module.outputs, strict=True):
            b.nodes.append(helper.make_node("Identity", [value], [name],
                                            name=self.names.fresh("output_node")))
            outputs.append(value_info(name, spec))
        graph = b.graph("main", inputs, outputs)
        opsets = [helper.make_opsetid("", self.opset)]
        return helper.make_model(graph, opset_imports=opsets, producer_name="ivy_ir",
                                 ir_version=helper.find_min_ir_version_for(opsets))

    def region(self, region: Region, b: GraphBuilder, args: list[str]) -> list[str]:
        """Emit a region's one block into `b`, its arguments bound to `args`; the
        yielded names."""
        return self.block(region.block, b, args)

    def block(self, block: Block, b: GraphBuilder, args: list[str]) -> list[str]:
        env = dict(zip(block.args, args))
        for op in block.ops:
            if isinstance(op, IvyOp):
                outs = self._op(op, b, env)
                env.update(zip(op.results, outs))
            elif isinstance(op, FusedOp):
                env.update(zip(op.results, self.block(op.block, b, [env[v] for v in op.inputs])))
            else:  # func.return, ivy.yield
                return [env[v] for v in op.operands]
        raise LoweringError("an exported block ends without a return or yield")

    def _op(self, op: IvyOp, b: GraphBuilder, env: dict[Any, str]) -> list[str]:
        spec = op.SPEC
        args: dict[str, Any] = {}
        in_types: dict[str, Any] = {}
        for a, g in zip(spec.operands, op.operand_groups(), strict=True):
            if isinstance(g, (list, tuple)):
                args[a.name] = [env[v] for v in g]
                in_types[a.name] = [TensorSpec.from_xdsl(v.type) for v in g]
            else:
                args[a.name] = None if g is None else env[g]
                in_types[a.name] = None if g is None else TensorSpec.from_xdsl(g.type)
        ctx = OnnxContext(op, b, args, op.attr_values(), in_types,
                          [TensorSpec.from_xdsl(r.type) for r in op.results], self.region)
        out = RULES[spec.name](ctx)
        outs = [out] if isinstance(out, str) else list(out)
        return [self._rename(b, name, r.name_hint) for r, name in zip(op.results, outs)]

    def _rename(self, b: GraphBuilder, name: str, hint: str | None) -> str:
        """Give a result its IR name hint when the rule's last node made it (no node can
        have read it yet); the result's name."""
        node = b.nodes[-1] if b.nodes else None
        if hint is None or node is None or name not in node.output:
            return name
        new = self.names.fresh(hint)
        node.output[list(node.output).index(name)] = new
        return new


def export(module: Module, values: dict[str, np.ndarray] | None = None,
           opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """The module (decomposed where the target lacks a rule) as a checked ONNX model."""
    if not OLDEST_OPSET <= opset <= DEFAULT_OPSET:
        raise ValueError(f"the onnx target exports opsets {OLDEST_OPSET} to {DEFAULT_OPSET} "
                         f"(onnxruntime {ort.__version__} runs up to {DEFAULT_OPSET}; the "
                         f"export needs {OLDEST_OPSET} for its reductions and bitwise "
                         f"operators); got opset={opset}")
    work = module.clone()
    decompose_ops(work.op, {n for n in DECOMPOSITIONS if n not in RULES})
    # (a refused composite stays itself, so that the refusal names what the user wrote)
    decompose_ops(work.op, COMPOSITE, only=lambda op: not _fits(op, opset)
                  and op.SPEC.name not in REFUSED)
    check_exportable(work)
    model = Exporter(work, dict(module.params if values is None else values), opset).model()
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        raise LoweringError(f"the exported ONNX model does not check: {exc}") from None
    return model


def session(model: onnx.ModelProto, empty: bool = False) -> ort.InferenceSession:
    """An onnxruntime CPU session. `empty`: the model holds zero-size tensors, whose
    shapes onnxruntime's graph fusions (MatMul + Add into Gemm) infer wrongly, so they
    stay off. Its MatMul + scale fusion always stays off: its kernel rounds a float64
    scale to float32."""
    opts = ort.SessionOptions()
    if empty:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        return ort.InferenceSession(model.SerializeToString(), opts,
                                    providers=["CPUExecutionProvider"],
                                    disabled_optimizers=["MatMulScaleFusion"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise LoweringError(f"onnxruntime cannot run the exported model: {exc}") from None


def with_params(model: onnx.ModelProto, params: dict[str, Any]) -> onnx.ModelProto:
    """A copy of `model` whose initializers hold `params` (onnxruntime's own initializer
    override misses the ones its constant folding has already consumed)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for init in copy.graph.initializer:
        if init.name in params:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(init.data_type)
            init.CopyFrom(onnx.numpy_helper.from_array(
                np.asarray(params[init.name], dtype=dtype), init.name))
    return copy


def runner(model: onnx.ModelProto, module: Module, params: dict[str, np.ndarray]
           ) -> Callable[..., Any]:
    """`run(params, *inputs)`: the model's session; other parameter arrays than the
    exported ones run a copy of the model holding them (kept while unchanged)."""
    empty = _has_empty(module)
    sess = session(model, empty=empty)
    names = [i.name for i in model.graph.input]
    single = len(model.graph.output) == 1 and not module.returns_sequence
    other: list[Any] = [None, None]

    def run(given: dict[str, Any], *inputs: Any) -> Any:
        s = sess
        if any(given.get(k) is not v for k, v in params.items()):
            key = [id(given.get(k)) for k in params]
            if other[0] != key:
                other[:] = [key, session(with_params(model, given), empty)]
            s = other[1]
        outs = s.run(None, dict(zip(names, inputs)))
        return outs[0] if single else tuple(outs)
    return run


SHOWN = 16
"""Tensors of up to this many elements are printed in `c.source`; larger ones are shown
by type only (a VGG's weights would make 700 MB of text)."""


def text(model: onnx.ModelProto) -> str:
    """`onnx.printer.to_text` of the model, its large tensors elided."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    _elide(copy.graph)
    return onnx.printer.to_text(copy)


def _elide(graph: onnx.GraphProto) -> None:
    tensors = list(graph.initializer)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                tensors.append(attr.t)
            elif attr.type == onnx.AttributeProto.GRAPH:
                _elide(attr.g)
    for t in tensors:
        if int(np.prod(t.dims, dtype=np.int64)) > SHOWN:
            for data in ("raw_data", "float_data", "double_data", "int32_data", "int64_data",
                         "uint64_data"):
                t.ClearField(data)
            t.data_location = onnx.TensorProto.EXTERNAL
            entry = t.external_data.add()
            entry.key, entry.value = "location", "(not shown)"


def _has_empty(module: Module) -> bool:
    values = [*module.entry.body.block.args,
              *(r for op in module.entry.walk() for r in op.results)]
    return any(0 in TensorSpec.from_xdsl(v.type).shape for v in values
               if hasattr(v.type, "element_type"))


class OnnxRuntime(Runtime):
    """NumPy arrays in and out of an onnxruntime session; no autodiff."""

    name = "onnx"
    options = frozenset({"opset"})
    fast_types = (np.ndarray,)
    """onnxruntime takes arrays only: a NumPy scalar (same dtype) is converted first."""

    def save(self, model: Any, path: str | os.PathLike[str]) -> None:
        onnx.save_model(model, os.fspath(path))


RUNTIME = OnnxRuntime()


def build(work: Module, values: dict[str, np.ndarray], trainable: dict[str, bool],
          options: dict[str, Any]) -> tuple[str, Any, dict[str, np.ndarray], Any]:
    """A module as `(text, run, params, model)`: its model's text, the session running
    it, the parameters, and the `ModelProto`."""
    model = export(work, values, options.get("opset", DEFAULT_OPSET))
    params = RUNTIME.params(values, trainable)
    return text(model), runner(model, work, params), params, model


TARGET = Target(name="onnx", rules=dict(RULES), dtype=str, imports="", builds=build,
                refused=REFUSED, dtype_gaps={
                    **{op: frozenset({"float64"}) for op in NO_FLOAT64},
                    "max_pool": frozenset({"int64", "uint64"})})

__all__ = ["DEFAULT_OPSET", "RULES", "RUNTIME", "TARGET", "export", "refusal", "session"]
