"""References for the recurrent layers (`ivy.lstm`, `ivy.gru`, `ivy.rnn`): torch's own
`nn.LSTM`/`nn.GRU`/`nn.RNN` in float64 holding the drawn weights, since the ops mean
exactly what those modules compute (ops.spec)."""

from __future__ import annotations

import numpy as np
import torch
from op_refs_common import FLOAT, arr, boolean, case, f64, integer, like, pick

TOL = {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-10)}
GATES = {"lstm": 4, "gru": 3, "rnn": 1}


def _draw(name: str):
    def draw(d):
        dt = pick(d, FLOAT)
        layers, dirs = integer(d, 1, 2), pick(d, [1, 2])
        attrs = {"num_layers": layers, "bidirectional": dirs == 2,
                 "has_biases": boolean(d), "batch_first": boolean(d)}
        if name == "rnn":
            attrs["nonlinearity"] = pick(d, ["tanh", "relu"])
        steps, batch, features, hidden = (integer(d, 1, 4), integer(d, 0, 3),
                                          integer(d, 1, 3), integer(d, 1, 4))
        size = integer(d, 1, hidden - 1) if name == "lstm" and hidden > 1 and boolean(d) \
            else hidden  # an LSTM with a projection of h (proj_size)
        x = arr(d, dt, (batch, steps, features) if attrs["batch_first"]
                else (steps, batch, features), -2, 2)
        states = [arr(d, dt, (layers * dirs, batch, n), -1, 1)
                  for n in ((size, hidden) if name == "lstm" else (size,))]
        g = GATES[name] * hidden
        weights = []
        for layer in range(layers):
            for _ in range(dirs):
                shapes = [(g, features if layer == 0 else dirs * size), (g, size)]
                shapes += [(g,), (g,)] if attrs["has_biases"] else []
                shapes += [(size, hidden)] if size != hidden else []
                weights += [arr(d, dt, s, -1, 1) for s in shapes]
        return [x, *states, weights], attrs
    return draw


def _module(name: str, x: np.ndarray, states: list[np.ndarray], weights: list[np.ndarray],
            attrs: dict) -> torch.nn.Module:
    """The torch module of these shapes and attributes, holding `weights` (float64)."""
    kw = {"num_layers": attrs["num_layers"], "bias": attrs["has_biases"],
          "batch_first": attrs["batch_first"], "bidirectional": attrs["bidirectional"]}
    hidden, size = states[-1].shape[-1], states[0].shape[-1]
    if name == "rnn":
        kw["nonlinearity"] = attrs["nonlinearity"]
    if size != hidden:
        kw["proj_size"] = size
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[name]
    module = cls(x.shape[-1], hidden, **kw).double()
    params = [p for layer in module.all_weights for p in layer]
    assert [tuple(p.shape) for p in params] == [w.shape for w in weights]
    with torch.no_grad():
        for p, w in zip(params, weights):
            p.copy_(torch.from_numpy(f64(w)))
    return module


def _ref(name: str):
    def ref(x, *rest, **attrs):
        *states, weights = rest
        module = _module(name, x, states, weights, attrs)
        hx = [torch.from_numpy(f64(s)) for s in states]
        with torch.no_grad():
            out, final = module(torch.from_numpy(f64(x)), tuple(hx) if name == "lstm" else hx[0])
        finals = final if name == "lstm" else (final,)
        return [like(out.numpy(), x), *(like(s.numpy(), x) for s in finals)]
    return ref


for _name in GATES:
    case(_name, _draw(_name), _ref(_name), tol=TOL)
