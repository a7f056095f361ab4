"""References for creation, dtype, elementwise, selection and reduction ops."""

from __future__ import annotations

import math

import numpy as np
from op_refs_common import (
    ANY,
    FLOAT,
    INT,
    INTBOOL,
    NUM,
    arr,
    axes_subset,
    boolean,
    bshapes,
    case,
    f64,
    integer,
    like,
    pick,
    shape,
)

# ---- creation ----


def _constant(d):
    dt = pick(d, ANY)
    return [], {"value": arr(d, dt, shape(d))}


case("constant", _constant, lambda value: value)


def _arange(d):
    dt = pick(d, NUM)
    start, n = integer(d, -5, 5), integer(d, 0, 6)
    step = pick(d, [1.0, 2.0, -1.0, -3.0] + ([0.5, 0.25] if dt in FLOAT else []))
    return [], {"start": float(start), "stop": start + step * n + (step / 2 if boolean(d) else 0),
                "step": step, "dtype": dt}


def _arange_ref(start, stop, step, dtype):
    n = max(0, math.ceil((stop - start) / step))
    return (start + step * np.arange(n, dtype=np.float64)).astype(dtype)


case("arange", _arange, _arange_ref)


def _shaped(fill):
    def draw(d):
        attrs = {"shape": list(shape(d)), "dtype": pick(d, ANY)}
        if fill:
            attrs["fill_value"] = float(integer(d, -5, 5)) if attrs["dtype"] != "bool" \
                else float(integer(d, 0, 1))
        return [], attrs
    return draw


case("full", _shaped(True), lambda shape, fill_value, dtype:
     np.full(shape, fill_value, dtype=np.float64).astype(dtype))
case("zeros", _shaped(False), lambda shape, dtype: np.zeros(shape, dtype=dtype))
case("ones", _shaped(False), lambda shape, dtype: np.ones(shape, dtype=dtype))


def _eye(d):
    r = integer(d, 0, 5)
    return [], {"n_rows": r, "n_cols": pick(d, [None, 0, 1, 3, 6]), "k": integer(d, -3, 3),
                "dtype": pick(d, ANY)}


def _eye_ref(n_rows, n_cols, k, dtype):
    c = n_rows if n_cols is None else n_cols
    return (np.arange(n_rows)[:, None] + k == np.arange(c)[None, :]).astype(dtype)


case("eye", _eye, _eye_ref)


def _linspace(d):
    return [], {"start": float(integer(d, -5, 5)), "stop": float(integer(d, -5, 5)),
                "num": integer(d, 0, 7), "endpoint": boolean(d), "dtype": pick(d, FLOAT)}


def _linspace_ref(start, stop, num, endpoint, dtype):
    div = (num - 1 if endpoint else num) or 1
    return (start + (stop - start) * np.arange(num) / div).astype(dtype)


case("linspace", _linspace, _linspace_ref)


def _tri(d):
    return [arr(d, pick(d, ANY), shape(d, 2, 4))], {"k": integer(d, -3, 3)}


def _tri_ref(lower):
    def ref(x, k):
        i, j = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
        keep = (j - i <= k) if lower else (j - i >= k)
        return np.where(keep, x, np.zeros((), x.dtype))
    return ref


case("tril", _tri, _tri_ref(True))
case("triu", _tri, _tri_ref(False))


def _one_hot(d):
    depth = integer(d, 0, 5)
    s = shape(d, 0, 2)
    idx = arr(d, pick(d, INT), s, 0, depth - 1) if depth else np.zeros((0,), "int64")
    rank = idx.ndim + 1
    return [idx], {"depth": depth, "dtype": pick(d, ANY), "axis": integer(d, -rank, rank - 1)}


def _one_hot_ref(indices, depth, dtype, axis):
    hot = indices[..., None] == np.arange(depth)
    return np.moveaxis(hot, -1, axis).astype(dtype)


case("one_hot", _one_hot, _one_hot_ref)


def _like(fill):
    def draw(d):
        attrs = {"dtype": pick(d, [None] + ANY)}
        if fill:
            attrs["fill_value"] = float(integer(d, 0, 1))
        return [arr(d, pick(d, ANY), shape(d))], attrs
    return draw


def _like_ref(value):
    def ref(x, dtype, fill_value=None):
        v = value if fill_value is None else fill_value
        return np.full(x.shape, v, dtype=np.float64).astype(dtype or x.dtype)
    return ref


case("zeros_like", _like(False), _like_ref(0.0))
case("ones_like", _like(False), _like_ref(1.0))
case("full_like", _like(True), _like_ref(None))

# ---- dtype and broadcasting ----


def _astype(d):
    return [arr(d, pick(d, ANY), shape(d), -100, 100)], {"dtype": pick(d, ANY)}


case("astype", _astype, lambda x, dtype: x.astype(dtype))


def _broadcast_to(d):
    target = shape(d)
    drop = integer(d, 0, len(target))
    src = tuple(1 if boolean(d) else t for t in target[drop:])
    return [arr(d, pick(d, ANY), src)], {"shape": list(target)}


case("broadcast_to", _broadcast_to, lambda x, shape: np.broadcast_to(x, shape))

# ---- unary elementwise ----


def unary(name, ref, dtypes, lo=-10.0, hi=10.0, special=False, keep=True, **kw):
    def draw(d):
        return [arr(d, pick(d, dtypes), shape(d), lo, hi, special=special and boolean(d))], {}

    def full_ref(x):
        out = ref(x if x.dtype.kind in "biu" else f64(x))
        return like(out, x) if keep else np.asarray(out)
    case(name, draw, full_ref, **kw)


_erf = np.vectorize(math.erf, otypes=[np.float64])
unary("abs", np.abs, NUM)
unary("negative", lambda x: -x, NUM)
unary("sign", np.sign, NUM)
unary("sqrt", np.sqrt, FLOAT, 0, 100)
unary("rsqrt", lambda x: 1 / np.sqrt(x), FLOAT, 0.01, 100)
unary("square", lambda x: x * x, NUM)
unary("reciprocal", lambda x: 1 / x, FLOAT, 0.1, 10)
unary("exp", np.exp, FLOAT)
unary("expm1", np.expm1, FLOAT)
unary("log", np.log, FLOAT, 0.001, 100)
unary("log1p", np.log1p, FLOAT, -0.99, 100)
unary("log2", np.log2, FLOAT, 0.001, 100)
unary("log10", np.log10, FLOAT, 0.001, 100)
unary("sin", np.sin, FLOAT)
unary("cos", np.cos, FLOAT)
unary("tan", np.tan, FLOAT, -1.5, 1.5)
unary("asin", np.arcsin, FLOAT, -1, 1)
unary("acos", np.arccos, FLOAT, -1, 1)
unary("atan", np.arctan, FLOAT)
unary("sinh", np.sinh, FLOAT)
unary("cosh", np.cosh, FLOAT)
unary("tanh", np.tanh, FLOAT)
unary("asinh", np.arcsinh, FLOAT)
unary("acosh", np.arccosh, FLOAT, 1, 100)
unary("atanh", np.arctanh, FLOAT, -0.99, 0.99)
unary("erf", _erf, FLOAT, -4, 4)
unary("erfc", np.vectorize(math.erfc, otypes=[np.float64]), FLOAT, -4, 9)
unary("floor", np.floor, FLOAT)
unary("ceil", np.ceil, FLOAT)
unary("round", np.rint, FLOAT)  # half to even
unary("trunc", np.trunc, FLOAT)
unary("isnan", lambda x: x != x, NUM, special=True, keep=False)
unary("isinf", lambda x: np.abs(x) == np.inf, NUM, special=True, keep=False)
unary("isfinite", lambda x: (x == x) & (np.abs(x) != np.inf), NUM, special=True, keep=False)
unary("logical_not", lambda x: ~x, ["bool"])
unary("stop_gradient", lambda x: x, ANY)  # its gradient: tests/test_stop_gradient.py
unary("bitwise_invert", lambda x: ~x, INTBOOL, -1000, 1000)

# ---- binary elementwise ----


def binary(name, ref, dtypes, lo=-10.0, hi=10.0, ylo=None, yhi=None, nonzero=False,
           integral=False, keep=True, **kw):
    def draw(d):
        dt = pick(d, dtypes)
        sx, sy = bshapes(d)
        x = arr(d, dt, sx, lo, hi, integral=integral)
        y = arr(d, dt, sy, lo if ylo is None else ylo, hi if yhi is None else yhi,
                integral=integral)
        if nonzero:
            y = np.where(y == 0, np.ones((), y.dtype), y)
        return [x, y], {}

    def full_ref(x, y):
        out = ref(x, y) if x.dtype.kind in "biu" else ref(f64(x), f64(y))
        return like(out, x) if keep else np.asarray(out)
    case(name, draw, full_ref, **kw)


binary("add", lambda x, y: x + y, NUM)
binary("subtract", lambda x, y: x - y, NUM)
binary("multiply", lambda x, y: x * y, NUM)
binary("divide", lambda x, y: x / y, FLOAT, nonzero=True)
binary("floor_divide", lambda x, y: np.floor(x / y) if x.dtype.kind == "f" else x // y, NUM,
       integral=True, nonzero=True)
binary("remainder", lambda x, y: x - np.floor(x / y) * y if x.dtype.kind == "f" else x % y, NUM,
       integral=True, nonzero=True)
binary("maximum", np.maximum, NUM)
binary("minimum", np.minimum, NUM)
binary("atan2", np.arctan2, FLOAT)
binary("equal", lambda x, y: x == y, ANY, -2, 2, integral=True, keep=False)
binary("not_equal", lambda x, y: x != y, ANY, -2, 2, integral=True, keep=False)
binary("less", lambda x, y: x < y, NUM, -2, 2, integral=True, keep=False)
binary("less_equal", lambda x, y: x <= y, NUM, -2, 2, integral=True, keep=False)
binary("greater", lambda x, y: x > y, NUM, -2, 2, integral=True, keep=False)
binary("greater_equal", lambda x, y: x >= y, NUM, -2, 2, integral=True, keep=False)
binary("logical_and", lambda x, y: x & y, ["bool"])
binary("logical_or", lambda x, y: x | y, ["bool"])
binary("logical_xor", lambda x, y: x ^ y, ["bool"])
binary("bitwise_and", lambda x, y: x & y, INTBOOL, -1000, 1000)
binary("bitwise_or", lambda x, y: x | y, INTBOOL, -1000, 1000)
binary("bitwise_xor", lambda x, y: x ^ y, INTBOOL, -1000, 1000)
binary("bitwise_left_shift", lambda x, y: x * (np.ones((), x.dtype) << y), INT, -1000, 1000,
       0, 20)
binary("bitwise_right_shift", lambda x, y: np.floor_divide(x, np.ones((), x.dtype) << y), INT,
       -10**6, 10**6, 0, 30)


def _pow(d):
    dt = pick(d, NUM)
    sx, sy = bshapes(d)
    if dt in INT:
        return [arr(d, dt, sx, -5, 5), arr(d, dt, sy, 0, 4)], {}
    return [arr(d, dt, sx, 0.1, 5), arr(d, dt, sy, -3, 3)], {}


case("pow", _pow, lambda x, y: like(np.exp(np.log(f64(x)) * y), x) if x.dtype.kind == "f"
     else x ** y)

# ---- selection ----


def _where(d):
    sc, sx, sy = bshapes(d, 3)
    dt = pick(d, ANY)
    return [arr(d, "bool", sc), arr(d, dt, sx), arr(d, dt, sy)], {}


case("where", _where, lambda condition, x, y: np.where(condition, x, y))


def _clip(d):
    dt = pick(d, NUM)
    a, b = sorted([float(integer(d, -8, 8)), float(integer(d, -8, 8))])
    if dt in FLOAT and boolean(d):
        a, b = a - 0.25, b + 0.5
    return [arr(d, dt, shape(d))], {"min": pick(d, [None, a]), "max": pick(d, [None, b])}


def _clip_ref(x, min, max):
    y = f64(x)
    if min is not None:
        y = np.where(y < min, min, y)
    if max is not None:
        y = np.where(y > max, max, y)
    return like(y, x)


case("clip", _clip, _clip_ref)

# ---- reductions and scans ----


def reduction(name, ref, dtypes, min_side=0, lo=-10, hi=10, extra=None, **kw):
    def draw(d):
        x = arr(d, pick(d, dtypes), shape(d, min_side=min_side), lo, hi)
        attrs = {"axis": axes_subset(d, x.ndim), "keepdims": boolean(d)}
        if extra:
            attrs.update(extra(d, x, attrs))
        return [x], attrs

    def full_ref(x, axis, keepdims, **more):
        ax = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
        return ref(x, ax, keepdims, **more)
    case(name, draw, full_ref, **kw)


def _var(x, ax, keepdims, correction, sqrt=False):
    y = f64(x)
    n = math.prod(x.shape[a] for a in ax)
    dev = y - y.mean(axis=ax, keepdims=True)
    v = (dev * dev).sum(axis=ax, keepdims=keepdims) / (n - correction)
    return like(np.sqrt(v) if sqrt else v, x)


def _correction(d, x, attrs):
    ax = range(x.ndim) if attrs["axis"] is None else attrs["axis"]
    n = math.prod(x.shape[a] for a in ax)
    return {"correction": pick(d, [0.0, 1.0]) if n > 1 else 0.0}


def _lse(x, ax, keepdims):
    y = f64(x)
    m = y.max(axis=ax, keepdims=True)
    return like(np.log(np.exp(y - m).sum(axis=ax, keepdims=True)) + m
                if keepdims else np.squeeze(np.log(np.exp(y - m).sum(axis=ax, keepdims=True))
                                            + m, ax), x)


reduction("sum", lambda x, ax, k: np.add.reduce(x, axis=ax, keepdims=k, dtype=x.dtype), NUM)
reduction("prod", lambda x, ax, k: np.multiply.reduce(x, axis=ax, keepdims=k, dtype=x.dtype),
          NUM, lo=-3, hi=3)
reduction("mean", lambda x, ax, k: like(f64(x).sum(ax, keepdims=k) /
                                        math.prod(x.shape[a] for a in ax), x), FLOAT, 1)
reduction("var", lambda x, ax, k, correction: _var(x, ax, k, correction), FLOAT, 1,
          extra=_correction)
reduction("std", lambda x, ax, k, correction: _var(x, ax, k, correction, True), FLOAT, 1,
          extra=_correction)
reduction("min", lambda x, ax, k: np.minimum.reduce(x, axis=ax, keepdims=k), NUM, 1)
reduction("max", lambda x, ax, k: np.maximum.reduce(x, axis=ax, keepdims=k), NUM, 1)
reduction("all", lambda x, ax, k: np.logical_and.reduce(x != 0, axis=ax, keepdims=k), ANY,
          lo=-1, hi=1)
reduction("any", lambda x, ax, k: np.logical_or.reduce(x != 0, axis=ax, keepdims=k), ANY,
          lo=-1, hi=1)
reduction("logsumexp", _lse, FLOAT, 1)


def _arg(d):
    x = arr(d, pick(d, NUM), shape(d, min_side=1), -3, 3)
    axis = None if x.ndim == 0 or boolean(d) else integer(d, -x.ndim, x.ndim - 1)
    return [x], {"axis": axis, "keepdims": boolean(d)}


def _arg_ref(best):
    def ref(x, axis, keepdims):
        flat = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)
        target = best(flat, axis=-1, keepdims=True)
        first = np.argmax(flat == target, axis=-1)  # first index holding the extreme
        if axis is None:
            return np.asarray(first).reshape((1,) * x.ndim if keepdims else ()).astype(np.int64)
        return (np.expand_dims(first, axis) if keepdims else first).astype(np.int64)
    return ref


case("argmax", _arg, _arg_ref(np.max))
case("argmin", _arg, _arg_ref(np.min))


def _scan(lo, hi, dtypes=NUM, special=False):
    def draw(d):
        dtype = pick(d, dtypes)
        x = arr(d, dtype, shape(d, 1), lo, hi, special=special and dtype in FLOAT and boolean(d))
        return [x], {"axis": integer(d, -x.ndim, x.ndim - 1)}
    return draw


def _scan_ref(step):
    def ref(x, axis):
        y = np.moveaxis(x.astype(np.float64) if x.dtype.kind == "f" else x, axis, 0).copy()
        for i in range(1, y.shape[0]):
            y[i] = step(y[i - 1], y[i])
        return like(np.moveaxis(y, 0, axis), x)
    return ref


case("cumsum", _scan(-10, 10), _scan_ref(lambda a, b: a + b))
case("cumprod", _scan(-3, 3), _scan_ref(lambda a, b: a * b))
case("cummax", _scan(-10, 10, special=True), _scan_ref(np.maximum))
case("cummin", _scan(-10, 10, special=True), _scan_ref(np.minimum))
case("logcumsumexp", _scan(-30, 30, FLOAT, special=True), _scan_ref(np.logaddexp))
