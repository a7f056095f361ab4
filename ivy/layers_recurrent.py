"""Recurrent layers, LSTM and GRU, over the functional `lstm_update` and `gru_update`.

Sequences are batch-major, (batch, time, features), as Keras and torch's
`batch_first=True` take them. Kernels are Keras's layout: (features, gates * hidden)
for the input and (hidden, gates * hidden) for the recurrent kernel, so a step is two
matmuls, and the input's matmul is done for all time steps at once before the Python
loop over time (eager, one step per iteration). Gate order within the last axis is
torch's: i, f, g, o for the LSTM (Keras's too: i, f, c, o) and r, z, n for the GRU
(Keras's GRU has z, r, h). Torch's `weight_ih_l0` is the kernel's transpose.
"""

from __future__ import annotations

from typing import Any

import numpy

import ivy

from .initializers import GlorotUniform, Initializer, Orthogonal, Seed, Zeros
from .module import Module

Array = Any


def _input_terms(x: Array, kernel: Array, bias: Array | None) -> Array:
    xw = ivy.matmul(x, kernel)
    return xw if bias is None else xw + bias


def _recurrent_term(h: Array, recurrent_kernel: Array, recurrent_bias: Array | None) -> Array:
    hw = ivy.matmul(h, recurrent_kernel)
    return hw if recurrent_bias is None else hw + recurrent_bias


def lstm_update(x: Array, init_h: Array, init_c: Array, kernel: Array,
                recurrent_kernel: Array, bias: Array | None = None,
                recurrent_bias: Array | None = None) -> tuple[Array, tuple[Array, Array]]:
    """Runs an LSTM over x (batch, time, features) from state (init_h, init_c), each
    (batch, hidden). Returns every step's hidden state (batch, time, hidden) and the
    final (h, c).

    Gates are the four `hidden`-wide blocks of x kernel + bias + h recurrent_kernel +
    recurrent_bias, in the order input, forget, cell candidate, output; two biases, as
    torch keeps them (Keras and Flax have one: pass None for the other).
    """
    n = int(init_h.shape[-1])
    xw = _input_terms(x, kernel, bias)
    h, c, hs = init_h, init_c, []
    for t in range(int(x.shape[1])):
        gates = xw[:, t] + _recurrent_term(h, recurrent_kernel, recurrent_bias)
        i, f = ivy.sigmoid(gates[..., :n]), ivy.sigmoid(gates[..., n:2 * n])
        g, o = ivy.tanh(gates[..., 2 * n:3 * n]), ivy.sigmoid(gates[..., 3 * n:])
        c = f * c + i * g
        h = o * ivy.tanh(c)
        hs.append(h)
    return ivy.stack(hs, axis=1), (h, c)


def gru_update(x: Array, init_h: Array, kernel: Array, recurrent_kernel: Array,
               bias: Array | None = None,
               recurrent_bias: Array | None = None) -> tuple[Array, Array]:
    """Runs a GRU over x (batch, time, features) from init_h (batch, hidden). Returns
    every step's hidden state (batch, time, hidden) and the final h.

    Gate blocks are reset, update, new, and the reset gate scales the recurrent term
    after its matmul and bias (torch's GRU, Flax's GRUCell, Keras's `reset_after=True`
    default): n = tanh(x W_n + b_n + r * (h U_n + c_n)), h' = (1 - z) n + z h.
    """
    n = int(init_h.shape[-1])
    xw = _input_terms(x, kernel, bias)
    h, hs = init_h, []
    for t in range(int(x.shape[1])):
        xt, hw = xw[:, t], _recurrent_term(h, recurrent_kernel, recurrent_bias)
        r = ivy.sigmoid(xt[..., :n] + hw[..., :n])
        z = ivy.sigmoid(xt[..., n:2 * n] + hw[..., n:2 * n])
        candidate = ivy.tanh(xt[..., 2 * n:] + r * hw[..., 2 * n:])
        h = (1.0 - z) * candidate + z * h
        hs.append(h)
    return ivy.stack(hs, axis=1), h


class _Recurrent(Module):
    """A stack of `num_layers` recurrent layers, each reading the sequence of the one
    below. Variables per layer, under `layer_<i>`: `kernel` (features, gates * hidden),
    `recurrent_kernel` (hidden, gates * hidden) and, with `with_bias`, `bias` and
    `recurrent_bias` (gates * hidden,). Glorot-uniform kernels, orthogonal recurrent
    kernels and zero biases by default, as Keras."""

    gates = 0

    def __init__(self, input_channels: int, output_channels: int, num_layers: int = 1, *,
                 weight_initializer: Initializer | None = None,
                 recurrent_initializer: Initializer | None = None,
                 bias_initializer: Initializer | None = None, with_bias: bool = True,
                 dtype: Any = None, device: Any = None, seed: Seed = None):
        self.input_channels, self.output_channels = int(input_channels), int(output_channels)
        self.num_layers = int(num_layers)
        self.weight_initializer = weight_initializer or GlorotUniform()
        self.recurrent_initializer = recurrent_initializer or Orthogonal()
        self.bias_initializer = bias_initializer or Zeros()
        self.with_bias = with_bias
        self._seed = seed
        Module.__init__(self, dtype=dtype, device=device)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        rng = numpy.random.default_rng(self._seed)
        hidden, width = self.output_channels, self.gates * self.output_channels
        own: dict[str, Any] = {}
        for layer in range(self.num_layers):
            features = self.input_channels if layer == 0 else hidden
            kernels = {"kernel": (features, self.weight_initializer),
                       "recurrent_kernel": (hidden, self.recurrent_initializer)}
            weights = {name: init((rows, width), rows, width, dtype=dtype, device=device,
                                  seed=rng) for name, (rows, init) in kernels.items()}
            if self.with_bias:
                weights.update({name: self.bias_initializer((width,), features, width,
                                                            dtype=dtype, device=device,
                                                            seed=rng)
                                for name in ("bias", "recurrent_bias")})
            own[f"layer_{layer}"] = weights
        return own

    def _zeros_state(self, x: Array) -> Array:
        shape = (self.num_layers, int(x.shape[0]), self.output_channels)
        return ivy.get_backend(x).zeros(shape, dtype=x.dtype)

    def _layer_weights(self, layer: int) -> tuple[Array, Array, Array | None, Array | None]:
        w = self.v[f"layer_{layer}"]
        return w.kernel, w.recurrent_kernel, w.get("bias"), w.get("recurrent_bias")


class LSTM(_Recurrent):
    """`lstm_update` stacked `num_layers` deep. Called as `lstm(x, initial_state=None)`
    with x (batch, time, input_channels) and an optional (h0, c0), each (num_layers,
    batch, output_channels) as torch has them (zeros by default). Returns (the top
    layer's hidden states (batch, time, output_channels), (h_n, c_n)) with h_n, c_n
    shaped like h0, c0."""

    gates = 4

    def _forward(self, x: Array,
                 initial_state: tuple[Array, Array] | None = None) -> tuple[Array, Any]:
        h0, c0 = initial_state if initial_state is not None else \
            (self._zeros_state(x), self._zeros_state(x))
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            x, (h, c) = lstm_update(x, h0[layer], c0[layer], *self._layer_weights(layer))
            finals_h.append(h)
            finals_c.append(c)
        return x, (ivy.stack(finals_h, axis=0), ivy.stack(finals_c, axis=0))


class GRU(_Recurrent):
    """`gru_update` stacked `num_layers` deep. Called as `gru(x, initial_state=None)`
    with h0 (num_layers, batch, output_channels); returns (hidden states (batch, time,
    output_channels), h_n (num_layers, batch, output_channels))."""

    gates = 3

    def _forward(self, x: Array, initial_state: Array | None = None) -> tuple[Array, Array]:
        h0 = self._zeros_state(x) if initial_state is None else initial_state
        finals = []
        for layer in range(self.num_layers):
            x, h = gru_update(x, h0[layer], *self._layer_weights(layer))
            finals.append(h)
        return x, ivy.stack(finals, axis=0)
