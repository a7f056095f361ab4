"""NumPy kernels of the recurrent layers (`ivy.lstm`, `ivy.gru`, `ivy.rnn`): a plain loop
over time per layer and direction.

Their decompositions are scans, which the reference evaluator cannot run (it compiles
one op at a time, with no regions), so the reference semantics of these ops are
written out here. Like every helper they are copied into generated code and may use
only `np`, `math` and each other. The layout of the weights and states is ops.spec's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["recurrent_cell", "recurrent_layers"]


def recurrent_cell(kind, xp, states, w_hh, b_hh, w_hr):
    """One time step of `kind` ('lstm', 'gru', 'tanh', 'relu') from the projected input
    xp (B, gates * H): the new states, the hidden state first."""
    def sigmoid(v):  # the tanh form cannot overflow, as 1 / (1 + exp(-v)) does
        return 0.5 * np.tanh(0.5 * v) + 0.5

    hh = states[0] @ w_hh.T + b_hh
    if kind == "lstm":
        i, f, g, o = np.split(xp + hh, 4, axis=-1)
        cell = sigmoid(f) * states[1] + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(cell)
        return [h if w_hr is None else h @ w_hr.T, cell]
    if kind == "gru":
        xr, xz, xn = np.split(xp, 3, axis=-1)
        hr, hz, hn = np.split(hh, 3, axis=-1)
        r, z = sigmoid(xr + hr), sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        return [(1 - z) * n + z * states[0]]
    pre = xp + hh
    return [np.tanh(pre) if kind == "tanh" else np.maximum(pre, 0)]


def recurrent_layers(kind, x, init, weights, num_layers, bidirectional, has_biases,
                     batch_first):
    """The whole layer: (out, *final states), each state (layers * directions, B, size).
    Half floats compute in float32 and round once (ml_dtypes' bfloat16 products come
    back as float32 anyway)."""
    dtype = x.dtype
    if dtype.name in ("float16", "bfloat16"):
        x, init = x.astype(np.float32), [s.astype(np.float32) for s in init]
        weights = [w.astype(np.float32) for w in weights]
    dirs = 2 if bidirectional else 1
    per = len(weights) // (num_layers * dirs)
    seq = np.swapaxes(x, 0, 1) if batch_first else x
    finals = [s.copy() for s in init]
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = weights[k * per:(k + 1) * per]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (0, 0)
            xp = seq @ w[0].T + b_ih
            states = [s[k] for s in init]
            ys = []
            for t in range(seq.shape[0] - 1, -1, -1) if d else range(seq.shape[0]):
                states = recurrent_cell(kind, xp[t], states, w[1], b_hh,
                                        w[-1] if per % 2 else None)
                ys.append(states[0])
            outs.append(np.stack(ys[::-1] if d else ys))
            for f, s in zip(finals, states):
                f[k] = s
        seq = np.concatenate(outs, axis=-1)
    out = np.swapaxes(seq, 0, 1) if batch_first else seq
    return tuple(r.astype(dtype, copy=False) for r in (out, *finals))
