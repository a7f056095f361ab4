"""The `ivy` dialect: op classes generated from `ops.spec`, and op categories as sets."""

from xdsl.ir import Dialect

from .fused import STRUCTURAL_OPS, FusedOp, YieldOp
from .ops import OP_CLASSES, IvyOp, check_attrs, infer_types
from .registry import COMMUTATIVE, COMPOSITE, ELEMENTWISE, NONDIFF, REDUCTION, SPECS
from .spec import OpSpec
from .types import DTYPES, TensorSpec, dtype_name

# registry ops, then the structural ops of fused groups (not in the registry)
Ivy = Dialect("ivy", [*OP_CLASSES.values(), *STRUCTURAL_OPS], [])

__all__ = ["COMMUTATIVE", "COMPOSITE", "DTYPES", "ELEMENTWISE", "NONDIFF", "OP_CLASSES",
           "REDUCTION", "SPECS", "FusedOp", "Ivy", "IvyOp", "OpSpec", "TensorSpec", "YieldOp",
           "check_attrs", "dtype_name", "infer_types"]
