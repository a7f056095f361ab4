"""Operators and ndarray methods of `NpArray`, each routed through the NumPy function
or ufunc that `np.ndarray` itself uses, so one handler per NumPy call covers the
operator, the method and the function spelling (`a + b`, `np.add(a, b)`; `x.sum()`,
`np.sum(x)`). In-place operators pass `out=` and keep NumPy's casting rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .numpy_array import NpArray

BINARY: dict[str, np.ufunc] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift,
}
COMPARE: dict[str, np.ufunc] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}
UNARY: dict[str, np.ufunc] = {
    "neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert,
}
FUNCTION_METHODS = (
    "sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "all", "any",
    "cumsum", "cumprod", "clip", "dot", "round", "squeeze", "swapaxes", "take", "repeat",
    "diagonal", "trace", "ravel", "copy", "nonzero", "argsort", "conj", "conjugate",
)
"""ndarray methods whose signature is the NumPy function's without its first argument."""


def _binary(ufunc: np.ufunc) -> Callable[[NpArray, Any], Any]:
    return lambda self, other: ufunc(self, other)


def _reflected(ufunc: np.ufunc) -> Callable[[NpArray, Any], Any]:
    return lambda self, other: ufunc(other, self)


def _inplace(ufunc: np.ufunc) -> Callable[[NpArray, Any], NpArray]:
    def method(self: NpArray, other: Any) -> NpArray:
        ufunc(self, other, out=(self,))
        return self
    return method


def _function_method(name: str) -> Callable[..., Any]:
    fn = getattr(np, name)

    def method(self: NpArray, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = name
    return method


def _shape_args(args: tuple[Any, ...]) -> Any:
    """`x.reshape(2, 3)` and `x.reshape((2, 3))` alike."""
    return args[0] if len(args) == 1 and (args[0] is None or isinstance(args[0], (tuple, list))) \
        else args


def reshape(self: NpArray, *shape: Any, order: str = "C", copy: bool | None = None) -> Any:
    return np.reshape(self, _shape_args(shape), order=order, copy=copy)


def transpose(self: NpArray, *axes: Any) -> Any:
    return np.transpose(self, _shape_args(axes) or None)


def flatten(self: NpArray, order: str = "C") -> Any:
    return np.copy(np.ravel(self, order=order))


def astype(self: NpArray, dtype: Any, order: str = "K", casting: str = "unsafe",
           subok: bool = True, copy: bool = True) -> Any:
    return np.astype(self, dtype, copy=copy)


def fill(self: NpArray, value: Any) -> None:
    self[...] = value


def sort(self: NpArray, axis: int = -1, kind: str | None = None, order: Any = None) -> None:
    self[...] = np.sort(self, axis=axis, kind=kind, order=order)


for _py, _ufunc in BINARY.items():
    setattr(NpArray, f"__{_py}__", _binary(_ufunc))
    setattr(NpArray, f"__r{_py}__", _reflected(_ufunc))
    setattr(NpArray, f"__i{_py}__", _inplace(_ufunc))
for _py, _ufunc in COMPARE.items():
    setattr(NpArray, f"__{_py}__", _binary(_ufunc))
for _py, _ufunc in UNARY.items():
    setattr(NpArray, f"__{_py}__", lambda self, _u=_ufunc: _u(self))
for _name in FUNCTION_METHODS:
    setattr(NpArray, _name, _function_method(_name))
NpArray.__hash__ = None  # type: ignore[assignment]  (mutable, like np.ndarray)
NpArray.__divmod__ = _binary(np.divmod)  # type: ignore[attr-defined]
NpArray.__rdivmod__ = _reflected(np.divmod)  # type: ignore[attr-defined]
NpArray.__round__ = _function_method("round")  # type: ignore[attr-defined]
NpArray.__copy__ = _function_method("copy")  # type: ignore[attr-defined]
NpArray.__deepcopy__ = lambda self, memo: np.copy(self)  # type: ignore[attr-defined]
NpArray.__contains__ = lambda self, v: bool(np.any(self == v))  # type: ignore[attr-defined]
NpArray.T = property(lambda self: np.transpose(self))  # type: ignore[attr-defined]
NpArray.mT = property(lambda self: np.matrix_transpose(self))  # type: ignore[attr-defined]
NpArray.real = property(lambda self: self)  # type: ignore[attr-defined]
NpArray.imag = property(lambda self: np.zeros_like(self))  # type: ignore[attr-defined]
for _fn in (reshape, transpose, flatten, astype, fill, sort):
    setattr(NpArray, _fn.__name__, _fn)
