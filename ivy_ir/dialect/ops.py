"""xDSL op classes generated from the registry, all sharing `IvyOp`.

One base class carries the custom text format, the verifier and the builder, so each
op class is nothing but its `OpSpec` turned into IRDL field definitions. The text
format is MLIR-like and the same for every op:

    %y = ivy.layer_norm %x, bias = %b {axis = [-1], eps = 1.0e-05}
           : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>

(on one line in real output).

Positional operands first, optional ones as `name = %v`, then the attributes that
differ from their defaults, then the function type, then a control-flow op's regions
(`regions.py`). Type checking (attributes, result inference) is `checks.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import FileLineColLoc, FunctionType, NameLoc, TensorType
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Commutative, IsolatedFromAbove, Pure
from xdsl.utils.exceptions import VerifyException

from .attrs import ATTR_CLASS, FROM_ATTR, TO_ATTR, AttrError, parse_value, print_value
from .axes import axis_problem, canonical_values, negative_axes
from .checks import INFER_RULES, check_attrs, infer_types, ranks
from .infer import InferError
from .regions import parse_regions, print_regions, signatures
from .registry import SPECS
from .spec import AXIS_KINDS, OpSpec
from .types import DTYPES, TensorSpec


class IvyOp(IRDLOperation):
    """Shared behaviour of every generated ivy op; `SPEC` is its registry entry."""

    SPEC: ClassVar[OpSpec]

    # ---- building ----
    @classmethod
    def build(cls, *operands: Any, location: Attribute | None = None,
              regions: Sequence[Region] = (), **attrs: Any) -> IvyOp:
        """Create the op from SSA values and Python attribute values, inferring the
        result types (raises InferError/AttrError with a message naming the op); a
        control-flow op takes its bodies as `regions`, in the spec's order."""
        spec = cls.SPEC
        values = check_attrs(spec, attrs)
        in_specs = [_spec_of(o) for o in operands]
        if len(regions) != len(spec.regions):
            raise InferError(f"ivy.{spec.name} takes {len(spec.regions)} region(s), got "
                             f"{len(regions)}")
        op = cls.__new__(cls)
        sigs = None
        if spec.regions:
            try:
                sigs = signatures(f"ivy.{spec.name}", spec.regions, list(regions))
            except VerifyException as exc:
                raise InferError(str(exc)) from None
        types = infer_types(spec, in_specs, values, sigs)
        props = _stored(spec, values, ranks(in_specs), [t.rank for t in types])
        IRDLOperation.__init__(op, operands=[[] if o is None else o for o in operands],
                               result_types=_group_results(spec, [t.to_xdsl() for t in types]),
                               properties=props, regions=list(regions))
        if location is not None:
            op.location = location
        return op

    # ---- reading ----
    def attr_values(self) -> dict[str, Any]:
        """All attributes as Python values, defaults filled in, axes canonical."""
        out = {}
        for a in self.SPEC.attrs:
            attr = self.properties.get(a.name)
            out[a.name] = a.default if attr is None else FROM_ATTR[a.kind](attr)
        if self.SPEC.axis_attrs:
            out = canonical_values(self.SPEC, out, *self._ranks())
        return out

    def _ranks(self) -> tuple[list[Any], list[int | None]]:
        """Ranks of the operands (per spec operand) and of the results."""
        if all(not (a.optional or a.variadic) for a in self.SPEC.operands):  # the usual case
            operands: list[Any] = [_type_rank(v.type) for v in self.operands]
        else:
            operands = [None if g is None else [_type_rank(v.type) for v in g]
                        if isinstance(g, list) else _type_rank(g.type)
                        for g in self.operand_groups()]
        return operands, [_type_rank(r.type) for r in self.results]

    def operand_groups(self) -> list[Any]:
        """Operands as the spec declares them: a value, None (absent optional) or a list."""
        groups: list[Any] = []
        for arg in self.SPEC.operands:
            vals = getattr(self, arg.name)
            groups.append(list(vals) if arg.variadic else vals)
        return groups

    # ---- verification ----
    def verify_(self) -> None:
        try:
            self._verify()
        except VerifyException as exc:
            where = location_text(self.location)
            if where:
                raise VerifyException(f"{where}: {exc}") from None
            raise

    def _verify(self) -> None:
        spec = self.SPEC
        for key in self.properties:
            if key not in spec.attr_map and key != AttrSizedOperandSegments.attribute_name:
                raise VerifyException(f"ivy.{spec.name}: unknown attribute '{key}'")
        for a in spec.attrs:
            attr = self.properties.get(a.name)
            cls = ATTR_CLASS[a.kind]
            ok = attr is None or (attr in DTYPES.values() if cls is None else isinstance(attr, cls))
            if not ok:
                raise VerifyException(f"ivy.{spec.name}: attribute '{a.name}' must be of "
                                      f"kind {a.kind}")
        stored = {a.name: FROM_ATTR[a.kind](self.properties[a.name]) for a in spec.axis_attrs
                  if a.name in self.properties}
        for name in negative_axes(spec, stored):
            raise VerifyException(f"ivy.{spec.name}: attribute '{name}' = {stored[name]} holds "
                                  "a negative axis; axes in the IR are canonical "
                                  "(non-negative)")
        given = self.attr_values()
        problem = axis_problem(spec, given, *self._ranks())
        if problem is not None:  # here also for axes of a result, which a rule checks late
            raise VerifyException(f"ivy.{spec.name}: {problem}")
        try:
            values = check_attrs(spec, given, filled=True)
            groups = [[_spec_of(v) for v in g] if isinstance(g, list) else _spec_of(g)
                      for g in self.operand_groups()]
            sigs = signatures(f"ivy.{spec.name}", spec.regions, self.regions) \
                if spec.regions else None
            want = infer_types(spec, groups, values, sigs)
        except (InferError, AttrError, TypeError) as exc:
            raise VerifyException(str(exc)) from None
        got = [TensorSpec.from_xdsl(r.type) for r in self.results]
        if len(got) != len(want) or any(not _fits(g, w) for g, w in zip(got, want)):
            raise VerifyException(f"ivy.{spec.name}: result types "
                                  f"{', '.join(map(str, got))} do not match the inferred "
                                  f"{', '.join(map(str, want))}")

    # ---- text format ----
    def print(self, printer: Printer) -> None:
        positional: list[SSAValue] = []
        named: list[tuple[str, SSAValue]] = []
        for arg, group in zip(self.SPEC.operands, self.operand_groups()):
            if arg.variadic:
                positional.extend(group)
            elif arg.optional:
                if group is not None:
                    named.append((arg.name, group))
            else:
                positional.append(group)
        items = [lambda v=v: printer.print_operand(v) for v in positional]
        items += [lambda k=k, v=v: (printer.print_string(f"{k} = "), printer.print_operand(v))
                  for k, v in named]
        if items:
            printer.print_string(" ")
            printer.print_list(items, lambda f: f())
        present = [a for a in self.SPEC.attrs if a.name in self.properties]
        if present:
            printer.print_string(" {")
            printer.print_list(present, lambda a: (
                printer.print_string(f"{a.name} = "),
                print_value(printer, a.kind, self.properties[a.name])))
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)
        if self.SPEC.regions:
            print_regions(printer, self.regions, self.SPEC.regions)

    @classmethod
    def parse(cls, parser: Parser) -> IvyOp:
        spec = cls.SPEC
        positional: list[UnresolvedOperand] = []
        named: dict[str, UnresolvedOperand] = {}
        optional = {a.name for a in spec.operands if a.optional}

        def operand() -> None:
            pos = parser.pos
            key = parser.parse_optional_identifier()
            if key is None:
                positional.append(parser.parse_unresolved_operand())
                return
            if key not in optional or key in named:
                parser.raise_error(f"ivy.{spec.name} has no optional operand '{key}' here",
                                   pos, parser.pos)
            parser.parse_punctuation("=")
            named[key] = parser.parse_unresolved_operand()

        if parser._current_token.text.startswith("%"):
            parser.parse_comma_separated_list(Parser.Delimiter.NONE, operand)
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("{") is not None:
            def attribute() -> None:
                pos = parser.pos
                key = parser.parse_identifier()
                arg = spec.attr_map.get(key)
                if arg is None or key in props:
                    parser.raise_error(f"ivy.{spec.name} has no attribute '{key}'"
                                       if arg is None else f"attribute '{key}' given twice",
                                       pos, parser.pos)
                parser.parse_punctuation("=")
                props[key] = parse_value(parser, arg.kind)
            parser.parse_comma_separated_list(Parser.Delimiter.NONE, attribute)
            parser.parse_punctuation("}")
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        groups = _assign(spec, positional, named)
        flat = [u for g in groups for u in (g if isinstance(g, list) else [g] if g else [])]
        if len(flat) != len(ftype.inputs.data):
            parser.raise_error(f"ivy.{spec.name}: {len(flat)} operands but "
                               f"{len(ftype.inputs.data)} operand types", pos, parser.pos)
        types = iter(ftype.inputs.data)
        resolved = [[parser.resolve_operand(u, next(types)) for u in g] if isinstance(g, list)
                    else None if g is None else parser.resolve_operand(g, next(types))
                    for g in groups]
        results = _group_results(spec, list(ftype.outputs.data))
        if results is None:
            parser.raise_error(f"ivy.{spec.name} returns {len(spec.results)} result(s)",
                               pos, parser.pos)
        if spec.axis_attrs:  # negative axes written by hand count from the end
            values = {a.name: FROM_ATTR[a.kind](props[a.name]) if a.name in props else a.default
                      for a in spec.attrs}
            axes = _stored(spec, values, ranks(_spec_of(resolved)),
                           [_type_rank(t) for t in ftype.outputs.data], axes_only=True)
            props = {a.name: (axes if a.kind in AXIS_KINDS else props)[a.name]
                     for a in spec.attrs if a.name in (axes if a.kind in AXIS_KINDS else props)}
        regions = parse_regions(parser, f"ivy.{spec.name}", spec.regions)
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, operands=[[] if g is None else g for g in resolved],
                               result_types=results, properties=props, regions=regions)
        return op


def location_text(loc: Attribute) -> str:
    """`file:line:col` (or the framework op name) of a location; "" when unknown."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):  # `loc("name")` or `loc("name"(inner))`
        inner = location_text(loc.location)
        return f"{loc.desc.data} ({inner})" if inner else loc.desc.data
    return ""


def _assign(spec: OpSpec, positional: list[Any], named: dict[str, Any]) -> list[Any]:
    """Distribute positional operands over the spec's required/variadic operands."""
    n_required = sum(1 for a in spec.operands if not a.optional and not a.variadic)
    n_var = len(positional) - n_required
    has_var = any(a.variadic for a in spec.operands)
    if n_var < 0 or (n_var and not has_var):
        raise VerifyException(f"ivy.{spec.name} takes {n_required} positional operand(s), "
                              f"got {len(positional)}")
    it = iter(positional)
    groups: list[Any] = []
    for a in spec.operands:
        if a.variadic:
            groups.append([next(it) for _ in range(n_var)])
        elif a.optional:
            groups.append(named.get(a.name))
        else:
            groups.append(next(it))
    return groups


def _group_results(spec: OpSpec, types: list[Attribute]) -> list[Any] | None:
    if spec.variadic_results:
        return [types]
    return types if len(types) == len(spec.results) else None


def _is_default(default: Any, value: Any) -> bool:
    # defaults are never stored, so that parse(print(op)) is structurally equal
    return default is not None and not hasattr(value, "shape") and value == default


def _stored(spec: OpSpec, values: dict[str, Any], operands: list[Any],
            results: list[int | None], axes_only: bool = False) -> dict[str, Attribute]:
    """The properties to store for attribute `values`: axes canonical, and nothing
    equal to its (canonical) default."""
    if not spec.axis_attrs:
        return {a.name: TO_ATTR[a.kind](values[a.name]) for a in spec.attrs
                if values[a.name] is not None and not _is_default(a.default, values[a.name])}
    values = canonical_values(spec, values, operands, results)
    defaults = canonical_values(spec, {a.name: a.default for a in spec.attrs}, operands, results)
    return {a.name: TO_ATTR[a.kind](values[a.name]) for a in spec.attrs
            if values[a.name] is not None and not _is_default(defaults[a.name], values[a.name])
            and (not axes_only or a.kind in AXIS_KINDS)}


def _type_rank(t: Attribute) -> int | None:
    return t.get_num_dims() if isinstance(t, TensorType) else None


def _spec_of(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_spec_of(v) for v in value]
    return TensorSpec.from_xdsl(value.type)


def _fits(got: TensorSpec, want: TensorSpec) -> bool:
    return got.dtype == want.dtype and got.rank == want.rank and all(
        g == w or g is None or w is None for g, w in zip(got.shape, want.shape))


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_")) + "Op"


def make_op_class(spec: OpSpec) -> type[IvyOp]:
    fields: dict[str, Any] = {"name": f"ivy.{spec.name}", "SPEC": spec,
                              "__annotations__": {"SPEC": ClassVar[OpSpec]},
                              "__doc__": f"ivy.{spec.name}: see ops.spec line {spec.line}."}
    for a in spec.operands:
        make = var_operand_def if a.variadic else opt_operand_def if a.optional else operand_def
        fields[a.name] = make(TensorType)
    if spec.variadic_results:
        fields[spec.results[0]] = var_result_def(TensorType)
    else:
        for r in spec.results:
            fields[r] = result_def(TensorType)
    for a in spec.attrs:
        fields[a.name] = opt_prop_def(AnyAttr())
    for r in spec.regions:
        fields[r] = region_def("single_block")
    traits = [Pure()] + ([Commutative()] if spec.has("commutative") else []) \
        + ([IsolatedFromAbove()] if spec.regions else [])
    fields["traits"] = traits_def(*traits)
    if sum(a.optional or a.variadic for a in spec.operands) > 1:
        fields["irdl_options"] = (AttrSizedOperandSegments(as_property=True),)
    return irdl_op_definition(type(_class_name(spec.name), (IvyOp,), fields))


OP_CLASSES: dict[str, type[IvyOp]] = {name: make_op_class(s) for name, s in SPECS.items()}
__all__ = ["INFER_RULES", "IvyOp", "OP_CLASSES", "FunctionType", "check_attrs", "infer_types",
           "location_text"]
