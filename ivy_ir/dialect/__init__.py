"""The `ivy` dialect: op classes generated from `ops.spec`, and op categories as sets."""

from xdsl.ir import Dialect

from .fused import STRUCTURAL_OPS, FusedOp, YieldOp
from .ops import OP_CLASSES, IvyOp, check_attrs, infer_types
from .spec import OpSpec, load_specs
from .types import DTYPES, TensorSpec, dtype_name

SPECS = load_specs()
ELEMENTWISE = frozenset(n for n, s in SPECS.items() if s.has("elementwise"))
COMMUTATIVE = frozenset(n for n, s in SPECS.items() if s.has("commutative"))
REDUCTION = frozenset(n for n, s in SPECS.items() if s.has("reduction"))
COMPOSITE = frozenset(n for n, s in SPECS.items() if s.has("composite"))
NONDIFF = frozenset(n for n, s in SPECS.items() if s.has("nondiff"))

# registry ops, then the structural ops of fused groups (not in the registry)
Ivy = Dialect("ivy", [*OP_CLASSES.values(), *STRUCTURAL_OPS], [])

__all__ = ["COMMUTATIVE", "COMPOSITE", "DTYPES", "ELEMENTWISE", "NONDIFF", "OP_CLASSES",
           "REDUCTION", "SPECS", "FusedOp", "Ivy", "IvyOp", "OpSpec", "TensorSpec", "YieldOp",
           "check_attrs", "dtype_name", "infer_types"]
