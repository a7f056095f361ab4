"""ONNX RNN, LSTM and GRU cells written out as one `ivy.scan` per direction, for the
uses the registry's torch-shaped recurrent ops cannot express: GRU's default
`linear_before_reset=0`, LSTM peepholes and `input_forget`, `clip`, other activations
and `sequence_lens` shorter than the input.

The input projection `x W^T + Wb` of every step is one matmul before the scan; the
body adds `h R^T + Rb` and applies ONNX's cell equations (gates in ONNX's own order:
LSTM i, o, f, c; GRU z, r, h). Past a batch entry's sequence length its state is
carried unchanged and its output is zero; a reverse direction scans backwards (the
scan keeps outputs at their time steps), so each entry starts at its own last step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.core.control import emit_scan

from .common import Unmapped


def _num(ctx: Any, v: Any, value: float) -> Any:
    return ctx.const(value, ctx.spec(v).dtype)


ACTIVATIONS: dict[str, tuple[tuple[float, ...], tuple[float, ...], Callable[..., Any]]] = {
    "sigmoid": ((), (), lambda ctx, v: ctx.emit("sigmoid", v)),
    "tanh": ((), (), lambda ctx, v: ctx.emit("tanh", v)),
    "relu": ((), (), lambda ctx, v: ctx.emit("relu", v)),
    "softsign": ((), (), lambda ctx, v: ctx.emit("divide", v, ctx.emit(
        "add", ctx.emit("abs", v), _num(ctx, v, 1.0)))),
    "softplus": ((), (), lambda ctx, v: ctx.emit("softplus", v)),
    "leakyrelu": ((0.01,), (), lambda ctx, v, a: ctx.emit("leaky_relu", v, alpha=a)),
    "elu": ((1.0,), (), lambda ctx, v, a: ctx.emit("elu", v, alpha=a)),
    "thresholdedrelu": ((1.0,), (), lambda ctx, v, a: ctx.emit(
        "where", ctx.emit("greater", v, _num(ctx, v, a)), v, _num(ctx, v, 0.0))),
    "hardsigmoid": ((0.2,), (0.5,), lambda ctx, v, a, b: ctx.emit("clip", ctx.emit(
        "add", ctx.emit("multiply", v, _num(ctx, v, a)), _num(ctx, v, b)), min=0.0, max=1.0)),
    "affine": ((1.0,), (0.0,), lambda ctx, v, a, b: ctx.emit(
        "add", ctx.emit("multiply", v, _num(ctx, v, a)), _num(ctx, v, b))),
    "scaledtanh": ((1.0,), (1.0,), lambda ctx, v, a, b: ctx.emit("multiply", ctx.emit(
        "tanh", ctx.emit("multiply", v, _num(ctx, v, b))), _num(ctx, v, a))),
}
"""Lower-cased ONNX activation name -> (default alpha, default beta, fn(ctx, v, *alpha,
*beta)); () where the function takes none."""


def activations(names: list[str], alphas: list[float] | None,
                betas: list[float] | None) -> list[Callable[[Any, Any], Any]]:
    """The cell functions: `activation_alpha` and `activation_beta` are consumed in the
    order of the activations that take one (onnxruntime's reading of ONNX's rule),
    defaults where the lists run out."""
    alphas, betas = list(alphas or []), list(betas or [])
    fns = []
    for name in names:
        if name.lower() not in ACTIVATIONS:
            raise Unmapped(f"with activation {name!r}")
        alpha, beta, fn = ACTIVATIONS[name.lower()]
        args = [alphas.pop(0) if alphas else d for d in alpha]
        args += [betas.pop(0) if betas else d for d in beta]
        fns.append(lambda ctx, v, fn=fn, args=tuple(args): fn(ctx, v, *args))
    if alphas or betas:
        raise Unmapped(f"with {len(alphas)} alpha(s) and {len(betas)} beta(s) left unused")
    return fns


def _dot(ctx: Any, v: Any, weight_t: Any) -> Any:
    return ctx.emit("matmul", v, weight_t)


def _clipped(ctx: Any, v: Any, clip: float | None) -> Any:
    """ONNX's cell clip bounds the input of every activation."""
    return v if clip is None else ctx.emit("clip", v, min=-clip, max=clip)


def _chunks(ctx: Any, v: Any, n: int) -> list[Any]:
    size = ctx.spec(v).shape[-1] // n
    return ctx.emit_all("split", v, sizes=[size] * n, axis=ctx.rank(v) - 1)


def _lstm_step(ctx: Any, w: dict[str, Any], f: Any, g: Any, h_act: Any, clip: float | None,
               forget_coupled: bool, xw: Any, h: Any, c: Any) -> list[Any]:
    pre = ctx.emit("add", xw, _dot(ctx, h, w["rt"]))
    i, o, fg, cand = _chunks(ctx, pre, 4)
    if w["p"] is not None:
        pi, po, pf = w["p"]
        i = ctx.emit("add", i, ctx.emit("multiply", pi, c))
        fg = ctx.emit("add", fg, ctx.emit("multiply", pf, c))
    i = f(ctx, _clipped(ctx, i, clip))
    fg = ctx.emit("subtract", ctx.const(1.0, ctx.spec(i).dtype), i) if forget_coupled \
        else f(ctx, _clipped(ctx, fg, clip))
    c_new = ctx.emit("add", ctx.emit("multiply", fg, c),
                     ctx.emit("multiply", i, g(ctx, _clipped(ctx, cand, clip))))
    if w["p"] is not None:
        o = ctx.emit("add", o, ctx.emit("multiply", w["p"][1], c_new))
    o = f(ctx, _clipped(ctx, o, clip))
    return [ctx.emit("multiply", o, h_act(ctx, c_new)), c_new]


def _gru_step(ctx: Any, w: dict[str, Any], f: Any, g: Any, clip: float | None,
              before_reset: bool, xw: Any, h: Any) -> list[Any]:
    xz, xr, xh = _chunks(ctx, xw, 3)
    hz, hr = _chunks(ctx, ctx.emit("add", _dot(ctx, h, w["rt_zr"]), w["rb_zr"]), 2)
    z = f(ctx, _clipped(ctx, ctx.emit("add", xz, hz), clip))
    r = f(ctx, _clipped(ctx, ctx.emit("add", xr, hr), clip))
    if before_reset:  # r * (h Rh^T + Rbh)
        recurrent = ctx.emit("multiply", r, ctx.emit("add", _dot(ctx, h, w["rt_h"]), w["rb_h"]))
    else:  # (r * h) Rh^T + Rbh
        recurrent = ctx.emit("add", _dot(ctx, ctx.emit("multiply", r, h), w["rt_h"]), w["rb_h"])
    cand = g(ctx, _clipped(ctx, ctx.emit("add", xh, recurrent), clip))
    one = ctx.const(1.0, ctx.spec(z).dtype)
    return [ctx.emit("add", ctx.emit("multiply", ctx.emit("subtract", one, z), cand),
                     ctx.emit("multiply", z, h))]


def _rnn_step(ctx: Any, w: dict[str, Any], f: Any, clip: float | None, xw: Any,
              h: Any) -> list[Any]:
    return [f(ctx, _clipped(ctx, ctx.emit("add", xw, _dot(ctx, h, w["rt"])), clip))]


def _weights(ctx: Any, op: str, w: Any, r: Any, b: Any, p: Any, d: int,
             hidden: int) -> dict[str, Any]:
    """Direction d's transposed weights and biases, split as its cell uses them."""
    def pick(t: Any) -> Any:
        return ctx.emit("take", t, np.asarray(d, np.int64), axis=0)
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    rt = ctx.emit("permute_dims", pick(r), axes=[1, 0])
    out = {"wt": ctx.emit("permute_dims", pick(w), axes=[1, 0]), "p": None}
    wb, rb = _chunks(ctx, pick(b), 2) if b is not None else (None, None)
    out["wb"] = wb
    if op == "GRU":
        zr, hh = ctx.emit_all("split", rt, sizes=[2 * hidden, hidden], axis=1)
        out["rt_zr"], out["rt_h"] = zr, hh
        rb = rb if rb is not None else ctx.const(np.zeros(gates * hidden), ctx.spec(w).dtype)
        out["rb_zr"], out["rb_h"] = ctx.emit_all("split", rb, sizes=[2 * hidden, hidden],
                                                 axis=0)
        return out
    out["rt"] = rt
    out["rb"] = rb
    if p is not None:
        out["p"] = _chunks(ctx, pick(p), 3)
    return out


def recurrence(ctx: Any, op: str, x: Any, w: Any, r: Any, b: Any, lens: Any, states: list[Any],
               p: Any, *, acts: list[Callable[[Any, Any], Any]], clip: float | None,
               direction: str, hidden: int,
               layout: int, input_forget: int, linear_before_reset: int) -> list[Any]:
    """(Y, Y_h[, Y_c]) of an ONNX recurrent node, in ONNX's layouts; `states` the initial
    states in (directions, batch, hidden) form."""
    dirs = 2 if direction == "bidirectional" else 1
    seq = ctx.emit("permute_dims", x, axes=[1, 0, 2]) if layout else x
    steps, batch = ctx.spec(seq).shape[:2]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    if len(acts) != per * dirs:
        raise Unmapped(f"with {len(acts)} activations for {dirs} direction(s)")
    mask = _step_mask(ctx, lens, steps, batch)
    ys, finals = [], [[] for _ in states]
    for d in range(dirs):
        wd = _weights(ctx, op, w, r, b, p, d, hidden)
        xw = ctx.emit("matmul", seq, wd["wt"])
        if wd["wb"] is not None:
            xw = ctx.emit("add", xw, wd["wb"])
        if op != "GRU" and wd["rb"] is not None:
            xw = ctx.emit("add", xw, wd["rb"])
        fns = acts[d * per:(d + 1) * per]
        cell = _cell(op, wd, fns, clip, input_forget, linear_before_reset)
        carry = [ctx.emit("take", s, np.asarray(d, np.int64), axis=0) for s in states]

        def body(args: list[Any], n: int = len(carry), cell: Any = cell) -> list[Any]:
            old = args[:n]
            new = cell(ctx, args[n], *old)
            if mask is None:
                return [*new, new[0]]
            keep = args[n + 1]
            held = [ctx.emit("where", keep, v, o) for v, o in zip(new, old)]
            zero = ctx.const(0.0, ctx.spec(new[0]).dtype)
            return [*held, ctx.emit("where", keep, new[0], zero)]
        xs = [xw] if mask is None else [xw, mask]
        *last, y = emit_scan(ctx.b.graph, [ctx.operand(v) for v in carry],
                             [ctx.operand(v) for v in xs], body, length=steps,
                             reverse=direction == "reverse" or d == 1)
        ys.append(y)
        for k, v in enumerate(last):
            finals[k].append(v)
    y = ctx.emit("stack", ys, axis=1)
    outs = [ctx.emit("stack", f, axis=0) for f in finals]
    if layout:
        y = ctx.emit("permute_dims", y, axes=[2, 0, 1, 3])
        outs = [ctx.emit("permute_dims", s, axes=[1, 0, 2]) for s in outs]
    return [y, *outs]


def _cell(op: str, w: dict[str, Any], fns: list[Any], clip: float | None, input_forget: int,
          linear_before_reset: int) -> Callable[..., list[Any]]:
    """The step function (ctx, projected input, *states) -> new states."""
    if op == "LSTM":
        return lambda ctx, xw, h, c: _lstm_step(ctx, w, fns[0], fns[1], fns[2], clip,
                                                bool(input_forget), xw, h, c)
    if op == "GRU":
        return lambda ctx, xw, h: _gru_step(ctx, w, fns[0], fns[1], clip,
                                            bool(linear_before_reset), xw, h)
    return lambda ctx, xw, h: _rnn_step(ctx, w, fns[0], clip, xw, h)


def _step_mask(ctx: Any, lens: Any, steps: int, batch: int) -> Any:
    """(T, B, 1) bool: step t is inside entry b's sequence; None when every sequence is
    full."""
    if lens is None:
        return None
    known = ctx.known(lens)
    if known is not None and (np.asarray(known) == steps).all():
        return None
    limit = ctx.emit("reshape", ctx.cast(lens, "int64"), shape=[1, batch, 1])
    return ctx.emit("less", np.arange(steps, dtype=np.int64).reshape(steps, 1, 1), limit)
