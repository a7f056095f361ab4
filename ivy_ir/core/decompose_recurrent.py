"""Decompositions of the recurrent layers (`ivy.lstm`, `ivy.gru`, `ivy.rnn`) into one
`ivy.scan` per layer and direction.

Unrolling the time loop would make the IR grow with the sequence length; a scan keeps
it the same size at any length. The input projection of every step is one `linear` over
the whole sequence before the loop (as cuDNN does it), so the scan body holds only the
recurrent half of the cell. The reverse direction of a bidirectional layer is the same
scan run with `reverse`, which keeps its outputs at their time steps: both directions
concatenate on the feature axis as the next layer's input. The weights are read from
the op's flat list in torch's order (see ops.spec): per layer, per direction,
`w_ih, w_hh[, b_ih, b_hh][, w_hr]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import SSAValue

from .control import emit_scan
from .tracer import OPS as F
from .tracer import Tracer


@dataclass(frozen=True)
class Weights:
    """One layer and direction's slice of the flat weight list."""

    w_ih: Tracer
    w_hh: Tracer
    b_ih: Tracer | None
    b_hh: Tracer | None
    w_hr: Tracer | None  # an LSTM's projection of h

    def recurrent(self, h: Tracer) -> Tracer:
        return F.linear(h, self.w_hh, self.b_hh)


Step = Callable[[Tracer, list[Tracer], Weights], list[Tracer]]
"""One time step: (projected input, states) -> new states, the hidden state first."""


def _gates(x: Tracer, count: int) -> list[Tracer]:
    return F.split(x, sizes=[x.shape[-1] // count] * count, axis=-1)


def _lstm_step(xp: Tracer, states: list[Tracer], w: Weights) -> list[Tracer]:
    h, cell = states
    i, f, g, o = _gates(F.add(xp, w.recurrent(h)), 4)
    cell = F.add(F.multiply(F.sigmoid(f), cell), F.multiply(F.sigmoid(i), F.tanh(g)))
    h = F.multiply(F.sigmoid(o), F.tanh(cell))
    return [h if w.w_hr is None else F.linear(h, w.w_hr, None), cell]


def _gru_step(xp: Tracer, states: list[Tracer], w: Weights) -> list[Tracer]:
    (h,) = states
    xr, xz, xn = _gates(xp, 3)
    hr, hz, hn = _gates(w.recurrent(h), 3)
    r, z = F.sigmoid(F.add(xr, hr)), F.sigmoid(F.add(xz, hz))
    n = F.tanh(F.add(xn, F.multiply(r, hn)))
    return [F.add(n, F.multiply(z, F.subtract(h, n)))]  # (1 - z) n + z h, one multiply


def _simple_step(activation: str) -> Step:
    def step(xp: Tracer, states: list[Tracer], w: Weights) -> list[Tracer]:
        return [getattr(F, activation)(F.add(xp, w.recurrent(states[0])))]
    return step


def _direction(step: Step, xs: Tracer, init: list[Tracer], w: Weights, reverse: bool
               ) -> tuple[Tracer, list[Tracer]]:
    """One direction of one layer over time-major `xs`: (outputs, final states)."""
    graph, n = xs.graph, len(init)
    xp = F.linear(xs, w.w_ih, w.b_ih)

    def body(args: list[SSAValue]) -> list[SSAValue]:
        states = step(Tracer(args[n], graph), [Tracer(a, graph) for a in args[:n]], w)
        return [s.value for s in (*states, states[0])]

    outs = emit_scan(graph, [s.value for s in init], [xp.value], body, length=xs.shape[0],
                     reverse=reverse)
    return Tracer(outs[n], graph), [Tracer(v, graph) for v in outs[:n]]


def _rows(x: Tracer, batch: int | None) -> list[Tracer]:
    """Each layer and direction's initial state, from their stacked tensor. A scan's
    carry keeps its type, so a dynamic batch size that x or another state knows is
    made static here: the first step's state would otherwise have a type of its own."""
    parts = F.split(x, sizes=[1] * x.shape[0], axis=0) if x.shape[0] > 1 else [x]
    if batch is None or x.shape[1] is not None:
        return [F.squeeze(p, axis=[0]) for p in parts]
    return [F.reshape(p, shape=[batch, x.shape[2]]) for p in parts]


def _layers(step: Step, x: Tracer, init: list[Tracer], weights: list[Tracer],
            num_layers: int, bidirectional: bool, has_biases: bool, batch_first: bool
            ) -> list[Tracer]:
    dirs = 2 if bidirectional else 1
    per = len(weights) // (num_layers * dirs)
    batch = next((s.shape[1] for s in init if s.shape[1] is not None),
                 x.shape[0 if batch_first else 1])
    starts = [_rows(s, batch) for s in init]
    if batch_first:
        x = F.permute_dims(x, axes=[1, 0, 2])
    finals: list[list[Tracer]] = [[] for _ in init]
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            chunk = weights[k * per:(k + 1) * per]
            biases = chunk[2:4] if has_biases else [None, None]
            w = Weights(chunk[0], chunk[1], *biases, chunk[-1] if per % 2 else None)
            y, states = _direction(step, x, [s[k] for s in starts], w, reverse=d == 1)
            outs.append(y)
            for acc, s in zip(finals, states):
                acc.append(s)
        x = F.concat(outs, axis=-1) if dirs > 1 else outs[0]
    if batch_first:
        x = F.permute_dims(x, axes=[1, 0, 2])
    return [x, *(F.stack(s, axis=0) for s in finals)]


def lstm(x, h0, c0, weights, num_layers, bidirectional, has_biases, batch_first):
    # per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]; an odd count has w_hr
    return _layers(_lstm_step, x, [h0, c0], weights, num_layers, bidirectional, has_biases,
                   batch_first)


def gru(x, h0, weights, num_layers, bidirectional, has_biases, batch_first):
    return _layers(_gru_step, x, [h0], weights, num_layers, bidirectional, has_biases,
                   batch_first)


def rnn(x, h0, weights, nonlinearity, num_layers, bidirectional, has_biases, batch_first):
    return _layers(_simple_step(nonlinearity), x, [h0], weights, num_layers, bidirectional,
                   has_biases, batch_first)


RECURRENT = {"lstm": lstm, "gru": gru, "rnn": rnn}
"""The recurrent layers' decompositions, by op (`decompose.py` registers them)."""
