"""`Compiled`: what `ivy_ir.compile` and `ivy_ir.lower` return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import lowerings

from .core.module import Module
from .dialect import TensorSpec


class Compiled:
    """A lowered program: call it like the original function.

    `ir` is the optimized IR text, `source` the generated target code, `params` the
    target-native parameters keyed by their dotted source names, `apply(params, *x)` the
    wrapped function as a pure function of the parameters, and `module` the framework
    module owning the parameters (torch and TensorFlow targets).

    A call costs one dtype and one shape comparison per input on top of the wrapped
    function: the check is generated per program with the expected values bound once.
    Inputs that fail it take the slow path, which converts NumPy arrays and Python
    values to the target's arrays (once, at the boundary) and, when the program came
    from a Python function, retraces for other shapes/dtypes (cached); otherwise it
    raises a TypeError naming the argument.
    """

    def __init__(self, ir_module: Module, lowered: lowerings.Lowered,
                 retrace: Callable[[tuple[Any, ...]], Compiled] | None = None):
        self.ir_module = ir_module
        self.target = lowered.target
        self.source = lowered.source
        self.raw = lowered.raw
        self.apply = lowered.fn
        self.runtime = lowered.runtime
        self._inputs = ir_module.inputs
        self._retrace = retrace
        self._variants: dict[tuple[Any, ...], Compiled] = {}
        params = lowered.params
        self._missing = [a.param for a in ir_module.args()
                         if a.param is not None and a.param not in params]
        self.params = params
        self.module = self.runtime.module(params, self) if not self._missing else None

    @property
    def params(self) -> dict[str, Any]:
        return self._params

    @params.setter
    def params(self, value: dict[str, Any]) -> None:
        self._params = value
        self._call = self._fast_call()

    @property
    def ir(self) -> str:
        return str(self.ir_module)

    def __call__(self, *args: Any) -> Any:
        return self._call(*args)

    def _fast_call(self) -> Callable[..., Any]:
        """`call(*inputs)`: check each input's dtype and static dims, then run."""
        names = [f"a{i}" for i in range(len(self._inputs))]
        env: dict[str, Any] = {"fn": self.apply, "params": self._params, "slow": self._slow}
        checks = []
        for i, (name, t) in enumerate(zip(names, self._inputs)):
            env[f"D{i}"] = self.runtime.native_dtype(t.dtype)
            checks.append(f"{name}.dtype != D{i}")
            if None in t.shape:
                checks.append(f"len({name}.shape) != {t.rank}")
                checks += [f"{name}.shape[{d}] != {n}" for d, n in enumerate(t.shape)
                           if n is not None]
            else:
                env[f"S{i}"] = tuple(t.shape)
                checks.append(f"{name}.shape != S{i}")
        args = ", ".join(names)
        guard = " or ".join(checks) or "False"
        if self._missing:
            guard = "True"
        src = (f"def compiled({args}):\n"
               f"    if {guard}:\n"
               f"        return slow({args})\n"
               f"    return fn(params, {args})\n")
        exec(compile(src, "<ivy_ir call>", "exec"), env)
        return env["compiled"]

    def _slow(self, *args: Any) -> Any:
        if self._missing:
            raise ValueError(f"no value for parameter(s) {', '.join(self._missing)}: "
                             "use .apply(params, *inputs) or lower(..., params=...)")
        rt = self.runtime
        args = tuple(a if rt.is_native(a) else rt.to_native(a) for a in args)
        specs = tuple(rt.spec(a) for a in args)
        for i, (got, want) in enumerate(zip(specs, self._inputs)):
            if not _fits(got, want):
                return self._other_types(args, specs, i)
        return self.apply(self._params, *args)

    def _other_types(self, args: tuple[Any, ...], specs: tuple[TensorSpec, ...], i: int) -> Any:
        if self._retrace is None:
            raise TypeError(f"input {i} has type {specs[i]}, but the program was compiled "
                            f"for {self._inputs[i]}")
        if specs not in self._variants:
            examples = tuple(np.zeros(s.shape, s.dtype) for s in specs)
            self._variants[specs] = self._retrace(examples)
        return self._variants[specs](*args)

    def __repr__(self) -> str:
        return (f"<ivy_ir.Compiled target={self.target} ops={self.ir_module.op_count()} "
                f"params={len(self._params)}>")


def _fits(got: TensorSpec, want: TensorSpec) -> bool:
    return got.dtype == want.dtype and got.rank == want.rank and all(
        w is None or g == w for g, w in zip(got.shape, want.shape))
