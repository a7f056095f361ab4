"""Generation with the KV cache of `transformers` decoders (`importers/torch_cache.py`).

A compiled decoder step takes the cache and returns `(logits, cache)`; a greedy loop
written in the target's framework must give `model.generate`'s tokens: 20 of them with
a `StaticCache` (one program for the prompt, one for every later step: counted as calls
of `torch.export.export`), and the first DYNAMIC_NEW with the default `DynamicCache`,
whose every step is a new cache length and so a new program (traced on demand, about a
second each on the 2-core CI machine: fewer steps keep the tests short). On torch the
cache stays the user's `transformers` object; on JAX it is the legacy tuple of JAX
arrays, carried through `jax.jit`. `initializer_range=1.0` gives the random models
varied tokens with wide argmax margins, so float rounding cannot flip a token.
"""

from __future__ import annotations

import pytest
import torch

import ivy_ir
from ivy_ir.core.errors import TraceError

transformers = pytest.importorskip("transformers")
jax = pytest.importorskip("jax")
jnp = jax.numpy

NEW, DYNAMIC_NEW, MAX_LEN = 20, 6, 32
PROMPT = torch.tensor([[3, 17, 42, 8, 61]])
CONFIGS = {
    "gpt2": ("GPT2LMHeadModel", transformers.GPT2Config(
        vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=2, initializer_range=1.0)),
    "llama": ("LlamaForCausalLM", transformers.LlamaConfig(
        vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        initializer_range=1.0)),
    "qwen2": ("Qwen2ForCausalLM", transformers.Qwen2Config(
        vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        initializer_range=1.0)),
}
HEAVY = {"qwen2"}
"""Llama's attention with biased projections: `pytest -m heavy` only (about 50 s of CI's
budget; gpt2 and llama keep both cache layouts and grouped-query attention in CI)."""
HEAVY_DYNAMIC = HEAVY | {"llama"}
"""A new program per step makes the dynamic-cache loops the slow ones (~40 s for llama):
CI runs them on gpt2; llama's grouped-query attention keeps its static-cache loops."""


def _models(heavy: set[str]) -> list:
    return [pytest.param(name, marks=pytest.mark.heavy) if name in heavy else name
            for name in CONFIGS]


@pytest.fixture(scope="module", params=_models(HEAVY))
def lm(request):
    torch.manual_seed(0)
    cls, cfg = CONFIGS[request.param]
    model = getattr(transformers, cls)(cfg).eval()
    expected = model.generate(PROMPT, do_sample=False, max_new_tokens=NEW, pad_token_id=0,
                              attention_mask=torch.ones_like(PROMPT))[0, PROMPT.shape[1]:]
    assert len(set(expected.tolist())) > 5  # a varied continuation, not one token repeated
    return model, expected.tolist()


@pytest.fixture
def exports(monkeypatch):
    """The number of `torch.export.export` calls so far (one per traced program)."""
    count = [0]
    real = torch.export.export

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(torch.export, "export", counted)
    return count


def _token(logits):
    return logits[:, -1:].argmax(-1)


@pytest.mark.parametrize("lm", _models(HEAVY_DYNAMIC), indirect=True)
def test_dynamic_cache_torch_loop_over_the_compiled_call(lm, exports):
    model, expected = lm
    cache = transformers.DynamicCache()
    c = ivy_ir.compile(model, target="torch", args=(PROMPT,), kwargs={"past_key_values": cache})
    tokens, ids = [], PROMPT
    for _ in range(DYNAMIC_NEW):
        logits, returned = c(ids, past_key_values=cache)
        assert returned is cache  # updated in place and handed back, as the model does
        ids = _token(logits)
        tokens.append(int(ids))
    assert tokens == expected[:DYNAMIC_NEW]
    assert cache.get_seq_length() == PROMPT.shape[1] + DYNAMIC_NEW - 1
    assert exports[0] == DYNAMIC_NEW  # the empty cache's program, then one per length


@pytest.mark.parametrize("lm", _models(HEAVY_DYNAMIC), indirect=True)
def test_default_cache_jax_loop_over_the_compiled_call(lm):
    """Compiled as users call the model (no cache given): the first step returns the
    cache the model made, as the legacy tuple of JAX arrays, which the loop carries."""
    model, expected = lm
    c = ivy_ir.compile(model, target="jax", args=(PROMPT,))
    logits, cache = c(jnp.asarray(PROMPT.numpy()))
    assert isinstance(cache, tuple) and isinstance(cache[0][0], jax.Array)
    tokens = []
    for _ in range(DYNAMIC_NEW):
        ids = _token(logits)
        tokens.append(int(ids[0, 0]))
        logits, cache = c(ids, past_key_values=cache)
    assert tokens == expected[:DYNAMIC_NEW]


def _static(model):
    return transformers.StaticCache(config=model.config, max_cache_len=MAX_LEN)


def _positions(step: int, length: int, arange):
    start = 0 if step == 0 else PROMPT.shape[1] + step - 1
    return arange(start, start + length)


def test_static_cache_torch_loop_over_the_module(lm, exports):
    """One program for the prompt, one for every later step (the cache keeps its
    shape), run through `c.module` as a torch user would."""
    model, expected = lm
    cache = _static(model)
    c = ivy_ir.compile(model, target="torch", args=(PROMPT,),
                       kwargs={"past_key_values": cache, "cache_position": torch.arange(5)})
    tokens, ids = [], PROMPT
    for step in range(NEW):
        logits, cache = c.module(ids, past_key_values=cache,
                                 cache_position=_positions(step, ids.shape[1], torch.arange))
        ids = _token(logits)
        tokens.append(int(ids))
    assert tokens == expected
    assert isinstance(cache, transformers.StaticCache)
    assert exports[0] == 2


def test_static_cache_jax_loop_under_jit(lm, exports):
    """A jitted JAX step over `c.apply`: the cache is a tuple of JAX arrays that keeps
    the static program's kind (its slots written at `cache_position`)."""
    model, expected = lm
    c = ivy_ir.compile(model, target="jax", args=(PROMPT,),
                       kwargs={"past_key_values": _static(model),
                               "cache_position": torch.arange(5)})
    step_fn = jax.jit(lambda p, ids, cache, pos: c.apply(p, ids, past_key_values=cache,
                                                         cache_position=pos))
    cache, ids, tokens = (), jnp.asarray(PROMPT.numpy()), []
    for step in range(NEW):
        logits, cache = step_fn(c.params, ids, cache, _positions(step, ids.shape[1], jnp.arange))
        ids = _token(logits)
        tokens.append(int(ids[0, 0]))
    assert tokens == expected
    assert cache[0][0].shape[2] == MAX_LEN
    # the compile, the JAX prompt (int32 ids: JAX has no int64 by default), one decode step
    assert exports[0] == 3


def test_unsupported_cache_kinds_are_named():
    torch.manual_seed(0)
    cfg = transformers.MistralConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
                                     num_hidden_layers=2, num_attention_heads=4,
                                     num_key_value_heads=2, sliding_window=4)
    model = transformers.MistralForCausalLM(cfg).eval()
    sliding = transformers.DynamicCache(config=cfg)
    with pytest.raises(TraceError, match="DynamicCache with DynamicSlidingWindowLayer layers "
                                         "is not supported.*pass a DynamicCache or a StaticCache"):
        ivy_ir.compile(model, target="jax", args=(PROMPT,), kwargs={"past_key_values": sliding})
    both = transformers.EncoderDecoderCache(transformers.DynamicCache(),
                                            transformers.DynamicCache())
    with pytest.raises(TraceError, match="EncoderDecoderCache is not supported.*use_cache"):
        ivy_ir.compile(model, target="jax", args=(PROMPT,), kwargs={"past_key_values": both})
