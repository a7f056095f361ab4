"""The recurrent layers as ONNX's fused `LSTM`/`GRU`/`RNN`, one node per layer.

The registry's layers have PyTorch's meaning: gates stacked LSTM (i, f, g, o) and GRU
(r, z, n) with the reset gate applied after the hidden projection; ONNX stacks LSTM
gates (i, o, f, c) and GRU gates (z, r, h), and takes that reset form with
`linear_before_reset=1`. The weights are reordered by Split/Concat nodes (onnxruntime
folds them, the weights being initializers), and both biases concatenate into `B`.
LSTM projections (`proj_size`) have no ONNX form: such layers are decomposed.
"""

from __future__ import annotations

from ivy_ir.dialect import IvyOp, TensorSpec

from .onnx_graph import OnnxContext
from .onnx_nn import Fused

GATE_ORDER = {"lstm": (0, 3, 1, 2), "gru": (1, 0, 2), "rnn": (0,)}
"""ONNX's gate order as indices into the registry's (PyTorch's) stacking."""


def _reorder(c: OnnxContext, w: str, kind: str, hidden: int) -> str:
    order = GATE_ORDER[kind]
    if len(order) == 1:
        return w
    parts = c.node("Split", [w, c.b.ints([hidden] * len(order))], len(order), axis=0)
    return c.node("Concat", [parts[i] for i in order], axis=0)


def _stacked(c: OnnxContext, tensors: list[str]) -> str:
    """One tensor per direction, stacked on a new leading axis."""
    lead = c.b.ints([0])
    return c.node("Concat", [c.node("Unsqueeze", [t, lead]) for t in tensors], axis=0)


def _recurrent(kind: str) -> Fused:
    def rule(c: OnnxContext) -> list[str]:
        a, ws = c.attrs, c.args["weights"]
        dirs = 2 if a["bidirectional"] else 1
        per = 4 if a["has_biases"] else 2
        hidden = c.in_types["h0"].shape[-1]
        x = c.args["x"]
        if a["batch_first"]:
            x = c.node("Transpose", [x], perm=[1, 0, 2])
        inits = [c.args["h0"]] + ([c.args["c0"]] if kind == "lstm" else [])
        steps, batch = c.in_types["x"].shape[:2][::-1] if a["batch_first"] \
            else c.in_types["x"].shape[:2]
        finals: list[list[str]] = [[] for _ in inits]
        extra = {"linear_before_reset": 1} if kind == "gru" else {}
        if kind == "rnn":
            extra = {"activations": ["Relu" if a["nonlinearity"] == "relu" else "Tanh"] * dirs}
        for layer in range(a["num_layers"]):
            groups = [ws[(layer * dirs + d) * per:(layer * dirs + d + 1) * per]
                      for d in range(dirs)]
            w = _stacked(c, [_reorder(c, g[0], kind, hidden) for g in groups])
            r = _stacked(c, [_reorder(c, g[1], kind, hidden) for g in groups])
            b = _stacked(c, [c.node("Concat", [_reorder(c, g[2], kind, hidden),
                                                _reorder(c, g[3], kind, hidden)], axis=0)
                             for g in groups]) if a["has_biases"] else ""
            span = [c.b.ints([layer * dirs]), c.b.ints([(layer + 1) * dirs]), c.b.ints([0])]
            states = [c.node("Slice", [s, *span]) for s in inits]
            outs = c.node(kind.upper(), [x, w, r, b, "", *states], 2 + (kind == "lstm"),
                          hidden_size=hidden,
                          direction="bidirectional" if dirs == 2 else "forward", **extra)
            for f, o in zip(finals, outs[1:]):
                f.append(o)
            y = c.node("Transpose", [outs[0]], perm=[0, 2, 1, 3])  # (T, B, dirs, H)
            x = c.node("Reshape", [y, c.b.ints([steps, batch, dirs * hidden])])
        if a["batch_first"]:
            x = c.node("Transpose", [x], perm=[1, 0, 2])
        return [x, *(c.node("Concat", f, axis=0) for f in finals)]
    return Fused(14, rule, lambda op: _fits(op, kind))


def _fits(op: IvyOp, kind: str) -> bool:
    """float32 (onnxruntime's kernels), static non-empty sizes, no LSTM projection."""
    specs = [TensorSpec.from_xdsl(v.type) for v in op.operands]
    if any(s.dtype != "float32" or None in s.shape or 0 in s.shape for s in specs):
        return False
    return kind != "lstm" or specs[1].shape[-1] == specs[2].shape[-1]


RECURRENT = {kind: _recurrent(kind) for kind in GATE_ORDER}

__all__ = ["RECURRENT"]
