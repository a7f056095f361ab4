"""TensorFlow's spellings of the standard functions (see `spellings.py`): expressions
over the function's parameter names; `tnp` is `tensorflow.experimental.numpy`.

Nearly every standard function is spelled here rather than taken from the TF lowering
rules: a rule computes an IR op whose operands already share one dtype and whose
shapes are known, while the standard's functions take mixed dtypes and Python scalars
(promoted by the standard's lattice, which TF does not do), axes as ints, tuples or
None, and default to float64/int64 where TF defaults to float32/int32. The logic that
takes more than one TF call is in `spellings_tensorflow_kernels.py`; one-call
functions convert their argument with `_arr` (a tensor passes as is; a list or NumPy
array becomes one with the namespace's default dtypes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import (
    spellings_tensorflow_elementwise,
    spellings_tensorflow_fft,
    spellings_tensorflow_kernels,
    spellings_tensorflow_linalg,
    spellings_tensorflow_reduce,
)
from .rescue import Rescued

_FLOAT_UNARY = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                "reciprocal", "sin", "sinh", "square")
"""Element-wise functions TF has under the same name in `tf.math`, for every dtype the
standard gives them (floating point; `square` also integers)."""

_KERNEL_CALLS = {
    # element-wise, two arrays: promoted first
    **{n: f"_{n}(x1, x2)" for n in (
        "add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
        "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal", "floor_divide",
        "greater", "greater_equal", "hypot", "less", "less_equal", "logaddexp",
        "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
        "nextafter", "not_equal", "pow", "remainder", "subtract")},
    # element-wise, one array: dtypes TF has no kernel for, or no TF function at all
    **{n: f"_{n}(x)" for n in (
        "abs", "bitwise_invert", "ceil", "expm1", "floor", "imag", "isfinite", "isinf",
        "isnan", "log", "log1p", "log2", "log10", "logical_not", "negative", "positive", "real",
        "round", "sign", "signbit", "sqrt", "tan", "tanh", "trunc")},
    # reductions: axis None, an int, a tuple or (); keepdims
    **{n: f"_{n}(x, axis, keepdims)" for n in (
        "all", "any", "argmax", "argmin", "count_nonzero", "max", "mean", "min")},
    **{n: f"_{n}(x, axis, _dt(dtype), keepdims)" for n in ("sum", "prod")},
    **{n: f"_{n}(x, axis, correction, keepdims)" for n in ("std", "var")},
    **{n: f"_{n}(x, axis, _dt(dtype), include_initial)" for n in (
        "cumulative_sum", "cumulative_prod")},
    **{n: f"_{n}(x)" for n in ("unique_all", "unique_counts", "unique_inverse",
                               "unique_values", "nonzero", "matrix_transpose")},
    **{f"fft.{n}": f"_{n}(x, n, axis, norm)" for n in (
        "fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{f"fft.{n}": f"_{n}(x, s, axes, norm)" for n in ("fftn", "ifftn", "rfftn", "irfftn")},
    **{f"fft.{n}": f"_{n}(n, d, _dt(dtype))" for n in ("fftfreq", "rfftfreq")},
    **{f"fft.{n}": f"_{n}(x, axes)" for n in ("fftshift", "ifftshift")},
}

_FAST_UNARY = {n: n for n in ("expm1", "log1p", "log", "sqrt", "tan", "tanh")}
"""Kernels that are one `tf.math` call for real floats (TF computes complex ones too, but
not with the standard's special cases)."""
_TRIED_UNARY = {n: n for n in ("abs", "negative", "sign", "floor", "ceil", "round")}
_TRIED_UNARY.update(isnan="is_nan", isinf="is_inf", isfinite="is_finite")
"""Kernels that are one `tf.math` call for every dtype TF takes there, which it refuses
where the standard means more (`floor` of an integer, `isnan` of one): tried as they
are, like `_FAST_BINARY`."""
_FAST_BINARY = ("add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal",
                "greater", "greater_equal", "maximum", "minimum")
"""Kernels that are one `tf.math` call for two tensors of one dtype. TF refuses two
dtypes (it never promotes) and a dtype it has no kernel for (`maximum` of bools), so the
call is tried as it is and only a refused one goes to the kernel (`rescue.Rescued`):
the common call reads no dtype (~0.1 us per read on TF's tensors)."""
_AXIS = "(axis is None or type(axis) is int)"
_FAST = {
    **{n: f"tf.math.{f}(x) if _is_tensor[type(x)] and _kind[id(x.dtype)] == 'f' "
          f"else {_KERNEL_CALLS[n]}" for n, f in _FAST_UNARY.items()},
    **{n: Rescued(f"tf.math.{f}(x) if _is_tensor[type(x)] else {_KERNEL_CALLS[n]}",
                  _KERNEL_CALLS[n]) for n, f in _TRIED_UNARY.items()},
    **{n: Rescued(f"tf.math.{n}(x1, x2) if _is_tensor[type(x1)] and type(x1) is type(x2) "
                  f"else {_KERNEL_CALLS[n]}", _KERNEL_CALLS[n])
       for n in _FAST_BINARY},
    **{n: f"tf.math.reduce_{n}(x, axis, keepdims) if _is_tensor[type(x)] and {_AXIS} and "
          f"_kind[id(x.dtype)] != 'b' else {_KERNEL_CALLS[n]}" for n in ("max", "min", "mean")},
    **{n: f"tf.math.reduce_{n}(x, axis, keepdims) if _is_tensor[type(x)] and dtype is None "
          f"and {_AXIS} and _kind[id(x.dtype)] == 'f' else {_KERNEL_CALLS[n]}"
       for n in ("sum", "prod")},
    **{n: f"tf.math.{n}(x, axis) if _is_tensor[type(x)] and type(axis) is int and not "
          f"keepdims else {_KERNEL_CALLS[n]}" for n in ("argmax", "argmin")},
    **{n: f"tf.math.reduce_{r}(x, axis, keepdims) if _is_tensor[type(x)] and correction == 0 "
          f"and {_AXIS} and _kind[id(x.dtype)] == 'f' else {_KERNEL_CALLS[n]}"
       for n, r in (("std", "std"), ("var", "variance"))},
}
"""Where the common call (tensors, real floats, one axis) is one TF call with the
standard's semantics: that call, else the kernel. The kernels give the same values on
that path; the test pays two dict lookups instead of two Python frames."""

_MATMUL = Rescued("tf.linalg.matmul(x1, x2) if _is_tensor[type(x1)] and _is_tensor[type(x2)] "
                  "and len(x1.shape) > 1 < len(x2.shape) else _matmul(x1, x2)",
                  "_matmul(x1, x2)")
"""Two tensors of matrices: TF's own call, which broadcasts the batch dimensions as the
standard does and refuses (quietly) two dtypes or one it has no kernel for (int8,
unsigned, bool), which the kernel then computes; vectors go to the kernel untried (TF
logs a warning for each refused rank), and a refused shape gets the kernel's error."""

TENSORFLOW_SPELLINGS: dict[str, str | Rescued] = {
    **{n: f"tf.math.{n}(_arr(x))" for n in _FLOAT_UNARY},
    **_KERNEL_CALLS,
    **_FAST,
    # creation: the namespace's default dtypes (float64, int64), not TF's
    "arange": "_arange(start, stop, step, _dt(dtype))",
    "asarray": "_asarray(obj, _dt(dtype), copy)",
    "empty": "tf.zeros(_shape(shape), _dt(dtype) or tf.float64)",
    "empty_like": "tf.zeros_like(_arr(x), dtype=_dt(dtype))",
    "eye": "_eye(n_rows, n_cols, k, _dt(dtype))",
    "from_dlpack": "_from_dlpack(x)",
    "full": "_full(shape, fill_value, _dt(dtype))",
    "full_like": "_full_like(x, fill_value, _dt(dtype))",
    "linspace": "_linspace(start, stop, num, _dt(dtype), endpoint)",
    "meshgrid": "_meshgrid(arrays, indexing)",
    "ones": "tf.ones(_shape(shape), _dt(dtype) or tf.float64)",
    "ones_like": "tf.ones_like(_arr(x), dtype=_dt(dtype))",
    "tril": "_tri(x, k, True)",
    "triu": "_tri(x, k, False)",
    "zeros": "tf.zeros(_shape(shape), _dt(dtype) or tf.float64)",
    "zeros_like": "tf.zeros_like(_arr(x), dtype=_dt(dtype))",
    "astype": "tf.cast(_arr(x), _dt(dtype))",
    # element-wise with extra parameters
    "clip": "_clip(x, min, max)",
    "conj": "tf.math.conj(_arr(x))",
    # indexing
    "take": "_take(x, indices, axis)",
    "take_along_axis": "_take_along_axis(x, indices, axis)",
    # linear algebra in the main namespace
    "matmul": _MATMUL,
    "tensordot": "_tensordot(x1, x2, axes)",
    "vecdot": "_vecdot(x1, x2, axis)",
    # manipulation
    "broadcast_arrays": "_broadcast_arrays(arrays)",
    "broadcast_to": "tf.broadcast_to(_arr(x), shape)",
    "concat": "_concat(arrays, axis)",
    "expand_dims": "_expand_dims(x, axis)",
    "flip": "_flip(x, axis)",
    "moveaxis": "_moveaxis(x, source, destination)",
    "permute_dims": "tf.transpose(_arr(x), axes)",
    "repeat": "_repeat(x, repeats, axis)",
    "reshape": "tf.reshape(_arr(x), shape)",
    "roll": "_roll(x, shift, axis)",
    "squeeze": "_squeeze(x, axis)",
    "stack": "_stack(arrays, axis)",
    "tile": "_tile(x, repetitions)",
    "unstack": "_unstack(x, axis)",
    # searching, sorting
    "searchsorted": "_searchsorted(x1, x2, side, sorter)",
    "where": "_where(condition, x1, x2)",
    "argsort": "_argsort(x, axis, descending, stable)",
    "sort": "_sort(x, axis, descending, stable)",
    "diff": "_diff(x, axis, n, prepend, append)",
    # linalg extension
    "linalg.cholesky": "_cholesky(x, upper)",
    "linalg.cross": "_cross(x1, x2, axis)",
    "linalg.det": "tf.linalg.det(_arr(x))",
    "linalg.diagonal": "_diagonal(x, offset)",
    "linalg.eigh": "_eigh(x)",
    "linalg.eigvalsh": "tf.linalg.eigvalsh(_arr(x))",
    "linalg.inv": "tf.linalg.inv(_arr(x))",
    "linalg.matmul": _MATMUL,
    "linalg.matrix_norm": "_matrix_norm(x, keepdims, ord)",
    "linalg.matrix_power": "_matrix_power(x, n)",
    "linalg.matrix_rank": "_matrix_rank(x, rtol)",
    "linalg.matrix_transpose": "_matrix_transpose(x)",
    "linalg.outer": "_outer(x1, x2)",
    "linalg.pinv": "_pinv(x, rtol)",
    "linalg.qr": "_qr(x, mode)",
    "linalg.slogdet": "_slogdet(x)",
    "linalg.solve": "_solve(x1, x2)",
    # registry ops a one-op program would otherwise run (a tf.function call each time)
    "one_hot": "tf.one_hot(indices, depth, axis=axis, dtype=_dt(dtype)) if _kind[id(_dt(dtype))] "
               "in 'fc' else tf.cast(tf.one_hot(indices, depth, axis=axis, dtype=tf.int32), "
               "_dt(dtype))",
    "scatter_add": "(tf.tensor_scatter_nd_add(x, indices, updates) if indices.shape.rank > 1 "
                   "else tf.tensor_scatter_nd_add(x, indices[None], updates[None])) if "
                   "indices.shape[-1] else x + tf.reduce_sum(updates, 0)",
    "linalg.svd": "_svd(x, full_matrices)",
    "linalg.svdvals": "_svdvals(x)",
    "linalg.tensordot": "_tensordot(x1, x2, axes)",
    "linalg.trace": "_trace(x, offset, _dt(dtype))",
    "linalg.vecdot": "_vecdot(x1, x2, axis)",
    "linalg.vector_norm": "_vector_norm(x, axis, keepdims, ord)",
}

TENSORFLOW_SKIP_RULES: frozenset[str] = frozenset()

TENSORFLOW_KERNELS: dict[str, Callable[..., Any]] = {
    name: value
    for module in (spellings_tensorflow_kernels, spellings_tensorflow_elementwise,
                   spellings_tensorflow_linalg, spellings_tensorflow_reduce,
                   spellings_tensorflow_fft)
    for name, value in vars(module).items()
    if name.startswith("_") and not name.startswith("__") and callable(value)
    and not isinstance(value, type)}
TENSORFLOW_KERNELS.update(_kind=spellings_tensorflow_kernels.KINDS,
                          _is_tensor=spellings_tensorflow_kernels.IS_TENSOR)
"""What the spellings may call by name (every private function of the kernel files, and
the dtype-kind and tensor-type tables of the fast paths)."""
