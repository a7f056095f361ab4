"""Lowerings: ivy IR to target-native Python source, one table per target."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from ivy_ir.core.decompose import DECOMPOSITIONS, decompose_ops
from ivy_ir.core.errors import IRError
from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError, UnsupportedDtypeError
from ivy_ir.dialect import IvyOp, TensorSpec
from ivy_ir.dialect.ops import location_text
from ivy_ir.dialect.types import DTYPES, WIDE, is_text
from ivy_ir.passes.channels_last import channels_last
from ivy_ir.passes.fuse_elementwise import fuse_elementwise

from . import hoist, staged
from .emitter import emit_source
from .runtime import Runtime, host_array
from .target import Target

TARGET_MODULES = {"numpy": "lowerings.numpy", "jax": "lowerings.jax",
                  "torch": "lowerings.torch", "tensorflow": "lowerings.tensorflow",
                  "onnx": "lowerings.onnx"}
TARGETS = tuple(TARGET_MODULES)


@dataclass(frozen=True)
class Lowered:
    """A module lowered to one target: the generated source, its function (`raw`), the
    framework's wrapping of it (`fn`), and the parameters as the target's objects."""

    target: str
    source: str
    raw: Callable[..., Any]
    fn: Callable[..., Any]
    params: dict[str, Any]
    runtime: Runtime
    call: Callable[..., Any] | None = None
    """What a call of the compiled program runs when it differs from `fn`: `fn` keeping
    the parameter work's results while the parameters are unchanged (`hoist.py`)."""
    model: Any = None
    """The target's own program object when it builds one (the ONNX `ModelProto`)."""


def get_target(name: str) -> Target:
    """The rule table of a target (imports that target's framework)."""
    return _target_module(name).TARGET


@functools.cache
def complex_kernel(target: str, op: str) -> Callable[[Any], Any] | None:
    """`op` for eager callers (the `ivy` facade) on a target whose rule puts in complex
    special values (`ivy_ir.core.complex_cases`): its `complex_special` kernel bound to
    the framework's functions and the op's table, which calls the op's own rule for
    real arguments; None where the target keeps its framework's function."""
    tgt = get_target(target)
    rule = tgt.rules.get(op)
    special = getattr(rule, "complex_special", None)
    if special is None:
        return None
    native, table = special
    env: dict[str, Any] = dict(tgt.helpers)
    exec(tgt.imports, env)  # noqa: S102 (the target's own import lines and rules)
    own = rule.base.format(x="x", ns=tgt.namespace)
    own = eval(own[:-3] if own.endswith("(x)") and own.count("(") == 1  # noqa: S307
               else "lambda x: " + own, env)
    return functools.partial(tgt.helpers["complex_special"], tgt.helpers["complex_ops"](), own,
                             eval(native, env), *table.args())  # noqa: S307


def get_runtime(name: str) -> Runtime:
    return _target_module(name).RUNTIME


def _target_module(name: str) -> Any:
    if name not in TARGET_MODULES:
        raise ValueError(f"unknown target '{name}'; available: {', '.join(TARGETS)}")
    try:
        return importlib.import_module(TARGET_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.startswith("lowerings"):
            raise
        raise ImportError(f"the {name} target needs the '{exc.name}' package: "
                          f"pip install 'ivy-ir[{name}]'") from None


def lower(module: Module, target: str = "numpy", params: dict[str, Any] | None = None,
          **options: Any) -> Lowered:
    """Generate, load and wrap the target function for `module` (left unchanged).

    The module is verified first: the rules and the emitter rely on what the verifier
    guarantees (axes in range, one block, values defined before use), so IR built or
    edited by hand fails here with the verifier's message, not inside the emitter."""
    try:
        module.verify()
    except VerifyException as exc:
        raise IRError(f"cannot lower a module that does not verify: {exc}") from None
    tgt, runtime = get_target(target), get_runtime(target)
    runtime.check_options(options)
    tgt = tgt.with_options(options)
    work = module.clone()
    decompose_ops(work.op, {n for n in DECOMPOSITIONS if n not in tgt.rules})
    values = dict(module.params if params is None else params)
    trainable = {a.param: a.trainable for a in module.args() if a.param is not None}
    if tgt.builds is not None:
        check_supported(work, tgt.name)
        source, run, native, model = tgt.builds(work, values, trainable, options)
        return Lowered(target, source, run, run, native, runtime, model=model)
    if tgt.channels_last:  # before the split: the weights' permutes are parameter work
        channels_last(work.op)
    parts = hoist.split(work) if tgt.hoists else None
    if parts is None:
        source, raw, fn, native = _load(work, tgt, runtime, "main", options, values, trainable)
        return Lowered(target, source, raw, fn, native, runtime)
    source, raw, main, native = _load(parts.main, tgt, runtime, "main", options, values,
                                      trainable)
    prep_source, _, prepare, _ = _load(parts.prepare, tgt, runtime, "prepare", options, {}, {})
    fn, call = runtime.hoisted(prepare, main, parts.names, parts.reads)
    return Lowered(target, f"{source}\n\n# parameter work, kept while the parameters "
                   f"are unchanged (lowerings/hoist.py)\n{prep_source}", raw, fn, native,
                   runtime, call)


def _load(work: Module, tgt: Target, runtime: Runtime, fn_name: str, options: dict[str, Any],
          values: dict[str, Any], trainable: dict[str, bool]
          ) -> tuple[str, Callable[..., Any], Callable[..., Any], dict[str, Any]]:
    """Source, raw and wrapped function of one program, and its parameters made."""
    if tgt.fuses(options):
        fuse_elementwise(work.op)
    wide = _has_64_bits(work)
    data_shaped = any(op.SPEC.has("data_shaped") for op in work.entry.walk()
                      if isinstance(op, IvyOp))
    host = _host_types(work, tgt)
    cut = None
    if host or (data_shaped and runtime.stages_data_shaped):
        cut = staged.split(work, lambda op: "host" if _touches(op, host) else "eager"
                           if runtime.stages_data_shaped and staged.data_shaped(op)
                           else "compiled")
    if cut is not None:
        with runtime.scope(wide):
            native = runtime.arrange(_params(runtime, values, trainable), work)
        source, fn = _load_stages(work, *cut, tgt, runtime, fn_name, wide, options)
        return source, fn, fn, native
    check_supported(work, tgt.name, "\n(text runs on the host through NumPy only in programs "
                    "without named dynamic dims, buffer updates or random draws)" if host else "")
    source, namespace = emit_source(work, tgt, fn_name)
    code = compile(source, f"<ivy_ir {tgt.name}>", "exec")
    with runtime.scope(wide):
        exec(code, namespace)  # the source is ours: identifiers sanitised, strings repr'd
        native = runtime.arrange(_params(runtime, values, trainable), work)
    raw = namespace[fn_name]
    return source, raw, runtime.wrap(raw, wide=wide, data_shaped=data_shaped, **options,
                                     **runtime.program_options(work)), native


def _load_stages(work: Module, stages: list[staged.Stage], returned: tuple[int, ...],
                 tgt: Target, runtime: Runtime, fn_name: str, wide: bool,
                 options: dict[str, Any]) -> tuple[str, Callable[..., Any]]:
    """A program cut into stages (`staged.py`), each loaded and wrapped on its own (the
    data-shaped ones as such, the host ones by the NumPy lowering), and the function
    running them."""
    for stage in stages:
        check_supported(stage.module, "numpy" if stage.kind == "host" else tgt.name)
    parts, sources, imported = [], [], False
    for i, stage in enumerate(stages):
        name = f"{fn_name}_stage{i}"
        if stage.kind == "host":
            source, fn = _load_host(stage, runtime, name, wide)
        else:
            source, namespace = emit_source(stage.module, tgt, name)
            with runtime.scope(wide):
                exec(compile(source, f"<ivy_ir {tgt.name}>", "exec"), namespace)  # noqa: S102
            fn = _reading(stage, runtime.wrap(namespace[name], wide=wide,
                                              data_shaped=stage.kind == "eager", **options,
                                              **runtime.program_options(stage.module)))
        parts.append((stage, fn))
        shown = source.removeprefix(tgt.imports) if imported and stage.kind != "host" \
            else source  # the target's imports once
        imported = imported or stage.kind != "host"
        sources.append(f"# stage {i}, {STAGE_KINDS[stage.kind]} (lowerings/staged.py)\n{shown}")
    inputs = tuple(i for i, info in enumerate(work.args()) if info.param is None)
    single = len(returned) == 1 and not work.returns_sequence
    return "\n\n".join(sources), staged.run(parts, returned, inputs, single)


STAGE_KINDS = {"compiled": "compiled", "eager": "op by op: its sizes depend on the data",
               "host": "through NumPy: the framework holds no arrays of its values"}


def _load_host(stage: staged.Stage, runtime: Runtime, name: str, wide: bool
               ) -> tuple[str, Callable[..., Any]]:
    """A host stage: the NumPy lowering of its ops, reading the framework's arrays as
    NumPy ones and handing its numbers back as the framework's (its text as NumPy's)."""
    np_target, np_runtime = get_target("numpy"), get_runtime("numpy")
    source, namespace = emit_source(stage.module, np_target, name)
    with np_runtime.scope(wide):
        exec(compile(source, "<ivy_ir numpy>", "exec"), namespace)  # noqa: S102
    run = np_runtime.wrap(namespace[name], wide=wide, data_shaped=True)

    def fn(params: dict[str, Any], *inputs: Any) -> Any:
        outs = run({k: host_array(v) for k, v in params.items()}, *map(host_array, inputs))
        return [o if is_text(o.dtype) else runtime.to_native(o) for o in outs]
    return source, _reading(stage, fn)


def _reading(stage: staged.Stage, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` given only the parameters its stage reads (a jitted stage takes every leaf
    of the dict it is handed, and a text parameter is no JAX value)."""
    names = [a.param for a in stage.module.args() if a.param is not None]
    return lambda params, *inputs: fn({k: params[k] for k in names}, *inputs)


def _params(runtime: Runtime, values: dict[str, Any], trainable: dict[str, bool]
            ) -> dict[str, Any]:
    """The parameters as the framework's arrays, text ones (read only by host stages)
    kept as NumPy's."""
    text = {k: v for k, v in values.items() if isinstance(v, np.ndarray) and is_text(v.dtype)}
    return {**runtime.params({k: v for k, v in values.items() if k not in text}, trainable),
            **text}


def _host_types(module: Module, tgt: Target) -> frozenset[Any]:
    """The element types of `module`'s values that `tgt`'s framework has no arrays of."""
    if not tgt.host_dtypes:
        return frozenset()
    wanted = {DTYPES[d] for d in tgt.host_dtypes}
    return frozenset(t for v in _values(module)
                     if (t := getattr(v.type, "element_type", None)) in wanted)


def _touches(op: Operation, types: frozenset[Any]) -> bool:
    """Whether `op`, or an op nested in it, reads or makes a value of one of `types`."""
    return bool(types) and any(getattr(v.type, "element_type", None) in types
                               for o in op.walk() for v in (*o.operands, *o.results))


def _has_64_bits(module: Module) -> bool:
    """Whether a value of the program is 64-bit (JAX computes those only under x64)."""
    return any(TensorSpec.from_xdsl(v.type).dtype in WIDE for v in _values(module)
               if hasattr(v.type, "element_type"))


def _values(module: Module) -> list[Any]:
    """The entry's arguments and every op's results, nested ones included."""
    return [*module.entry.body.block.args, *(r for op in module.entry.walk() for r in op.results)]


def check_supported(module: Module, target: str, note: str = "") -> None:
    """Refuse, all at once, the ops whose dtypes the registry declares unsupported on
    `target` (`unsupported=target:dtype` in ops.spec); `note` ends the message."""
    problems = []
    for op in module.entry.walk():
        if not isinstance(op, IvyOp) or target not in op.SPEC.unsupported:
            continue
        dtypes = {TensorSpec.from_xdsl(v.type).dtype for v in (*op.operands, *op.results)}
        bad = sorted(dtypes & op.SPEC.unsupported[target])
        if bad:
            where = location_text(op.location) or "an unknown location"
            problems.append(f"  ivy.{op.SPEC.name} in {', '.join(bad)} at {where} "
                            f"(ops.spec line {op.SPEC.line})")
    if problems:
        raise UnsupportedDtypeError(f"the {target} target cannot run these ops in these "
                                    "dtypes:\n" + "\n".join(problems) + note)


__all__ = ["TARGETS", "LoweringError", "Lowered", "Target", "UnsupportedDtypeError",
           "check_supported", "complex_kernel", "get_runtime", "get_target", "lower"]
