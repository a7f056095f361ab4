"""References for activations, neural-network layers and random ops.

Composite ops are lowered by decomposition, so their references are written from the
math definitions (in float64), or taken from torch.nn.functional in float64.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch
import torch.nn.functional as tf
from hypothesis import strategies as st
from op_refs_common import (
    FLOAT,
    NUM,
    arr,
    boolean,
    bshapes,
    case,
    f64,
    integer,
    like,
    pick,
    shape,
)

NORM_TOL = {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-10)}
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    bx = beta * x
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


def activation(name, ref, dtypes=FLOAT, lo=-10.0, hi=10.0, attrs=None):
    def draw(d):
        return [arr(d, pick(d, dtypes), shape(d), lo, hi)], (attrs(d) if attrs else {})

    def full_ref(x, **kw):
        return like(ref(f64(x), **kw), x) if x.dtype.kind == "f" else ref(x, **kw).astype(x.dtype)
    case(name, draw, full_ref)


activation("relu", lambda x: np.where(x > 0, x, 0), NUM)
activation("relu6", lambda x: np.where(x < 0, 0, np.where(x > 6, 6, x)))
activation("leaky_relu", lambda x, alpha: np.where(x >= 0, x, alpha * x),
           attrs=lambda d: {"alpha": pick(d, [0.01, 0.2, 1.5])})
activation("elu", lambda x, alpha: np.where(x > 0, x, alpha * (np.exp(x) - 1)),
           attrs=lambda d: {"alpha": pick(d, [1.0, 0.5, 2.0])})
activation("gelu", lambda x, approximate: 0.5 * x * (1 + (
    np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)) if approximate == "tanh"
    else _erf(x / math.sqrt(2)))), attrs=lambda d: {"approximate": pick(d, ["none", "tanh"])})
activation("silu", lambda x: x * _sigmoid(x))
activation("sigmoid", _sigmoid, lo=-30, hi=30)
activation("hard_sigmoid", lambda x: np.minimum(np.maximum(x / 6 + 0.5, 0), 1))
activation("hardswish", lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6)
activation("mish", lambda x: x * np.tanh(np.logaddexp(0, x)))
activation("softplus", _softplus, lo=-30, hi=30, attrs=lambda d: {
    "beta": pick(d, [1.0, 2.0, 0.5]), "threshold": pick(d, [20.0, 5.0, 1.0])})


def _axis_act(d):
    x = arr(d, pick(d, FLOAT), shape(d, 1, min_side=1), -20, 20)
    return [x], {"axis": integer(d, -x.ndim, x.ndim - 1)}


def _softmax(x, axis):
    y = f64(x)
    e = np.exp(y - y.max(axis=axis, keepdims=True))
    return like(e / e.sum(axis=axis, keepdims=True), x)


def _log_softmax(x, axis):
    y = f64(x)
    m = y.max(axis=axis, keepdims=True)
    return like(y - m - np.log(np.exp(y - m).sum(axis=axis, keepdims=True)), x)


case("softmax", _axis_act, _softmax)
case("log_softmax", _axis_act, _log_softmax)

# ---- layers ----


def _linear(d):
    dt = pick(d, FLOAT)
    n_in, n_out = integer(d, 0, 4), integer(d, 0, 4)
    x = arr(d, dt, shape(d, 0, 2) + (n_in,), -3, 3)
    w = arr(d, dt, (n_out, n_in), -3, 3)
    return [x, w, arr(d, dt, (n_out,), -3, 3) if boolean(d) else None], {}


def _linear_ref(x, weight, bias):
    y = np.einsum("...i,oi->...o", f64(x), f64(weight))
    return like(y if bias is None else y + f64(bias), x)


case("linear", _linear, _linear_ref, tol=NORM_TOL)


def _t(a):
    return torch.from_numpy(f64(a).copy())


def _to_first(x, layout):
    return x if layout == "channels_first" else np.moveaxis(x, -1, 1)


def _from_first(y, layout):
    return y if layout == "channels_first" else np.moveaxis(y, 1, -1)


def _conv_draw(transpose):
    def draw(d):
        dt, n = pick(d, FLOAT), integer(d, 1, 2)
        g = integer(d, 1, 2)
        cin, cout = g * integer(d, 1, 2), g * integer(d, 1, 2)
        ks = [integer(d, 1, 3) for _ in range(n)]
        strides = [integer(d, 1, 2) for _ in range(n)]
        dil = [integer(d, 1, 2) for _ in range(n)]
        pad, sp = [], []
        for i in range(n):
            lo, hi = integer(d, 0, 2), integer(d, 0, 2)
            span = dil[i] * (ks[i] - 1) + 1
            sp.append(integer(d, max(1, span - lo - hi), span + 3) if not transpose
                      else integer(d, 1, 4))
            pad += [lo, hi]
        layout = pick(d, ["channels_first", "channels_last"])
        x = arr(d, dt, (integer(d, 1, 2), cin, *sp), -2, 2)
        wshape = (cin, cout // g, *ks) if transpose else (cout, cin // g, *ks)
        w = arr(d, dt, wshape, -2, 2)
        b = arr(d, dt, (cout,), -2, 2) if boolean(d) else None
        if layout == "channels_last":
            x, w = np.moveaxis(x, 1, -1), np.moveaxis(w, (0, 1), (-1, -2))
        attrs = {"strides": strides, "padding": pad, "dilations": dil, "groups": g,
                 "layout": layout}
        if transpose:
            if not boolean(d):
                # output padding must stay below the stride or the dilation and inside
                # the cropped part of the full output (hi padding absorbs the rest)
                attrs["output_padding"] = [0] * n
            else:
                attrs["output_padding"] = [integer(d, 0, max(s, dl) - 1)
                                           for s, dl in zip(strides, dil)]
            for i in range(n):  # keep the output non-empty
                full = (sp[i] - 1) * strides[i] + dil[i] * (ks[i] - 1) + 1
                if full + attrs["output_padding"][i] - pad[2 * i] - pad[2 * i + 1] < 1:
                    pad[2 * i] = pad[2 * i + 1] = 0
        return [x, w, b], attrs
    return draw


def _conv_ref(x, weight, bias, strides, padding, dilations, groups, layout):
    n = x.ndim - 2
    xf = _to_first(x, layout)
    wf = weight if layout == "channels_first" else np.moveaxis(weight, (-1, -2), (0, 1))
    tpad = [p for i in reversed(range(n)) for p in (padding[2 * i], padding[2 * i + 1])]
    xt = tf.pad(_t(xf), tpad)
    fn = [tf.conv1d, tf.conv2d, tf.conv3d][n - 1]
    y = fn(xt, _t(wf), None if bias is None else _t(bias), stride=strides,
           dilation=dilations, groups=groups).numpy()
    return like(_from_first(y, layout), x)


def _conv_t_ref(x, weight, bias, strides, padding, output_padding, dilations, groups, layout):
    n = x.ndim - 2
    xf = _to_first(x, layout)
    wf = weight if layout == "channels_first" else np.moveaxis(weight, (-1, -2), (0, 1))
    fn = [tf.conv_transpose1d, tf.conv_transpose2d, tf.conv_transpose3d][n - 1]
    # full (unpadded) transposed conv, with output_padding appended, then cropped
    y = fn(_t(xf), _t(wf), None, stride=strides, dilation=dilations, groups=groups).numpy()
    y = np.pad(y, [(0, 0), (0, 0)] + [(0, p) for p in output_padding])
    idx = tuple(slice(padding[2 * i], y.shape[2 + i] - padding[2 * i + 1]) for i in range(n))
    y = y[(slice(None), slice(None)) + idx]
    if bias is not None:
        y = y + f64(bias).reshape((-1,) + (1,) * n)
    return like(_from_first(y, layout), x)


case("conv", _conv_draw(False), _conv_ref, tol=NORM_TOL)
case("conv_transpose", _conv_draw(True), _conv_t_ref, tol=NORM_TOL)


def _out_dim(d, k, s, lo, hi, dil, ceil_mode):
    span = d + lo + hi - dil * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= d + lo:
        out -= 1
    return out


def _pool_draw(dtypes, avg):
    def draw(d):
        dt, n = pick(d, dtypes), integer(d, 1, 2)
        ks = [integer(d, 1, 3) for _ in range(n)]
        pad = [integer(d, 0, k // 2) for k in ks for _ in range(2)]
        dil = [1] * n if avg else [integer(d, 1, 2) for _ in range(n)]
        strides, ceil_mode = [integer(d, 1, 3) for _ in range(n)], boolean(d)
        # ceil mode keeps a last window that starts inside the input: one wider than the
        # whole padded dim still gives a result where the stride lets it start there
        sp = [integer(d, max(1, dl * (k - 1) + 2 - s - pad[2 * i] - pad[2 * i + 1])
                      if ceil_mode else dl * (k - 1) + 1, 6)
              for i, (k, dl, s) in enumerate(zip(ks, dil, strides))]
        x = arr(d, dt, (integer(d, 1, 2), integer(d, 1, 2), *sp), -5, 5)
        layout = pick(d, ["channels_first", "channels_last"])
        attrs = {"kernel": ks, "strides": strides, "padding": pad, "ceil_mode": ceil_mode,
                 "layout": layout}
        if avg:
            attrs["count_include_pad"] = boolean(d)
        else:
            attrs["dilations"] = dil if boolean(d) else None
        return [_from_first(x, layout)], attrs
    return draw


def _pool_ref(avg):
    def ref(x, kernel, strides, padding, ceil_mode, layout, dilations=None,
            count_include_pad=True):
        xf = f64(_to_first(x, layout))
        n = xf.ndim - 2
        dil = dilations or [1] * n
        sp = xf.shape[2:]
        outs = [_out_dim(sp[i], kernel[i], strides[i], padding[2 * i], padding[2 * i + 1],
                         dil[i], ceil_mode) for i in range(n)]
        y = np.zeros(xf.shape[:2] + tuple(outs))
        for o in itertools.product(*map(range, outs)):
            vals, total = [], 0
            for w in itertools.product(*map(range, kernel)):
                pos = [o[i] * strides[i] + w[i] * dil[i] - padding[2 * i] for i in range(n)]
                if all(p < sp[i] + padding[2 * i + 1] for i, p in enumerate(pos)):
                    total += 1
                if all(0 <= p < sp[i] for i, p in enumerate(pos)):
                    vals.append(xf[(slice(None), slice(None), *pos)])
            if avg:
                div = total if count_include_pad else len(vals)
                y[(slice(None), slice(None), *o)] = sum(vals) / div
            else:  # a dilated window may hold padding only: the lowest value (torch's)
                y[(slice(None), slice(None), *o)] = np.max(vals, axis=0) if vals else \
                    -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        return like(_from_first(y, layout), x)
    return ref


case("max_pool", _pool_draw(NUM, False), _pool_ref(False))
case("avg_pool", _pool_draw(FLOAT, True), _pool_ref(True))


def _spatial_draw(d, **extra):
    dt, n = pick(d, FLOAT), integer(d, 1, 2)
    x = arr(d, dt, (integer(d, 1, 2), integer(d, 1, 2), *[integer(d, 1, 5) for _ in range(n)]))
    layout = pick(d, ["channels_first", "channels_last"])
    return x, layout, n


def _adaptive(d):
    x, layout, n = _spatial_draw(d)
    return [_from_first(x, layout)], {"output_size": [integer(d, 1, 4) for _ in range(n)],
                                      "layout": layout}


def _adaptive_ref(x, output_size, layout):
    xf = f64(_to_first(x, layout))
    sp = xf.shape[2:]
    y = np.zeros(xf.shape[:2] + tuple(output_size))
    for o in itertools.product(*map(range, output_size)):
        win = tuple(slice(o[i] * sp[i] // output_size[i],
                          -(-(o[i] + 1) * sp[i] // output_size[i])) for i in range(len(sp)))
        y[(slice(None), slice(None), *o)] = xf[(slice(None), slice(None), *win)].mean(
            axis=tuple(range(2, xf.ndim)))
    return like(_from_first(y, layout), x)


case("adaptive_avg_pool", _adaptive, _adaptive_ref, tol=NORM_TOL)


def _interp(d):
    x, layout, n = _spatial_draw(d)
    mode = "bilinear" if n == 2 and boolean(d) else "nearest"
    return [_from_first(x, layout)], {"size": [integer(d, 1, 7) for _ in range(n)],
                                      "mode": mode, "align_corners": mode == "bilinear"
                                      and boolean(d), "layout": layout}


def _interp_ref(x, size, mode, align_corners, layout):
    xt = _t(_to_first(x, layout))
    y = tf.interpolate(xt, size=size, mode=mode,
                       align_corners=align_corners if mode == "bilinear" else None).numpy()
    return like(_from_first(y, layout), x)


case("interpolate", _interp, _interp_ref, tol=NORM_TOL)


def _norm_draw(with_bias):
    def draw(d):
        dt = pick(d, FLOAT)
        x = arr(d, dt, shape(d, 1, 3, 1), -5, 5)
        ax = sorted(d.draw(st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True)))
        pshape = tuple(x.shape[a] for a in ax)
        ops = [x, arr(d, dt, pshape, -2, 2) if boolean(d) else None]
        if with_bias:
            ops.append(arr(d, dt, pshape, -2, 2) if boolean(d) else None)
        return ops, {"axis": [a - x.ndim if boolean(d) else a for a in ax],
                     "eps": pick(d, [1e-5, 1e-3])}
    return draw


def _param(p, x, axes):
    return f64(p).reshape([x.shape[i] if i in axes else 1 for i in range(x.ndim)])


def _layer_norm_ref(x, weight, bias, axis, eps):
    ax = tuple(sorted(a % x.ndim for a in axis))
    y = f64(x)
    mu = y.mean(axis=ax, keepdims=True)
    var = ((y - mu) ** 2).mean(axis=ax, keepdims=True)
    out = (y - mu) / np.sqrt(var + eps)
    out = out if weight is None else out * _param(weight, x, ax)
    return like(out if bias is None else out + _param(bias, x, ax), x)


def _rms_norm_ref(x, weight, axis, eps):
    ax = tuple(sorted(a % x.ndim for a in axis))
    y = f64(x)
    out = y / np.sqrt((y ** 2).mean(axis=ax, keepdims=True) + eps)
    return like(out if weight is None else out * _param(weight, x, ax), x)


case("layer_norm", _norm_draw(True), _layer_norm_ref, tol=NORM_TOL)
case("rms_norm", _norm_draw(False), _rms_norm_ref, tol=NORM_TOL)


def _batch_norm(d):
    dt = pick(d, FLOAT)
    x = arr(d, dt, shape(d, 2, 4, 0, 3), -5, 5)
    ax = integer(d, -x.ndim, x.ndim - 1)
    c = (x.shape[ax],)
    opt = [arr(d, dt, c, -2, 2) if boolean(d) else None for _ in range(2)]
    return [x, arr(d, dt, c, -2, 2), arr(d, dt, c, 0.1, 3), *opt], {
        "axis": ax, "eps": pick(d, [1e-5, 1e-3])}


def _batch_norm_ref(x, mean, var, weight, bias, axis, eps):
    ax = (axis % x.ndim,)
    out = (f64(x) - _param(mean, x, ax)) / np.sqrt(_param(var, x, ax) + eps)
    out = out if weight is None else out * _param(weight, x, ax)
    return like(out if bias is None else out + _param(bias, x, ax), x)


case("batch_norm", _batch_norm, _batch_norm_ref, tol=NORM_TOL)


def _group_norm(d):
    dt, g = pick(d, FLOAT), integer(d, 1, 3)
    x = arr(d, dt, (integer(d, 1, 2), g * integer(d, 1, 2)) + shape(d, 0, 2, 1, 3), -5, 5)
    c = (x.shape[1],)
    return [x, *[arr(d, dt, c, -2, 2) if boolean(d) else None for _ in range(2)]], {
        "num_groups": g, "eps": pick(d, [1e-5, 1e-3])}


def _group_norm_ref(x, weight, bias, num_groups, eps):
    y = f64(x).reshape(x.shape[0], num_groups, -1)
    mu = y.mean(-1, keepdims=True)
    out = ((y - mu) / np.sqrt(((y - mu) ** 2).mean(-1, keepdims=True) + eps)).reshape(x.shape)
    out = out if weight is None else out * _param(weight, x, (1,))
    return like(out if bias is None else out + _param(bias, x, (1,)), x)


case("group_norm", _group_norm, _group_norm_ref, tol=NORM_TOL)


def _sdpa(d):
    dt = pick(d, FLOAT)
    nb = integer(d, 0, 2)
    bq, bk, bv = bshapes(d, 3, nb, nb, 1, 2)
    L, S, E, Ev = (integer(d, 1, 4) for _ in range(4))
    q, k, v = (arr(d, dt, s, -3, 3) for s in (bq + (L, E), bk + (S, E), bv + (S, Ev)))
    mask = None
    kind = pick(d, ["none", "bool", "float"])
    if kind != "none":
        full = np.broadcast_shapes(bq, bk, bv) + (L, S)
        ms = tuple(pick(d, [1, n]) for n in full)[integer(d, 0, len(full) - 1):]
        mask = arr(d, "bool" if kind == "bool" else dt, ms, -2, 2)
    return [q, k, v, mask], {"causal": boolean(d), "scale": pick(d, [None, 0.5])}


def _sdpa_ref(q, k, v, mask, causal, scale):
    s = f64(q) @ np.swapaxes(f64(k), -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None
                                                 else scale)
    L, S = s.shape[-2:]
    keep = np.ones((L, S), bool)
    if causal:
        keep = np.arange(S)[None, :] <= np.arange(L)[:, None]
    if mask is not None and mask.dtype == np.bool_:
        keep = keep & mask
    elif mask is not None:
        s = s + f64(mask)
    s = np.where(keep, s, -np.inf)
    empty = np.isneginf(s).all(-1, keepdims=True)  # every key masked out: zeros
    s = np.where(empty, 0.0, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return like(np.where(empty, 0.0, p / p.sum(-1, keepdims=True)) @ f64(v), q)


case("scaled_dot_product_attention", _sdpa, _sdpa_ref, tol=NORM_TOL)

# ---- random ----


def _random(d):
    return [np.asarray(integer(d, 0, 2**31 - 1), dtype=pick(d, ["int32", "int64"]))], {
        "shape": list(shape(d, 0, 3, 0, 4)), "dtype": pick(d, FLOAT)}


case("random_uniform", _random, kind="random")
case("random_normal", _random, kind="random")
