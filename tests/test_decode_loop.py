"""Greedy decoding of a tiny HF GPT-2 as one `torch.while_loop`, on every target.

The module holds a fixed-size buffer of MAX tokens (the prompt, then pad) and loops
while `position < MAX and not done`: each step runs the model on the whole buffer
(causal attention: the pad past `position` does not reach the logits at `position - 1`),
writes the argmax at `position` and stops once it wrote the END token. The test checks
that the loop is imported as exactly one `ivy.while_loop` whose IR does not grow with
MAX, and that every target decodes exactly what torch decodes, for a prompt that hits
END early and one that runs to MAX. END is picked from the eager greedy continuations.

The causal mask is passed in as a prepared 4D mask: HF builds its own under a torch
function mode that `torch.while_loop`'s body cannot be captured with (torch raises
"HOP: Unsafe side effect", eagerly too). `initializer_range=1.0` makes the random model
decode varied tokens with wide argmax margins, so float rounding cannot flip a token.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from zoo_common import TARGETS

import ivy_ir

transformers = pytest.importorskip("transformers")

MAX, PAD = 12, 0
PROMPTS = (torch.tensor([[3, 7, 1]]), torch.tensor([[10, 20, 30]]))


class GreedyDecode(torch.nn.Module):
    def __init__(self, lm: torch.nn.Module, max_len: int, end: int):
        super().__init__()
        self.lm, self.max_len, self.end = lm, max_len, end

    def forward(self, prompt):
        n = self.max_len
        pad = torch.full((1, n - prompt.shape[1]), PAD, dtype=prompt.dtype)
        slots = torch.arange(n)
        mask = torch.ones(n, n, dtype=torch.bool).tril()[None, None]

        def cond(buf, pos, done):
            return (pos < n) & ~done

        def body(buf, pos, done):
            logits = self.lm(buf, attention_mask=mask, use_cache=False).logits[0]
            tok = torch.index_select(logits, 0, (pos - 1).reshape(1)).argmax(-1)
            return torch.where(slots == pos, tok, buf), pos + 1, tok[0] == self.end

        start = (torch.cat([prompt, pad], 1), torch.tensor(prompt.shape[1]), torch.tensor(False))
        buf, pos, _ = torch.while_loop(cond, body, start)
        return buf, pos


@pytest.fixture(scope="module")
def lm():
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=50,
                                  n_positions=16, initializer_range=1.0)
    return transformers.GPT2LMHeadModel(cfg).eval()


def _greedy(lm, prompt: torch.Tensor) -> list[int]:
    """Plain Python greedy decoding to MAX (no END), growing the input each step."""
    ids = prompt[0].tolist()
    with torch.no_grad():
        while len(ids) < MAX:
            ids.append(int(lm(torch.tensor([ids]), use_cache=False).logits[0, -1].argmax()))
    return ids[prompt.shape[1]:]


@pytest.fixture(scope="module")
def decoder(lm):
    """The decoder with END the first token of the first prompt's continuation, past its
    second, that the second prompt's continuation never produces."""
    early, full = (_greedy(lm, p) for p in PROMPTS)
    end = next(t for t in early[2:] if t not in full)
    return GreedyDecode(lm, MAX, end)


def _eager(model, prompt):
    with torch.no_grad():
        buf, pos = model(prompt)
    return buf.numpy(), int(pos)


def test_eager_loop_is_greedy_decoding_that_stops_at_end(decoder):
    (early, n_early), (full, n_full) = (_eager(decoder, p) for p in PROMPTS)
    p = PROMPTS[0].shape[1]
    assert p + 2 < n_early < MAX and n_full == MAX
    assert early[0, n_early - 1] == decoder.end and (early[0, n_early:] == PAD).all()
    assert early[0, p:n_early].tolist() == _greedy(decoder.lm, PROMPTS[0])[:n_early - p]
    assert full[0, p:].tolist() == _greedy(decoder.lm, PROMPTS[1])


def test_one_while_loop_whose_ir_does_not_grow_with_max(decoder):
    module = ivy_ir.trace(decoder, (PROMPTS[0],))
    assert str(module).count("= ivy.while_loop") == 1
    longer = GreedyDecode(decoder.lm, 16, decoder.end)  # n_positions bounds MAX
    assert ivy_ir.trace(longer, (PROMPTS[0],)).op_count() == module.op_count()


@pytest.mark.parametrize("target", TARGETS)
def test_every_target_decodes_what_torch_decodes(decoder, target):
    compiled = ivy_ir.compile(decoder, target=target, args=(PROMPTS[0],))
    for prompt in PROMPTS:
        want_buf, want_pos = _eager(decoder, prompt)
        buf, pos = (np.asarray(v.detach() if hasattr(v, "detach") else v)
                    for v in compiled(prompt.numpy()))
        np.testing.assert_array_equal(buf, want_buf, err_msg=target)
        assert int(pos) == want_pos, target
