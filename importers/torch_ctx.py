"""What an ATen rule sees while the torch importer walks an exported graph.

Each entry of the ATen table is a `importers.common.Rule`, called as
`rule(c, *args, **kwargs)` with the node's own arguments (graph nodes replaced by their
ivy SSA values). `Ctx` is the torch `ImportContext`: besides what every importer's
context offers (emitting registry ops, casts, constants, operand types, import-time
constant values, the result type torch computed for the node) it adds the one piece of
torch semantics every arithmetic op needs: dtype promotion. Reproducing the promotion
here (instead of trusting the registry's) keeps each explicit `astype` in the IR exactly
where torch converts.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from xdsl.ir import SSAValue

from ivy_ir.dialect import SPECS, TensorSpec
from ivy_ir.dialect.types import CLASS_MEMBERS, COMPLEX, FLOATS, numpy_dtype

from .common import ImportBuilder, Unmapped, spec_of

TORCH_DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "uint8": torch.uint8, "uint16": torch.uint16, "uint32": torch.uint32,
    "uint64": torch.uint64, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
    "complex128": torch.complex128,
}
_NAMES = {v: k for k, v in TORCH_DTYPES.items()}


class DataDependent(Exception):
    """The op's result shape depends on tensor values, which a static graph cannot hold."""


@dataclass(frozen=True)
class TensorScalar:
    """A Python number read out of a 0-d tensor (`.item()`, or a tensor used as an
    index): known only at run time, so it stays a 0-d tensor in the IR and promotes
    like the Python number torch sees."""

    value: SSAValue


def dtype_name(dtype: torch.dtype) -> str:
    """The registry name of a torch dtype (complex32, float8 and quantized dtypes are not
    imported)."""
    if dtype not in _NAMES:
        raise Unmapped(f"dtype {str(dtype).removeprefix('torch.')} is not supported")
    return _NAMES[dtype]


def meta_spec(val: Any) -> TensorSpec | None:
    """The static type torch recorded for a node result (`node.meta['val']`)."""
    if not isinstance(val, torch.Tensor):
        return None
    shape = tuple(int(d) if isinstance(d, int) else None for d in val.shape)
    return TensorSpec(shape, dtype_name(val.dtype))


def _scalar_dtype(value: Any) -> torch.dtype:
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    if isinstance(value, complex):
        return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64
    return torch.get_default_dtype()


_COMPLEX_OF = {torch.float16: torch.complex32, torch.float32: torch.complex64,
               torch.float64: torch.complex128}


def _combine(higher: torch.dtype | None, lower: torch.dtype | None) -> torch.dtype | None:
    # c10 `combine_categories`: a lower-priority group only matters when it has a
    # higher category (bool < integer < floating < complex) than the groups above it; a
    # complex one makes a floating group complex of its width (float32 * 1j: complex64)
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return _COMPLEX_OF.get(higher, lower) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher == torch.bool or lower.is_floating_point:
        return torch.promote_types(higher, lower)
    return higher


def promote_types(operands: Sequence[Any]) -> str:
    """torch's result dtype for an elementwise op over tensors and Python scalars.

    Dimensioned tensors outrank 0-d tensors, which outrank Python scalars; a lower
    group changes the dtype only when it is of a higher category (an int tensor plus a
    float scalar gives the default float dtype, float32 plus a 0-d float64 stays
    float32, an int tensor plus a 0-d float64 gives float64).
    """
    groups: list[torch.dtype | None] = [None, None, None]
    for x in operands:
        if x is None:
            continue
        if isinstance(x, SSAValue):
            s = spec_of(x)
            slot, dtype = (1 if s.rank == 0 else 0), TORCH_DTYPES[s.dtype]
        elif isinstance(x, TensorScalar):
            kind = TORCH_DTYPES[spec_of(x.value).dtype]
            slot, dtype = 2, _scalar_dtype(1.0 if kind.is_floating_point else 1j
                                           if kind.is_complex else True if kind == torch.bool
                                           else 1)
        else:
            slot, dtype = 2, _scalar_dtype(x)
        groups[slot] = dtype if groups[slot] is None else torch.promote_types(groups[slot],
                                                                               dtype)
    result = _combine(groups[0], _combine(groups[1], groups[2]))
    if result is None:
        raise Unmapped("no tensor or number operands")
    return dtype_name(result)  # Unmapped for complex32 (float16 * 1j)


class Ctx:
    """One node being imported: the builder plus torch's result types for it.

    The torch `importers.common.ImportContext` (`emit`, `emit_all`, `cast`, `const`,
    `spec`, `known`, `out`), with torch's promotion on top: `tensor`, `compute_dtype`,
    `elementwise`, `float_in`."""

    def __init__(self, builder: ImportBuilder, val: Any, values: dict[SSAValue, np.ndarray],
                 node: Any = None, dims: Any = None):
        self.b = builder
        self.val = val
        self._dims = dims
        """`torch_dims.DimNames` when sizes may be symbolic."""
        self._values = values
        """Values fixed at import time (lifted tensor constants and what the walker
        derives from them), for static indexing."""
        self._node = node
        """The graph node, for what torch recorded about its arguments and its users."""

    def used(self, i: int) -> bool:
        """Whether the program reads result `i` of a multi-result op: the extra results
        that only autograd reads (max-pool indices, saved norm statistics) are built only
        when read."""
        users = getattr(self._node, "users", {})
        return any(u.target is operator.getitem and u.args[1] == i and u.users for u in users)

    def layout(self, i: int) -> tuple[tuple[int, ...], int] | None:
        """Strides and storage offset torch recorded for tensor argument `i` (None where
        it recorded none): the memory layout, which only ops that read storage
        (`as_strided`) depend on."""
        args = getattr(self._node, "args", ())
        meta = getattr(args[i], "meta", {}).get("val") if i < len(args) else None
        if not isinstance(meta, torch.Tensor) or \
                not all(isinstance(d, int) for d in (*meta.stride(), meta.storage_offset())):
            return None
        return tuple(meta.stride()), int(meta.storage_offset())

    def arg_sizes(self, i: int) -> tuple[Any, ...]:
        """torch's shape of tensor argument `i` as IR sizes (size expressions for the
        dims that stay symbolic)."""
        val = self._node.args[i].meta["val"]
        return self._dims.sizes(val) if self._dims is not None else tuple(val.shape)

    @property
    def out(self) -> TensorSpec:
        """torch's type for the (first) tensor result."""
        spec = meta_spec(self.val if not isinstance(self.val, (list, tuple)) else self.val[0])
        if spec is None:
            raise Unmapped("result is not a tensor")
        return spec

    @property
    def out_sizes(self) -> tuple[Any, ...]:
        """torch's shape of the (first) tensor result as IR sizes: ints, and size
        expressions for the dims that stay symbolic."""
        val = self.val if not isinstance(self.val, (list, tuple)) else self.val[0]
        if self._dims is None or not isinstance(val, torch.Tensor):
            return self.out.shape
        return self._dims.sizes(val)

    def emit(self, op: str, *operands: Any, **attrs: Any) -> SSAValue:
        return self.b.emit(op, operands, **attrs)

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[SSAValue]:
        return self.b.emit_all(op, operands, **attrs)

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        return self.b.cast(value, dtype)

    def const(self, value: Any, dtype: str) -> SSAValue:
        return self.b.constant(value, dtype)

    def spec(self, value: SSAValue) -> TensorSpec:
        return spec_of(value)

    def known(self, value: Any) -> np.ndarray | None:
        """The value of `value` when fixed at import time (a constant mask or index)."""
        return self._values.get(value) if isinstance(value, SSAValue) else None

    def tensor(self, value: Any, dtype: str) -> SSAValue:
        """`value` as a tensor of `dtype`: SSA values are cast, numbers become constants."""
        if isinstance(value, SSAValue):
            return self.cast(value, dtype)
        if isinstance(value, TensorScalar):
            return self.cast(value.value, dtype)
        return self.const(value, dtype)

    def compute_dtype(self, op: str, dtype: str) -> str:
        """A dtype the registry op accepts for torch's promoted `dtype`: integer input to a
        float-only op computes in the result's float dtype (true division, `exp` of
        ints), bool input to an arithmetic op in int64 (`True + True` is True in torch),
        numbers to a logical op as bools (nonzero is True). Complex input to an op of
        real numbers has no registry form."""
        allowed = CLASS_MEMBERS[SPECS[op].operands[0].dtype_class]
        if dtype in allowed:
            return dtype
        if dtype in COMPLEX:
            raise Unmapped(f"complex operands ({dtype})")
        if allowed <= FLOATS | COMPLEX:
            return self.out.dtype if self.out.dtype in allowed else "float32"
        return "bool" if allowed == {"bool"} else "int64"

    def elementwise(self, op: str, *operands: Any, **attrs: Any) -> SSAValue:
        """Emit a registry elementwise op on promoted operands (the walker casts the
        result to torch's result dtype where the two differ)."""
        dtype = self.compute_dtype(op, promote_types(operands))
        return self.emit(op, *(self.tensor(x, dtype) for x in operands), **attrs)

    def float_in(self, x: SSAValue) -> SSAValue:
        """`x` in the float dtype torch computes in for a float-only op."""
        return self.cast(x, spec_of(x).dtype if spec_of(x).dtype in FLOATS else self.out.dtype)


def axis_list(dims: Any, rank: int) -> list[int] | None:
    """ATen `int[1]? dim` as registry axes: None or [] mean all axes."""
    if dims is None:
        return None
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [d % rank for d in dims] if dims else None


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A detached CPU copy of `tensor` as NumPy (bfloat16, which NumPy lacks, as the
    registry's NumPy bfloat16 dtype, with the same bits). A copy, not a view: a weight
    or buffer the source model later updates in place (an optimizer step, batch-norm
    statistics) must not change a compiled program's parameters behind its back."""
    t = tensor.detach().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(numpy_dtype("bfloat16")).copy()
    return t.numpy().copy()
