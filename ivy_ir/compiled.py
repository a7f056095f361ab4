"""`Compiled`: what `ivy_ir.compile` and `ivy_ir.lower` return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dialect import TensorSpec
from .module import Module


class Compiled:
    """A lowered program: call it like the original function.

    `ir` is the optimized IR text, `source` the generated target code, `params` the
    parameters keyed by their dotted source names, `raw` the generated function
    `raw(params, *inputs)`. Inputs are checked against the traced types; when the
    program came from a Python function, other shapes/dtypes retrace (cached),
    otherwise they raise a TypeError naming the argument.
    """

    def __init__(self, ir_module: Module, target: str, source: str, raw: Callable[..., Any],
                 params: dict[str, Any],
                 retrace: Callable[[tuple[Any, ...]], Compiled] | None = None):
        self.ir_module = ir_module
        self.target = target
        self.source = source
        self.raw = raw
        self.params = params
        self._inputs = [(t.shape, t.dtype) for t in ir_module.inputs]
        self._retrace = retrace
        self._variants: dict[tuple[Any, ...], Compiled] = {}
        self._missing = [a.param for a in ir_module.args()
                         if a.param is not None and a.param not in params]

    @property
    def ir(self) -> str:
        return str(self.ir_module)

    def apply(self, params: dict[str, Any], *args: Any) -> Any:
        """Run with explicitly given parameters (a pure function of params and inputs)."""
        return self.raw(params, *args)

    def __call__(self, *args: Any) -> Any:
        if self._missing:
            raise ValueError(f"no value for parameter(s) {', '.join(self._missing)}: "
                             "use .apply(params, *inputs) or lower(..., params=...)")
        if len(args) != len(self._inputs):
            raise TypeError(f"compiled function takes {len(self._inputs)} input(s), "
                            f"got {len(args)}")
        for i, (a, (shape, dtype)) in enumerate(zip(args, self._inputs)):
            spec = TensorSpec.of(a)
            if spec.dtype != dtype or len(spec.shape) != len(shape) or any(
                    d is not None and d != s for d, s in zip(shape, spec.shape)):
                return self._other_types(args, i, spec)
        return self.raw(self.params, *args)

    def _other_types(self, args: tuple[Any, ...], i: int, got: TensorSpec) -> Any:
        if self._retrace is None:
            shape, dtype = self._inputs[i]
            want = TensorSpec(shape, dtype)
            raise TypeError(f"input {i} has type {got}, but the program was compiled for "
                            f"{want}")
        key = tuple(TensorSpec.of(a) for a in args)
        if key not in self._variants:
            self._variants[key] = self._retrace(args)
        return self._variants[key](*args)

    def __repr__(self) -> str:
        return (f"<ivy_ir.Compiled target={self.target} ops={self.ir_module.op_count()} "
                f"params={len(self.params)}>")
