"""Parse `ops.spec`, the single declaration of every ivy op, into `OpSpec` records.

Everything else (xDSL op classes, facade functions, completeness checks) is derived
from these records, so an op is added by writing one line of the spec.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import VisitError

from .dtypes import DTYPE_NAMES

SPEC_PATH = Path(__file__).with_name("ops.spec")

GROUPED_CLASSES = frozenset({"any", "num", "real", "inexact", "float", "int", "intbool", "bool"})
"""Operand dtype classes whose operands must all share one dtype within an op."""
TENSOR_CLASSES = GROUPED_CLASSES | {"index", "cond", "mask", "value", "castable", "text"}
ATTR_KINDS = frozenset({"int", "float", "bool", "str", "strs", "ints", "floats", "dtype",
                        "dense", "axis", "axes", "shape", "bound"})
TAGS = frozenset({"elementwise", "broadcast", "commutative", "reduction", "composite",
                  "nondiff", "repeat_axes", "data_shaped"})
"""The flags a spec line may carry (besides `infer=` and `unsupported=`): a misspelt
one would silently mean nothing."""
AXIS_KINDS = frozenset({"axis", "axes"})
"""Kinds of attributes that name dimensions: canonical (non-negative) in the IR."""
SIZE_KINDS = frozenset({"shape", "bound"})
"""Kinds of attributes whose entries may be symbolic sizes (`SymDim`): `shape` (ints)
and `bound` (one number, as `arange`'s ends)."""

_GRAMMAR = r"""
start: (decl | _NL)*
decl: NAME "(" [arg ("," arg)*] ")" ["->" results] [regions] ["|" tags] _NL
regions: "{" NAME ("," NAME)* "}"
?arg: param | vararg | star
param: NAME [OPT] ":" kind [OPT] ["=" value]
vararg: "*" NAME ":" NAME
star: "*"
tags: tag*
kind: NAME ["(" NAME ")"] ["{" STRING ("," STRING)* "}"]
results: NAME -> single
       | "(" NAME ("," NAME)+ ")" -> several
       | "*" NAME -> variadic
tag: NAME ["=" NAME] -> tag
   | "unsupported" "=" NAME ":" NAME ("+" NAME)* -> gap
?value: SIGNED_NUMBER -> number
      | STRING -> string
      | NAME -> word
      | "[" [value ("," value)*] "]" -> array
OPT: "?"
STRING: /"[^"\n]*"/
COMMENT: /#[^\n]*/
_NL: /(\r?\n)+/
%import common.CNAME -> NAME
%import common.SIGNED_NUMBER
%import common.WS_INLINE
%ignore WS_INLINE
%ignore COMMENT
"""


@dataclass(frozen=True)
class TensorArg:
    name: str
    dtype_class: str
    optional: bool = False
    variadic: bool = False


@dataclass(frozen=True)
class AttrArg:
    name: str
    kind: str
    optional: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    rank_of: str | None = None
    """For `axis`/`axes` attributes: the operand or result whose dimensions they name
    (`axis(out)`); None for the first operand."""

    @property
    def required(self) -> bool:
        return not self.optional and self.default is None


@dataclass(frozen=True)
class OpSpec:
    name: str
    operands: tuple[TensorArg, ...]
    attrs: tuple[AttrArg, ...]
    results: tuple[str, ...]
    variadic_results: bool
    tags: frozenset[str]
    infer: str
    line: int = field(compare=False, default=0)
    unsupported: dict[str, frozenset[str]] = field(compare=False, default_factory=dict)
    """Per target, the dtypes that framework cannot run this op in (`unsupported=t:d+d`)."""
    regions: tuple[str, ...] = ()
    """Names of the op's regions (`{then, orelse}`): a control-flow op whose bodies are
    single blocks, isolated from above, ending in `ivy.yield`."""

    def has(self, tag: str) -> bool:
        return tag in self.tags

    @functools.cached_property
    def attr_map(self) -> dict[str, AttrArg]:
        return {a.name: a for a in self.attrs}

    @functools.cached_property
    def axis_attrs(self) -> tuple[AttrArg, ...]:
        """The attributes that name dimensions (canonical in the IR, see `axes.py`)."""
        return tuple(a for a in self.attrs if a.kind in AXIS_KINDS)


class SpecError(ValueError):
    """The spec file is malformed; the message names the line."""


class _ToSpecs(Transformer):
    def number(self, items: list[Token]) -> int | float:
        text = str(items[0])
        return float(text) if any(c in text for c in ".eE") else int(text)

    def string(self, items: list[Token]) -> str:
        return str(items[0])[1:-1]

    def word(self, items: list[Token]) -> Any:
        return {"true": True, "false": False, "none": None}.get(str(items[0]), str(items[0]))

    def array(self, items: list[Any]) -> tuple[Any, ...]:
        return tuple(i for i in items if i is not None)

    def kind(self, items: list[Any]) -> tuple[str, str | None, tuple[str, ...]]:
        ref = None if items[1] is None else str(items[1])
        return str(items[0]), ref, tuple(str(s)[1:-1] for s in items[2:] if s is not None)

    def param(self, items: list[Any]) -> tuple[str, bool, str, tuple[str, ...], bool, Any,
                                               str | None]:
        name, opt_name, (kind, ref, choices), opt_kind, default = items
        return (str(name), opt_name is not None, kind, choices, opt_kind is not None, default,
                ref)

    def vararg(self, items: list[Any]) -> TensorArg:
        return TensorArg(str(items[0]), str(items[1]), variadic=True)

    def star(self, _items: list[Any]) -> str:
        return "*"

    def single(self, items: list[Token]) -> tuple[tuple[str, ...], bool]:
        return (str(items[0]),), False

    def several(self, items: list[Token]) -> tuple[tuple[str, ...], bool]:
        return tuple(map(str, items)), False

    def variadic(self, items: list[Token]) -> tuple[tuple[str, ...], bool]:
        return (str(items[0]),), True

    def tag(self, items: list[Any]) -> tuple[str, str | None]:
        return str(items[0]), None if items[1] is None else str(items[1])

    def gap(self, items: list[Token]) -> tuple[str, tuple[str, ...]]:
        return str(items[0]), tuple(map(str, items[1:]))

    def tags(self, items: list[Any]) -> list[Any]:
        return items

    def regions(self, items: list[Token]) -> tuple[str, ...]:
        return tuple(map(str, items))

    def decl(self, items: list[Any]) -> OpSpec:
        name, *args, results_item, regions, tags = items
        results, var_results = results_item or (("out",), False)
        gaps: dict[str, frozenset[str]] = {}
        flags: dict[str, str | None] = {}
        for key, value in tags or []:
            if isinstance(value, tuple):
                gaps[key] = gaps.get(key, frozenset()) | frozenset(value)
            else:
                flags[key] = value
        keyword_only = False
        operands: list[TensorArg] = []
        attrs: list[AttrArg] = []
        for p in (a for a in args if a is not None):
            if p == "*":
                keyword_only = True
            elif isinstance(p, TensorArg):
                operands.append(p)
            elif keyword_only:
                pname, _, kind, choices, opt, default, ref = p
                attrs.append(AttrArg(pname, kind, optional=opt, default=default, choices=choices,
                                     rank_of=ref))
            else:
                pname, opt, dtype_class, *_ = p
                operands.append(TensorArg(pname, dtype_class, optional=opt))
        infer = flags.pop("infer", None)
        line = getattr(name, "line", 0)
        unknown = sorted(set(flags) - TAGS)
        if unknown:
            raise SpecError(f"ops.spec:{line}: op '{name}' has unknown tag(s) "
                            f"{', '.join(unknown)}")
        _check(str(name), operands, attrs, infer, line)
        if regions and (len(set(regions)) != len(regions) or not var_results):
            raise SpecError(f"ops.spec:{line}: op '{name}': region names must differ and a "
                            "region op returns a variadic list (`-> *outs`)")
        for target, dtypes in gaps.items():
            bad = sorted(dtypes - set(DTYPE_NAMES))
            if bad:
                raise SpecError(f"ops.spec:{line}: op '{name}': unsupported={target}: names "
                                f"unknown dtype(s) {', '.join(bad)}")
        return OpSpec(str(name), tuple(operands), tuple(attrs), results, var_results,
                      frozenset(flags), infer or "", line, gaps, regions or ())


def _check(name: str, operands: list[TensorArg], attrs: list[AttrArg], infer: str | None,
           line: int) -> None:
    where = f"ops.spec:{line}: op '{name}'"
    if not infer:
        raise SpecError(f"{where} has no infer=<rule> tag")
    for t in operands:
        if t.dtype_class not in TENSOR_CLASSES:
            raise SpecError(f"{where}: operand '{t.name}' has unknown dtype class "
                            f"'{t.dtype_class}'")
    for a in attrs:
        if a.kind not in ATTR_KINDS:
            raise SpecError(f"{where}: attribute '{a.name}' has unknown kind '{a.kind}'")
        if a.choices and a.default is not None and a.default not in a.choices:
            raise SpecError(f"{where}: default of '{a.name}' is not one of its choices")
        if a.rank_of is not None and a.kind not in AXIS_KINDS:
            raise SpecError(f"{where}: only axis attributes name a rank source, not "
                            f"'{a.name}'")
        if a.kind in AXIS_KINDS and not operands:
            raise SpecError(f"{where}: axis attribute '{a.name}' of an op without operands")
    names = [t.name for t in operands] + [a.name for a in attrs]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: duplicate argument names")


def parse_spec(text: str) -> dict[str, OpSpec]:
    """Parse spec text into ops keyed by name (in declaration order)."""
    parser = Lark(_GRAMMAR, parser="lalr", propagate_positions=True)
    try:
        tree = parser.parse(text if text.endswith("\n") else text + "\n")
    except Exception as exc:  # lark's errors carry line/column in their message
        raise SpecError(f"ops.spec: {exc}") from None
    try:
        decls = _ToSpecs().transform(tree).children
    except VisitError as exc:  # lark wraps what our transformer raised
        raise exc.orig_exc from None
    specs: dict[str, OpSpec] = {}
    for spec in decls:
        if spec.name in specs:
            raise SpecError(f"ops.spec:{spec.line}: op '{spec.name}' declared twice")
        specs[spec.name] = spec
    return specs


@functools.cache
def load_specs() -> dict[str, OpSpec]:
    return parse_spec(SPEC_PATH.read_text())
