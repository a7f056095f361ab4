"""The regions of control-flow ops: their signatures and their text form.

A region op prints its regions after its type, each named as the spec names it and
with its block arguments written out, so a body reads like a small function:

    %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
      then(%a : tensor<3xf32>) {
        %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
        ivy.yield %s : tensor<3xf32>
      } orelse(%a : tensor<3xf32>) {
        ivy.yield %a : tensor<3xf32>
      }
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .infer_control import Signature
from .types import TensorSpec

YIELD = "ivy.yield"


def signatures(op_name: str, names: Sequence[str], regions: Sequence[Region]
               ) -> list[Signature]:
    """Each region's block argument and yielded types (refusing a malformed body)."""
    if len(regions) != len(names):
        raise VerifyException(f"{op_name} has {len(names)} region(s), got {len(regions)}")
    out = []
    for name, region in zip(names, regions):
        if len(region.blocks) != 1:
            raise VerifyException(f"{op_name}: region '{name}' must hold one block")
        block = region.block
        last = block.last_op
        if last is None or last.name != YIELD:
            raise VerifyException(f"{op_name}: region '{name}' must end with ivy.yield")
        out.append(Signature(tuple(TensorSpec.from_xdsl(a.type) for a in block.args),
                             tuple(TensorSpec.from_xdsl(v.type) for v in last.operands)))
    return out


def print_regions(printer: Printer, regions: Sequence[Region], names: Sequence[str]) -> None:
    for name, region in zip(names, regions, strict=True):
        printer.print_string(f" {name}(")
        printer.print_list(region.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(region, print_entry_block_args=False)


def parse_regions(parser: Parser, op_name: str, names: Sequence[str]) -> list[Region]:
    regions = []
    for name in names:
        pos = parser.pos
        if parser.parse_optional_identifier() != name:
            parser.raise_error(f"{op_name}: expected region '{name}'", pos, parser.pos)
        args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN,
                                                 lambda: _argument(parser))
        regions.append(parser.parse_region(args))
    return regions


def _argument(parser: Parser) -> Parser.Argument:
    """`%name : type`, with the location the debug form prints after it."""
    arg = parser.parse_argument()
    assert isinstance(arg, Parser.Argument)  # parse_argument expects a type by default
    loc = parser.parse_optional_location()
    if loc is not None:
        arg.location = loc
    return arg


__all__ = ["Signature", "parse_regions", "print_regions", "signatures"]
