"""`Compiled`: what `ivy_ir.compile` and `ivy_ir.lower` return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .module import Module


class Compiled:
    """A lowered program: call it like the original function.

    `ir` is the optimized IR text, `source` the generated target code, `params` the
    target-native parameters keyed by their dotted source names, `apply(params, *x)` the
    wrapped function as a pure function of the parameters, and `module` the framework
    module owning the parameters (torch and TensorFlow targets). Calls check inputs
    against the traced types (one shape and dtype comparison per input) and convert
    NumPy inputs to the target's arrays once, at the boundary. When the program came
    from a Python function, other shapes/dtypes retrace (cached); otherwise they raise
    a TypeError naming the argument.
    """

    def __init__(self, ir_module: Module, target: str, source: str, raw: Callable[..., Any],
                 fn: Callable[..., Any], params: dict[str, Any], runtime: Any,
                 retrace: Callable[[tuple[Any, ...]], Compiled] | None = None):
        self.ir_module = ir_module
        self.target = target
        self.source = source
        self.raw = raw
        self.apply = fn
        self.params = params
        self.runtime = runtime
        self._expect = [(t.shape, runtime.native_dtype(t.dtype)) for t in ir_module.inputs]
        self._retrace = retrace
        self._variants: dict[tuple[Any, ...], Compiled] = {}
        self._missing = [a.param for a in ir_module.args()
                         if a.param is not None and a.param not in params]
        self.module = runtime.module(params, self) if not self._missing else None

    @property
    def ir(self) -> str:
        return str(self.ir_module)

    def __call__(self, *args: Any) -> Any:
        if self._missing:
            raise ValueError(f"no value for parameter(s) {', '.join(self._missing)}: "
                             "use .apply(params, *inputs) or lower(..., params=...)")
        if len(args) != len(self._expect):
            raise TypeError(f"compiled function takes {len(self._expect)} input(s), "
                            f"got {len(args)}")
        rt = self.runtime
        if not all(map(rt.is_native, args)):
            args = tuple(a if rt.is_native(a) else rt.to_native(a) for a in args)
        for i, (a, (shape, dtype)) in enumerate(zip(args, self._expect)):
            if a.dtype != dtype or len(a.shape) != len(shape) or any(
                    d is not None and d != s for d, s in zip(shape, a.shape)):
                return self._other_types(args, i)
        return self.apply(self.params, *args)

    def _other_types(self, args: tuple[Any, ...], i: int) -> Any:
        got = self.runtime.spec(args[i])
        if self._retrace is None:
            want = self.ir_module.inputs[i]
            raise TypeError(f"input {i} has type {got}, but the program was compiled for "
                            f"{want}")
        specs = tuple(self.runtime.spec(a) for a in args)
        if specs not in self._variants:
            examples = tuple(np.zeros(s.shape, s.dtype) for s in specs)
            self._variants[specs] = self._retrace(examples)
        return self._variants[specs](*args)

    def __repr__(self) -> str:
        return (f"<ivy_ir.Compiled target={self.target} ops={self.ir_module.op_count()} "
                f"params={len(self.params)}>")
