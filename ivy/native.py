"""Each backend's functions, generated once from that target's lowering rules.

For every facade function (`catalogue.CATALOGUE`) a backend gets one small Python
function with the standard's signature whose body is a single native call, so calling
it costs the framework's call plus one frame. The body comes from, in order:

1. the backend's spelling of the function (`spellings.py`), where the standard asks for
   more than the IR op (a `dtype=` default, an `include_initial`) or has no op at all;
   or, for a complex function whose special values the target puts in
   (`ivy_ir.core.complex_cases`), the target's `complex_special` kernel around the
   framework's function, built once (jitted on JAX: its dtype test runs at trace time);
2. the target's lowering rule for the registry op, rendered with the function's
   parameter names in place of operands and attributes (`np.sum(x, axis=axis, ...)`),
   when it is a plain template that uses every parameter;
3. the same-named function of the backend's array namespace, for namespaces that follow
   the standard themselves (NumPy 2, `jax.numpy`);
4. the op compiled through the IR for each new argument signature (like `jax.jit`), for
   registry ops the above do not cover (rules that depend on types, composites).

Every body sits in a `try` (free unless it raises): on failure, a call that carries
`ivy_ir` tracers goes to the tracing function instead, so code traced while a backend
is set records ops; a spelling's rescue runs next where it has one (`rescue.Rescued`:
a check that only failing calls pay); any other failure is the framework's own error.
"""

from __future__ import annotations

import ast
import re
import string
import types
from collections.abc import Callable
from typing import Any

import lowerings
from ivy_ir.core.rules import Rule

from .catalogue import CATALOGUE, IGNORED_EXTRAS, FacadeFn
from .compiled_ops import OneOpCache
from .composites import COMPOSITES
from .rescue import Rescued
from .spellings import BACKENDS, Backend

_FORMATTER = string.Formatter()


def render_rule(fn: FacadeFn, rule: Rule | None, ns: str) -> str | None:
    """`rule` with `fn`'s parameter names as its fields, or None when it does not fit
    (a callable rule, a field no parameter gives, a parameter the rule would drop).
    A callable rule with a `plain` form (`rules.rounded_once`) renders that."""
    rule = getattr(rule, "plain", rule)
    if fn.spec is None or not isinstance(rule, str):
        return None
    registry = {a.name: a for a in fn.spec.attrs}
    for attr, param in fn.attrs:
        if fn.signature.parameters[param].default is None and registry[attr].default is not None:
            return None  # the rule assumes a value where the standard lets it be inferred
    fields: dict[str, str] = {"ns": ns}
    fields.update(zip((a.name for a in fn.spec.operands), fn.operands))
    for attr, param in fn.attrs:
        fields[attr] = _dtype_expr(param) if registry[attr].kind == "dtype" else param
    names = {p.name for p in fn.params}
    if "dtype" in names:
        fields["out_dtype"] = _dtype_expr("dtype")
    if "shape" in names:
        fields["out_shape"] = "shape"
    used = {f for _, f, _, _ in _FORMATTER.parse(rule) if f}
    if not used <= set(fields):
        return None
    text = rule.format(**fields)
    needed = {p.name for p in fn.params} - IGNORED_EXTRAS
    return text if all(_mentions(text, n) for n in needed) else None


def _dtype_expr(param: str) -> str:
    """The native dtype of a `dtype` argument; the usual None costs no call."""
    return f"(None if {param} is None else _dt({param}))"


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{name}\b", text) is not None


def _call_args(fn: FacadeFn) -> str:
    """How the body passes the parameters on: positional-only ones by position."""
    out = []
    for p in fn.params:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind is p.POSITIONAL_ONLY or p.name in fn.positional:
            out.append(p.name)
        else:
            out.append(f"{p.name}={p.name}")
    return ", ".join(out)


def _py_name(name: str) -> str:
    """The generated function's name: never one of the helper kernels the rules call."""
    return "_ivy_" + name.replace(".", "_")


def function_source(fn: FacadeFn, body: str | Rescued) -> str:
    """The function, and for a rescued body its rescue as a function of its own that
    `_retry` calls with the arguments by name: a closure over the parameters would make
    each a cell, which every call pays for (~70 ns on a ~3 us torch call)."""
    rescue = extra = ""
    if isinstance(body, Rescued):
        name = "_rescue" + _py_name(fn.name)
        extra = f"def {name}({', '.join(p.name for p in fn.params)}):\n" \
                f"    return {body.rescue}\n"
        body, rescue = body.body, f", {name}"
    return (f"def {_py_name(fn.name)}{_signature_text(fn)}:\n"
            f"    try:\n        return {body}\n"
            f"    except Exception as exc:\n"
            f"        return _retry({fn.name!r}, exc, {_packed(fn)}{rescue})\n{extra}")


def _packed(fn: FacadeFn) -> str:
    parts = [f"{p.name!r}: {p.name}" for p in fn.params]
    return "{" + ", ".join(parts) + "}"


def _signature_text(fn: FacadeFn) -> str:
    return str(fn.signature.replace(return_annotation=fn.signature.empty))


def body_of(fn: FacadeFn, backend: Backend, target: Any,
            namespace: Any) -> tuple[str | Rescued, str]:
    """The body of `fn` on `backend` and where it came from."""
    spelled = backend.spellings.get(fn.name)
    if spelled is not None:
        return spelled, "spelling"
    rule = target.rules.get(fn.spec.name) if fn.spec else None
    if hasattr(rule, "complex_special"):
        return f"{_kernel_name(fn)}({fn.operands[0]})", "complex kernel"
    rendered = render_rule(fn, rule, target.namespace or backend.ns)
    if rendered is not None and fn.name not in backend.skip_rules:
        return rendered, "rule"
    if backend.passthrough and _resolves(namespace, fn.name):
        return f"{backend.ns}.{fn.name}({_call_args(fn)})", "namespace"
    if fn.spec is not None or fn.name in COMPOSITES:
        return f"_via_ir({fn.name!r}, {_packed(fn)})", "ir"
    return f"_missing({fn.name!r})", "missing"


def _kernel_name(fn: FacadeFn) -> str:
    return "_special" + _py_name(fn.name)


def _resolves(namespace: Any, dotted: str) -> bool:
    obj = namespace
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return callable(obj)


def build(name: str, retry: Callable[..., Any]) -> types.SimpleNamespace:
    """The functions of backend `name` (imports that framework) keyed by facade name,
    plus `source` (the generated code) and `origin` (where each body came from)."""
    backend = BACKENDS[name]
    target = lowerings.get_target(name)
    env: dict[str, Any] = {}
    exec(target.imports + backend.imports, env)  # noqa: S102 (our own import lines)
    env.update(target.helpers)
    env.update(backend.helpers(env))
    env.update({k: backend.compile_kernel(f) for k, f in backend.compiled_kernels.items()})
    native_ns = env[backend.ns.split(".")[0]]
    for part in backend.ns.split(".")[1:]:
        native_ns = getattr(native_ns, part)
    cache = OneOpCache(name)
    funcs: dict[str, Callable[..., Any]] = {}
    env.update(_retry=lambda fn_name, exc, bound, rescue=None: retry(fn_name, exc, bound,
                                                                     funcs, rescue),
               _via_ir=cache.call, _missing=_missing(name))
    origin, bodies = {}, {}
    for fn in CATALOGUE.values():
        bodies[fn.name], origin[fn.name] = body_of(fn, backend, target, native_ns)
        if origin[fn.name] == "complex kernel":
            kernel = lowerings.complex_kernel(name, fn.spec.name)
            env[_kernel_name(fn)] = backend.compile_kernel(kernel)
    source = "\n".join(function_source(CATALOGUE[n], b) for n, b in bodies.items())
    code = _Prebound(env).visit(ast.parse(source))
    exec(compile(code, f"<ivy {name} backend>", "exec"), env)  # noqa: S102
    funcs.update({fn.name: env[_py_name(fn.name)] for fn in CATALOGUE.values()})
    for fn_name, f in funcs.items():
        f.__name__ = f.__qualname__ = fn_name.rpartition(".")[2]
        f.__module__ = f"ivy.{name}"
        f.__doc__ = CATALOGUE[fn_name].doc
    eager = {n: _callee(CATALOGUE[n], bodies[n], env) or f for n, f in funcs.items()}
    return types.SimpleNamespace(functions=funcs, eager=eager, source=source, origin=origin,
                                 env=env, backend=backend)


def _callee(fn: FacadeFn, body: str | Rescued, env: dict[str, Any]) -> Callable[..., Any] | None:
    """The callable `fn`'s body hands its arguments to unchanged, if it does: calling it
    directly is the same call minus our frame, for arguments known to hold no tracer.
    Only functions whose parameters are all positional-only qualify (else the callee
    could read a positional argument as a different parameter), and no rescued one."""
    if (not isinstance(body, str) or not fn.params
            or any(p.kind is not p.POSITIONAL_ONLY for p in fn.params)):
        return None
    args = re.escape(", ".join(p.name for p in fn.params))
    found = re.fullmatch(rf"([A-Za-z_][\w.]*)\({args}\)", body)
    if found is None:
        return None
    head, *rest = found.group(1).split(".")
    obj = env.get(head)
    for part in rest:
        obj = getattr(obj, part, None)
    return obj if callable(obj) else None


class _Prebound(ast.NodeTransformer):
    """Replaces each `module.function` chain (`np.abs`, `tf.math.add`) with a name bound
    to the function itself: the same call without the attribute lookups (~80 ns on NumPy's
    module, more on TensorFlow's lazily loaded ones), as binding at build time does.
    `source` keeps the dotted spelling people read."""

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:  # noqa: N802 (ast API)
        parts: list[str] = []
        inner: ast.AST = node
        while isinstance(inner, ast.Attribute):
            parts.append(inner.attr)
            inner = inner.value
        if not (isinstance(inner, ast.Name) and isinstance(self.env.get(inner.id),
                                                           types.ModuleType)):
            return self.generic_visit(node)
        obj: Any = self.env[inner.id]
        for part in reversed(parts):
            if not isinstance(obj, types.ModuleType):
                return self.generic_visit(node)  # an object's attribute may change
            obj = getattr(obj, part, None)
        if not callable(obj) or isinstance(obj, types.ModuleType):
            return self.generic_visit(node)  # values (a config flag) are read per call
        name = "_" + "_".join([inner.id, *reversed(parts)])
        self.env.setdefault(name, obj)
        return ast.copy_location(ast.Name(id=name, ctx=node.ctx), node)


def _missing(backend: str) -> Callable[[str], Any]:
    def missing(name: str) -> Any:
        raise NotImplementedError(f"ivy.{name} is not available on the {backend} backend yet")
    return missing
