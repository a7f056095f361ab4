"""ATen's recurrent layers (`nn.LSTM`, `nn.GRU`, `nn.RNN`) as one `ivy.lstm`, `ivy.gru`
or `ivy.rnn` each.

torch.export keeps these modules whole (`aten.lstm.input`, `aten.gru.input`,
`aten.rnn_tanh.input`, `aten.rnn_relu.input`), and the registry ops take exactly their
arguments: the stacked initial states and the flat parameter list in torch's order,
whose entries stay the module's own parameters (`weight_ih_l0`, `bias_hh_l1_reverse`,
...). Keeping the layer whole lets the torch target call torch's fused kernel; the
other targets expand it into one scan per layer and direction (the IR does not grow
with the sequence length either way). Only dropout between layers in training mode has
no registry form: it is random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.ir import SSAValue

from .common import Rule, Unmapped
from .torch_ctx import Ctx


def _recurrent(op: str, **fixed: str) -> Rule:
    def rule(c: Ctx, x: SSAValue, hx: Any, params: Sequence[SSAValue], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> list[SSAValue]:
        if train and dropout > 0 and num_layers > 1:
            raise Unmapped("dropout between layers in training mode (random)")
        states = list(hx) if op == "lstm" else [hx]
        return c.emit_all(op, x, *states, list(params), num_layers=num_layers,
                          bidirectional=bidirectional, has_biases=has_biases,
                          batch_first=batch_first, **fixed)
    return rule


RECURRENT: dict[str, Rule] = {
    "lstm.input": _recurrent("lstm"),
    "gru.input": _recurrent("gru"),
    "rnn_tanh.input": _recurrent("rnn", nonlinearity="tanh"),
    "rnn_relu.input": _recurrent("rnn", nonlinearity="relu"),
}
"""The recurrent layers' ATen ops (the `.input` overloads; packed sequences, `.data`,
are left to torch's decompositions)."""
