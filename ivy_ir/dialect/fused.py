"""`ivy.fused` and `ivy.yield`: a group of elementwise ops as one op with a body.

The `fuse-elementwise` pass outlines a chain or DAG of elementwise ops into one
`ivy.fused`, so a lowering can emit the group as a unit (in-place chains, one
expression) instead of op by op. Text format:

    %h, %y = ivy.fused (%a = %x, %b = %c) : (tensor<4xf32>, tensor<f32>)
               -> (tensor<4xf32>, tensor<4xf32>) {
      %h = ivy.multiply %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      %y = ivy.tanh %h : (tensor<4xf32>) -> tensor<4xf32>
      ivy.yield %h, %y : tensor<4xf32>, tensor<4xf32>
    }

(the type on one line in real output). Each `%arg = %value` binds a block argument of
the body to an operand; the body sees nothing else (`IsolatedFromAbove`), so a group
reads, verifies and lowers on its own. The body holds only elementwise registry ops
and the `ivy.constant`s they use (a decomposition expanded inside a body creates
some), ending in `ivy.yield` of the results.

These two ops are structural, like `func.return`: they are not registry ops, have no
facade function and no rule in the lowering tables (the emitter handles them), and
`ivy_ir.list_ops()`, which lists the registry, does not name them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.utils.format import parse_assignment, print_assignment
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from .ops import OP_CLASSES, IvyOp, location_text
from .registry import ELEMENTWISE

BODY_EXTRA = frozenset({"constant"})
"""Non-elementwise registry ops a body may hold besides the elementwise ones."""


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A group of elementwise ops: operands bound to the body's block arguments,
    results yielded by its `ivy.yield`."""

    name = "ivy.fused"
    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove())

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 body: Region):
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    @property
    def block(self) -> Block:
        return self.body.block

    def yielded(self) -> tuple[SSAValue, ...]:
        """The body values that become the results, in result order."""
        last = self.block.last_op
        return tuple(last.operands) if isinstance(last, YieldOp) else ()

    def verify_(self) -> None:
        try:
            self._verify()
        except VerifyException as exc:
            where = location_text(self.location)
            raise VerifyException(f"{where}: {exc}" if where else str(exc)) from None

    def _verify(self) -> None:
        args = self.block.args
        if [a.type for a in args] != [v.type for v in self.inputs]:
            raise VerifyException(f"ivy.fused: block argument types "
                                  f"({', '.join(str(a.type) for a in args)}) do not match "
                                  f"the operand types "
                                  f"({', '.join(str(v.type) for v in self.inputs)})")
        if not self.outputs:
            raise VerifyException("ivy.fused: a fused group must have at least one result")
        for op in self.block.ops:
            if isinstance(op, YieldOp):
                continue
            if not isinstance(op, IvyOp) or op.SPEC.name not in ELEMENTWISE | BODY_EXTRA:
                where = location_text(op.location)
                raise VerifyException(f"ivy.fused: body op {op.name}"
                                      f"{f' at {where}' if where else ''} is not elementwise")
        last = self.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("ivy.fused: the body must end with ivy.yield")
        got = [v.type for v in last.operands]
        want = [r.type for r in self.outputs]
        if got != want:
            raise VerifyException(f"ivy.fused: yields ({', '.join(map(str, got))}) but "
                                  f"its results are ({', '.join(map(str, want))})")

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(zip(self.block.args, self.inputs),
                           lambda pair: print_assignment(printer, *pair))
        printer.print_string(") : ")
        printer.print_function_type(self.inputs.types, self.outputs.types)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> FusedOp:
        pairs = parser.parse_comma_separated_list(Parser.Delimiter.PAREN,
                                                  lambda: parse_assignment(parser))
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        in_types = list(ftype.inputs.data)
        if len(in_types) != len(pairs):
            parser.raise_error(f"ivy.fused binds {len(pairs)} operand(s) but its type has "
                               f"{len(in_types)}", pos, parser.pos)
        inputs = parser.resolve_operands([v for _, v in pairs], in_types, pos)
        args = [arg.resolve(t) for (arg, _), t in zip(pairs, in_types)]
        body = parser.parse_region(args)
        op = cls(inputs, list(ftype.outputs.data), body)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends an `ivy.fused` body or a control-flow op's region: its operands become the
    fused op's results, a branch's results, a loop's next carry."""

    name = "ivy.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(FusedOp, *REGION_OPS), Pure()))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


REGION_OPS = tuple(c for c in OP_CLASSES.values() if c.SPEC.regions)
"""The registry's control-flow ops, whose regions `ivy.yield` also ends."""
STRUCTURAL_OPS = (FusedOp, YieldOp)
"""Ops of the dialect that are not registry ops."""

__all__ = ["BODY_EXTRA", "STRUCTURAL_OPS", "FusedOp", "YieldOp"]
