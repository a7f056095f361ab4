"""`ivy_ir.Module`: a traced or parsed IR module plus the values of its parameters.

Parameters (weights, buffers, large constants) are arguments of the entry function
marked `{ivy.param = "dotted.name"}` (trainable) or `{ivy.buffer = "name"}`, so printed
IR never carries weight data and stays readable; the arrays live in `params`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.printer import Printer

from ..dialect import TensorSpec

PARAM_KEYS = ("ivy.param", "ivy.buffer")


@dataclass(frozen=True)
class ArgInfo:
    """One argument of the entry function: a user input or a named parameter."""

    spec: TensorSpec
    param: str | None = None
    trainable: bool = False


@dataclass
class Module:
    op: ModuleOp
    params: dict[str, np.ndarray] = field(default_factory=dict)
    returns_sequence: bool = False
    """Return a tuple even for one result (the traced function returned a sequence)."""

    @property
    def entry(self) -> func.FuncOp:
        funcs = [o for o in self.op.ops if isinstance(o, func.FuncOp)]
        if not funcs:
            raise ValueError("the module holds no func.func")
        return next((f for f in funcs if f.sym_name.data == "main"), funcs[0])

    def args(self) -> list[ArgInfo]:
        fn = self.entry
        attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
        out = []
        for i, t in enumerate(fn.function_type.inputs.data):
            d = attrs[i].data if i < len(attrs) else {}
            name = next((d[k] for k in PARAM_KEYS if k in d), None)
            out.append(ArgInfo(TensorSpec.from_xdsl(t),
                               name.data if isinstance(name, StringAttr) else None,
                               "ivy.param" in d))
        return out

    @property
    def inputs(self) -> list[TensorSpec]:
        return [a.spec for a in self.args() if a.param is None]

    @property
    def outputs(self) -> list[TensorSpec]:
        return [TensorSpec.from_xdsl(t) for t in self.entry.function_type.outputs.data]

    def verify(self) -> None:
        self.op.verify()

    def to_text(self, locations: bool = True) -> str:
        buf = io.StringIO()
        Printer(stream=buf, print_debuginfo=locations).print_op(self.op)
        return buf.getvalue() + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def clone(self) -> Module:
        return Module(self.op.clone(), dict(self.params), self.returns_sequence)

    def op_count(self) -> int:
        return sum(1 for o in self.entry.walk() if o.name.startswith("ivy."))
