"""ivy_ir: any array program in, any framework out, through one typed IR.

Importing this package loads no ML framework; targets and importers import theirs
lazily when used.
"""

from .api import compile, list_ops, lower, parse, trace
from .compiled import Compiled
from .core.errors import IRError, TraceError, UnsupportedOpsError
from .core.module import Module

__all__ = ["Compiled", "IRError", "Module", "TraceError", "UnsupportedOpsError", "compile",
           "list_ops", "lower", "parse", "trace"]
__version__ = "0.1.0"
