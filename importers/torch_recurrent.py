"""ATen's recurrent layers (`nn.LSTM`, `nn.GRU`, `nn.RNN`) as one `ivy.scan` per layer
and direction.

torch.export keeps these modules whole (`aten.lstm.input`, `aten.gru.input`,
`aten.rnn_tanh.input`, `aten.rnn_relu.input`); decomposing them would unroll the time
loop, so the IR would grow with the sequence length. Here each layer and direction
becomes a scan over the time axis instead: the input projection of every step is one
`linear` over the whole sequence before the loop (as cuDNN does it), and the scan body
is only the recurrent half of the cell. The backward direction of a bidirectional
layer is the same scan run with `reverse`, which keeps its outputs at their time
steps, so both directions concatenate on the feature axis as the next layer's input.

The weights are the module's own parameters (`weight_ih_l0`, `bias_hh_l1_reverse`,
...), read from the op's flat parameter list in torch's order: per layer, per
direction, `w_ih, w_hh[, b_ih, b_hh][, w_hr]`. Gate order is torch's: LSTM i, f, g, o;
GRU r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from ivy_ir.core.control import emit_scan

from .common import Rule, Unmapped, spec_of
from .torch_ctx import Ctx

Step = Callable[[Ctx, SSAValue, list[SSAValue], "Weights"], list[SSAValue]]
"""One time step of a cell: (projected input, states) -> new states, hidden first."""


@dataclass(frozen=True)
class Weights:
    """One layer and direction's slice of the flat parameter list."""

    w_ih: SSAValue
    w_hh: SSAValue
    b_ih: SSAValue | None
    b_hh: SSAValue | None
    w_hr: SSAValue | None  # LSTM projection (`proj_size > 0`)

    def recurrent(self, c: Ctx, h: SSAValue) -> SSAValue:
        return c.emit("linear", h, self.w_hh, self.b_hh)


def _gates(c: Ctx, x: SSAValue, count: int) -> list[SSAValue]:
    size = spec_of(x).shape[-1] // count
    return c.emit_all("split", x, sizes=[size] * count, axis=-1)


def _lstm(c: Ctx, xp: SSAValue, states: list[SSAValue], w: Weights) -> list[SSAValue]:
    h, cell = states
    i, f, g, o = _gates(c, c.emit("add", xp, w.recurrent(c, h)), 4)
    i, f, o = (c.emit("sigmoid", v) for v in (i, f, o))
    cell = c.emit("add", c.emit("multiply", f, cell), c.emit("multiply", i, c.emit("tanh", g)))
    h = c.emit("multiply", o, c.emit("tanh", cell))
    if w.w_hr is not None:
        h = c.emit("linear", h, w.w_hr, None)
    return [h, cell]


def _gru(c: Ctx, xp: SSAValue, states: list[SSAValue], w: Weights) -> list[SSAValue]:
    (h,) = states
    xr, xz, xn = _gates(c, xp, 3)
    hr, hz, hn = _gates(c, w.recurrent(c, h), 3)
    r = c.emit("sigmoid", c.emit("add", xr, hr))
    z = c.emit("sigmoid", c.emit("add", xz, hz))
    n = c.emit("tanh", c.emit("add", xn, c.emit("multiply", r, hn)))
    # (1 - z) * n + z * h, with one multiply
    return [c.emit("add", n, c.emit("multiply", z, c.emit("subtract", h, n)))]


def _simple(activation: str) -> Step:
    def step(c: Ctx, xp: SSAValue, states: list[SSAValue], w: Weights) -> list[SSAValue]:
        return [c.emit(activation, c.emit("add", xp, w.recurrent(c, states[0])))]
    return step


def _layer(c: Ctx, step: Step, xs: SSAValue, init: list[SSAValue], w: Weights,
           reverse: bool) -> tuple[SSAValue, list[SSAValue]]:
    """One direction of one layer over time-major `xs`: (outputs, final states)."""
    xp = c.emit("linear", xs, w.w_ih, w.b_ih)
    n = len(init)

    def body(args: list[SSAValue]) -> list[SSAValue]:
        states = step(c, args[n], args[:n], w)
        return [*states, states[0]]

    outs = emit_scan(c.b.graph, init, [xp], body, length=spec_of(xs).shape[0],
                     reverse=reverse)
    return outs[n], outs[:n]


def _rows(c: Ctx, x: SSAValue) -> list[SSAValue]:
    """The initial states of every layer and direction, from their stacked tensor."""
    count = spec_of(x).shape[0]
    parts = c.emit_all("split", x, sizes=[1] * count, axis=0) if count > 1 else [x]
    return [c.emit("squeeze", p, axis=[0]) for p in parts]


def _recurrent(step: Step, lstm: bool) -> Rule:
    def rule(c: Ctx, x: SSAValue, hx: Any, params: Sequence[SSAValue], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> list[SSAValue]:
        if train and dropout > 0 and num_layers > 1:
            raise Unmapped("dropout between layers in training mode (random)")
        dirs = 2 if bidirectional else 1
        per = len(params) // (num_layers * dirs)
        proj = lstm and per == 3 + 2 * has_biases
        if per * num_layers * dirs != len(params) or per != 2 + 2 * has_biases + proj:
            raise Unmapped(f"{len(params)} weights for {num_layers} layers x {dirs} "
                           "directions")
        init = [_rows(c, h) for h in (hx if lstm else [hx])]
        if batch_first:
            x = c.emit("permute_dims", x, axes=[1, 0, 2])
        finals: list[list[SSAValue]] = [[] for _ in init]
        for layer in range(num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                chunk = list(params[k * per:(k + 1) * per])
                biases = chunk[2:4] if has_biases else [None, None]
                w = Weights(chunk[0], chunk[1], *biases, chunk[-1] if proj else None)
                y, states = _layer(c, step, x, [s[k] for s in init], w, reverse=d == 1)
                outs.append(y)
                for acc, s in zip(finals, states):
                    acc.append(s)
            x = c.emit("concat", outs, axis=-1) if dirs > 1 else outs[0]
        if batch_first:
            x = c.emit("permute_dims", x, axes=[1, 0, 2])
        return [x, *(c.emit("stack", s, axis=0) for s in finals)]
    return rule


RECURRENT: dict[str, Rule] = {
    "lstm.input": _recurrent(_lstm, lstm=True),
    "gru.input": _recurrent(_gru, lstm=False),
    "rnn_tanh.input": _recurrent(_simple("tanh"), lstm=False),
    "rnn_relu.input": _recurrent(_simple("relu"), lstm=False),
}
"""The recurrent layers' ATen ops (the `.input` overloads; packed sequences, `.data`,
are left to torch's decompositions)."""
