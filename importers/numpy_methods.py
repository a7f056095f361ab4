"""Operators and ndarray methods of the traced array (`ArrayMethods`, the base class of
`numpy_array.NpArray`), each routed through the NumPy function or ufunc that
`np.ndarray` itself uses, so one handler per NumPy call covers the operator, the method
and the function spelling (`a + b`, `np.add(a, b)`; `x.sum()`, `np.sum(x)`). In-place
operators pass `out=` and keep NumPy's casting rule. Conversions that need the data
(`bool(x)`, `int(x)`, `np.asarray(x)`) raise `TraceError` at the user's line.

This module calls NumPy only: the calls come back to the array's `__array_ufunc__` /
`__array_function__`, so it needs nothing of the importer and sits below `numpy_array`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

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
NEEDS_DATA = {
    "__bool__": "the truth value (if/while/and/or/not)", "__int__": "int()",
    "__float__": "float()", "__complex__": "complex()",
    "__index__": "use as a Python integer", "item": "ndarray.item()",
    "tolist": "ndarray.tolist()",
    "__array__": "conversion to a concrete NumPy array (np.asarray, np.array, storing it "
                 "into or indexing a NumPy array, or a NumPy function that only dispatches "
                 "on its other arguments, such as np.take(numpy_array, traced_indices))",
}
"""Conversions that need the array's data, and how the error names them."""


def _binary(ufunc: np.ufunc) -> Callable[[Any, Any], Any]:
    return lambda self, other: ufunc(self, other)


def _reflected(ufunc: np.ufunc) -> Callable[[Any, Any], Any]:
    return lambda self, other: ufunc(other, self)


def _unary(ufunc: np.ufunc) -> Callable[[Any], Any]:
    return lambda self: ufunc(self)


def _inplace(ufunc: np.ufunc) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        ufunc(self, other, out=(self,))
        return self
    return method


def _function_method(name: str) -> Callable[..., Any]:
    fn = getattr(np, name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = name
    return method


def _needs_data(what: str) -> Callable[..., Any]:
    """A conversion that needs the data: not known while tracing."""
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.session.here()
        raise self.session.trace_error(
            f"{what} of a traced array needs its data, which is not known while tracing "
            "(data-dependent Python control flow or conversion); use array operations "
            "such as np.where instead")
    method.__name__ = what
    return method


def _shape_args(args: tuple[Any, ...]) -> Any:
    """`x.reshape(2, 3)` and `x.reshape((2, 3))` alike."""
    return args[0] if len(args) == 1 and (args[0] is None or isinstance(args[0], (tuple, list))) \
        else args


class ArrayMethods:
    """The ndarray API of a traced array, spelled as NumPy calls; the subclass gives the
    array's `session`, its `__array_ufunc__`/`__array_function__` and indexing."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  (mutable, like np.ndarray)

    def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> Any:
        return np.reshape(self, _shape_args(shape), order=order, copy=copy)

    def transpose(self, *axes: Any) -> Any:
        return np.transpose(self, _shape_args(axes) or None)

    def flatten(self, order: str = "C") -> Any:
        return np.copy(np.ravel(self, order=order))

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe",
               subok: bool = True, copy: bool = True) -> Any:
        return np.astype(self, dtype, copy=copy)

    def fill(self, value: Any) -> None:
        self[...] = value  # type: ignore[index]

    def sort(self, axis: int = -1, kind: str | None = None, order: Any = None) -> None:
        self[...] = np.sort(self, axis=axis, kind=kind, order=order)  # type: ignore[index]

    def __deepcopy__(self, memo: Any) -> Any:
        return np.copy(self)

    def __contains__(self, v: Any) -> bool:
        return bool(np.any(self == v))

    @property
    def T(self) -> Any:
        return np.transpose(self)

    @property
    def mT(self) -> Any:
        return np.matrix_transpose(self)

    @property
    def real(self) -> Any:
        return np.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        np.real(self)[...] = value

    @property
    def imag(self) -> Any:
        return np.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        np.imag(self)[...] = value


for _py, _ufunc in BINARY.items():
    setattr(ArrayMethods, f"__{_py}__", _binary(_ufunc))
    setattr(ArrayMethods, f"__r{_py}__", _reflected(_ufunc))
    setattr(ArrayMethods, f"__i{_py}__", _inplace(_ufunc))
for _py, _ufunc in COMPARE.items():
    setattr(ArrayMethods, f"__{_py}__", _binary(_ufunc))
for _py, _ufunc in UNARY.items():
    setattr(ArrayMethods, f"__{_py}__", _unary(_ufunc))
for _name in FUNCTION_METHODS:
    setattr(ArrayMethods, _name, _function_method(_name))
for _name, _what in NEEDS_DATA.items():
    setattr(ArrayMethods, _name, _needs_data(_what))
ArrayMethods.__divmod__ = _binary(np.divmod)  # type: ignore[attr-defined]
ArrayMethods.__rdivmod__ = _reflected(np.divmod)  # type: ignore[attr-defined]
ArrayMethods.__round__ = _function_method("round")  # type: ignore[attr-defined]
ArrayMethods.__copy__ = _function_method("copy")  # type: ignore[attr-defined]
