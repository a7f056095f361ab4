"""Every facade function's public signature, and how it maps onto a registry op.

A facade function is either a function of the Array API standard (its signature is the
standard's, from `standard_signatures.py`) or a registry op the standard lacks (`relu`,
`conv`: arrays positional-only, then the spec line's attributes). Standard functions
with a registry op bind their leading array parameters to the op's operands in order
and their other parameters to its attributes by name, renamed where the standard and
the spec line differ (`OPS`). Parameters that the op lacks are `extras`: a backend
spells them natively, the tracer handles the few that change results (`dtype` of a
reduction) and ignores the rest (`device`, `copy`, `stable`).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Any

from ivy_ir.dialect import CONTROL, SPECS, OpSpec

from .standard_signatures import SIGNATURES

OPS: dict[str, tuple[str, dict[str, str]]] = {
    # standard function: (registry op, {standard parameter: registry attribute})
    "tile": ("tile", {"repetitions": "reps"}),
    "cumulative_sum": ("cumsum", {}),
    "cumulative_prod": ("cumprod", {}),
    "tensordot": ("tensordot", {}),
    **{f"linalg.{n}": (n, {}) for n in (
        "cholesky", "inv", "det", "slogdet", "solve", "qr", "svd", "eigh", "matrix_norm",
        "vector_norm", "diagonal", "matmul", "tensordot", "vecdot", "outer")},
}
"""Standard functions whose registry op or attribute names differ; the rest of the
standard functions with a registry op of their own name map one to one."""

NOT_THE_OP = frozenset({"tensordot", "linalg.tensordot", "cumulative_sum",
                        "cumulative_prod"})
"""Standard functions whose parameters do not map onto their op's attributes one to one
(`tensordot(axes=2)` vs `axes_x`/`axes_y`, `include_initial`): their tracing form is a
composite (`composites.py`), their eager form the backend's own."""

PAPER_SIGNATURES = {"to_numpy": "x, /", "to_native": "x, /",
                    "scatter_nd": "indices, updates, /, shape"}
"""Functions of the 2021 API with no counterpart in the standard, or whose 2021 form
differs from the registry op's (`scatter_nd` into zeros of `shape`; the op itself,
scattering into an array, is `ivy.ops.scatter_nd`)."""

NOT_GENERATED = {
    "constant": "no function: an array met while tracing becomes one",
    "stop_gradient": "ivy.stop_gradient: each backend's own autodiff (ivy/gradients.py), "
                     "which records the op on tracers",
    **{op: f"ivy.{op}: the facade's functional control flow (ivy/control_flow.py)"
       for op in CONTROL},
}
"""Registry ops with no generated facade function, and what stands for each: the
control-flow ops take functions as well as arrays, which no generated body can pass."""

IGNORED_EXTRAS = frozenset({"device", "copy", "stable"})
"""Standard parameters that never change a result's values."""


@dataclass(frozen=True)
class FacadeFn:
    """One facade function: its public signature and its registry op (if any)."""

    name: str
    signature: inspect.Signature
    spec: OpSpec | None
    operands: tuple[str, ...] = ()
    """The facade parameter bound to each registry operand, in the op's order."""
    attrs: tuple[tuple[str, str], ...] = ()
    """(registry attribute, facade parameter) pairs."""
    extras: tuple[str, ...] = ()
    positional: frozenset[str] = frozenset()
    """Parameters the standard makes positional-only: passed on by position (even where
    the facade also accepts them by name)."""

    @property
    def doc(self) -> str:
        where = (f"ivy_ir/dialect/ops.spec line {self.spec.line} (op ivy.{self.spec.name}), "
                 "which is the reference for its semantics" if self.spec else
                 "no op of the ivy dialect (eager only unless composed of ops)")
        std = "the Array API standard's" if self.name in SIGNATURES else "the registry's"
        return f"ivy.{self.name}{self.signature}: {std} signature; declared in {where}."

    @property
    def params(self) -> list[inspect.Parameter]:
        return list(self.signature.parameters.values())

    @property
    def arrays(self) -> tuple[str, ...]:
        """Parameters that hold arrays (what backend inference looks at)."""
        if self.spec is not None:
            return self.operands
        lead = [p.name for p in self.params
                if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)]
        return tuple(lead)

    @property
    def sequences(self) -> tuple[str, ...]:
        """Array parameters that take one list of arrays (`concat`'s `arrays`): those
        bound to a variadic operand without being `*args`."""
        if self.spec is None:
            return ()
        params = self.signature.parameters
        return tuple(name for name, op in zip(self.operands, self.spec.operands)
                     if op.variadic and params[name].kind is not params[name].VAR_POSITIONAL)


def parse_signature(text: str) -> inspect.Signature:
    """An `inspect.Signature` from the standard's parameter text."""
    args = ast.parse(f"def f({text}): pass").body[0].args  # type: ignore[attr-defined]
    P = inspect.Parameter
    params: list[inspect.Parameter] = []
    positional = args.posonlyargs + args.args
    defaults = [P.empty] * (len(positional) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults]
    for i, (a, d) in enumerate(zip(positional, defaults)):
        kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        params.append(P(a.arg, kind, default=d))
    if args.vararg:
        params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        # keyword-only in the standard; positional too here, as the 2021 API took them
        # (`sum(x, 1)`), which the standard's conformance suite allows
        kind = P.KEYWORD_ONLY if args.vararg else P.POSITIONAL_OR_KEYWORD
        params.append(P(a.arg, kind, default=P.empty if d is None else ast.literal_eval(d)))
    return inspect.Signature(params)


def _registry_signature(spec: OpSpec) -> inspect.Signature:
    P = inspect.Parameter
    params = [P(a.name, P.VAR_POSITIONAL) if a.variadic else
              P(a.name, P.POSITIONAL_ONLY, default=None if a.optional else P.empty)
              for a in spec.operands]
    after = P.KEYWORD_ONLY if any(a.variadic for a in spec.operands) else \
        P.POSITIONAL_OR_KEYWORD
    defaulted = any(a.optional for a in spec.operands)
    for a in spec.attrs:
        default = P.empty if a.required else tuple(a.default) if isinstance(
            a.default, list) else a.default
        if default is P.empty and defaulted:
            after = P.KEYWORD_ONLY  # Python allows no required positional after a default
        defaulted = defaulted or default is not P.empty
        params.append(P(a.name, after, default=default))
    return inspect.Signature(params)


def _standard(name: str) -> FacadeFn:
    sig = parse_signature(SIGNATURES[name])
    positional = frozenset(p.name for p in sig.parameters.values()
                           if p.kind is p.POSITIONAL_ONLY)
    op, renames = OPS.get(name, (name.removeprefix("linalg."), {}))
    spec = SPECS.get(op) if name not in NOT_THE_OP else None
    if spec is None:
        return FacadeFn(name, sig, None, positional=positional)
    params = [p for p in sig.parameters.values()]
    lead = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)]
    operands = tuple(lead[:len(spec.operands)])
    rest = [p.name for p in params if p.name not in operands]
    attr_names = {a.name for a in spec.attrs}
    attrs = tuple((renames.get(p, p), p) for p in rest if renames.get(p, p) in attr_names)
    # an attribute may be named even where the standard makes it positional-only
    # (`astype(x, dtype=...)`, as the IR's spelling has it); only arrays stay positional
    named = {p for _, p in attrs}
    sig = sig.replace(parameters=[
        q.replace(kind=q.POSITIONAL_OR_KEYWORD) if q.name in named and
        q.kind is q.POSITIONAL_ONLY else q for q in params])
    extras = tuple(p for p in rest if renames.get(p, p) not in attr_names)
    return FacadeFn(name, sig, spec, operands, attrs, extras, positional)


def _registry(spec: OpSpec) -> FacadeFn:
    return FacadeFn(spec.name, _registry_signature(spec), spec,
                    tuple(a.name for a in spec.operands),
                    tuple((a.name, a.name) for a in spec.attrs))


def _catalogue() -> dict[str, FacadeFn]:
    fns = {name: _standard(name) for name in SIGNATURES}
    fns.update({name: FacadeFn(name, parse_signature(text), None)
                for name, text in PAPER_SIGNATURES.items()})
    for name, spec in SPECS.items():
        if name not in fns and name not in NOT_GENERATED:
            fns[name] = _registry(spec)
    return fns


CATALOGUE: dict[str, FacadeFn] = _catalogue()


def bind(fn: FacadeFn, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name, defaults applied (TypeError naming the
    function on a mismatch)."""
    try:
        bound = fn.signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"ivy.{fn.name}{fn.signature}: {exc}") from None
    bound.apply_defaults()
    return dict(bound.arguments)
