"""ONNX RNN, LSTM and GRU onto the registry's `ivy.rnn`, `ivy.lstm` and `ivy.gru`.

The registry ops have torch's semantics (ops.spec): gates stacked LSTM i, f, g, o and GRU
r, z, n, with GRU's reset gate applied after the recurrent product (ONNX's
`linear_before_reset=1`). ONNX stacks LSTM gates i, o, f, c and GRU z, r, h, so the
weights are reordered at import by a `take` of gate rows. ONNX's one bias input B is
(input biases, recurrent biases) concatenated. Its `reverse` direction is a forward
layer over the time-flipped sequence, its `layout=1` the registry's batch_first (the
states stay direction-major in the registry, so they are transposed). Nodes using what
the registry ops cannot express (other activations, `clip`, LSTM peepholes and
`input_forget`, GRU's default `linear_before_reset=0`, sequences shorter than the input)
are written out cell by cell as scans (`onnx_nn_cells.py`), as are activations with
`activation_alpha`/`activation_beta`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_nn_cells import activations as cell_activations
from .onnx_nn_cells import recurrence

GATES: dict[str, tuple[list[int], list[str]]] = {
    "RNN": ([0], ["Tanh"]),
    "LSTM": ([0, 2, 3, 1], ["Sigmoid", "Tanh", "Tanh"]),
    "GRU": ([1, 0, 2], ["Sigmoid", "Tanh"]),
}
"""op_type -> (ONNX gate block feeding each registry gate in order, default activations
per direction)."""


def _gate_rows(order: list[int], hidden: int, offset: int = 0) -> np.ndarray:
    """Row indices that restack ONNX's gate blocks of `hidden` rows in registry order."""
    return np.concatenate([offset + np.arange(g * hidden, (g + 1) * hidden) for g in order])


def _direction(ctx: Any, value: Any, d: int) -> Any:
    """value[d] of a (directions, ...) tensor."""
    return ctx.emit("take", value, np.asarray(d, np.int64), axis=0)


def _beyond_registry(ctx: Any, op: str, x: Any, seq: Any, peep: Any, layout: int,
                     attrs: dict[str, Any]) -> bool:
    """Whether the node uses a feature the registry's torch-shaped ops lack (the cells of
    `onnx_nn_cells` then write it out)."""
    if attrs["clip"] is not None or attrs["input_forget"]:
        return True
    if op == "GRU" and not attrs["linear_before_reset"]:
        return True
    if peep is not None and (ctx.known(peep) is None or ctx.known(peep).any()):
        return True
    if seq is not None:
        lengths = ctx.known(seq)
        steps = ctx.spec(x).shape[1 if layout else 0]
        return lengths is None or steps is None or bool((lengths != steps).any())
    return False


def _registry_nonlinearity(op: str, names: list[str], dirs: int) -> str | None:
    """The registry op's nonlinearity for these activations, or None when its fixed
    cells do not apply them."""
    default = [a.lower() for a in GATES[op][1]] * dirs
    if op == "RNN" and names in (["tanh"] * dirs, ["relu"] * dirs):
        return names[0]
    return "tanh" if names == default else None


def _recurrent(op: str) -> Rule:
    def rule(ctx: Any, x: Any, w: Any, r: Any, b: Any = None, sequence_lens: Any = None,
             initial_h: Any = None, initial_c: Any = None, p: Any = None, *,
             activation_alpha: list[float] | None = None,
             activation_beta: list[float] | None = None,
             activations: list[str] | None = None, clip: float | None = None,
             direction: str = "forward", hidden_size: int | None = None,
             input_forget: int = 0, layout: int = 0,
             linear_before_reset: int = 0) -> list[Any]:
        dirs = 2 if direction == "bidirectional" else 1
        if direction not in ("forward", "reverse", "bidirectional"):
            raise Unmapped(f"with direction {direction!r}")
        names = [a.lower() for a in (activations or GATES[op][1] * dirs)]
        tuned = bool(activation_alpha or activation_beta)
        nonlinearity = None if tuned else _registry_nonlinearity(op, names, dirs)
        spec = ctx.spec(x)
        hidden = hidden_size or ctx.spec(r).shape[-1]
        batch = spec.shape[0 if layout else 1]
        if batch is None:
            raise Unmapped("on a dynamic batch size")
        states = [_initial(ctx, s, layout, [dirs, batch, hidden], spec.dtype)
                  for s in ([initial_h, initial_c] if op == "LSTM" else [initial_h])]
        if nonlinearity is None or _beyond_registry(ctx, op, x, sequence_lens, p, layout, {
                "clip": clip, "input_forget": input_forget,
                "linear_before_reset": linear_before_reset}):
            fns = cell_activations(names, activation_alpha, activation_beta)
            return recurrence(ctx, op, x, w, r, b, sequence_lens, states, p, acts=fns,
                              clip=clip, direction=direction, hidden=hidden, layout=layout,
                              input_forget=input_forget,
                              linear_before_reset=linear_before_reset)
        order = GATES[op][0]
        rows = _gate_rows(order, hidden)
        weights = []
        for d in range(dirs):
            weights += [ctx.emit("take", _direction(ctx, t, d), rows, axis=0) for t in (w, r)]
            if b is not None:
                bias = _direction(ctx, b, d)
                weights += [ctx.emit("take", bias, _gate_rows(order, hidden, off), axis=0)
                            for off in (0, len(order) * hidden)]
        reverse = direction == "reverse"
        time_axis = 1 if layout else 0
        if reverse:
            x = ctx.emit("flip", x, axis=[time_axis])
        extra = {"nonlinearity": nonlinearity} if op == "RNN" else {}
        out, *finals = ctx.emit_all(op.lower(), x, *states, weights, num_layers=1,
                                    bidirectional=dirs == 2, has_biases=b is not None,
                                    batch_first=bool(layout), **extra)
        if reverse:
            out = ctx.emit("flip", out, axis=[time_axis])
        steps = spec.shape[time_axis]
        lead = [batch, steps] if layout else [steps, batch]
        y = ctx.emit("reshape", out, shape=[*lead, dirs, hidden])
        if not layout:
            y = ctx.emit("permute_dims", y, axes=[0, 2, 1, 3])
        if layout:
            finals = [ctx.emit("permute_dims", s, axes=[1, 0, 2]) for s in finals]
        return [y, *finals]
    return rule


def _initial(ctx: Any, state: Any, layout: int, shape: list[int], dtype: str) -> Any:
    """An initial state in the registry's (directions, batch, hidden) form; zeros when
    the node omits it."""
    if state is None:
        return ctx.emit("zeros", shape=shape, dtype=dtype)
    return ctx.emit("permute_dims", state, axes=[1, 0, 2]) if layout else state


TABLE: dict[str, Rule] = {op: _recurrent(op) for op in GATES}
"""ONNX op_type -> rule of the recurrent layers."""
