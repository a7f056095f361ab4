"""Import failures name the user's code and, where there is one, the way out.

An op or a Python construct torch cannot export is located at the user's line; a
failure that belongs to no line (an output torch cannot carry) names the `forward` that
returned it; a key/value cache torch cannot carry gets the remedy (`use_cache=False`)
in the message, and the remedy works.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ivy_ir

torch = pytest.importorskip("torch")


class DynamicCache:
    """Stands for a cache object that torch.export has no pytree registration for."""

    def __init__(self, keys):
        self.keys = keys


class TinyDecoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, use_cache=True):
        y = self.proj(x)
        return (y, DynamicCache([y])) if use_cache else y


def test_an_output_torch_cannot_carry_names_forward_and_the_remedy():
    model = TinyDecoder().eval()
    x = torch.ones(2, 4)
    line = inspect.getsourcelines(TinyDecoder.forward)[1]
    with pytest.raises(ivy_ir.TraceError) as info:
        ivy_ir.compile(model, "numpy", args=(x,))
    msg = str(info.value)
    assert f"TinyDecoder.forward (tests/test_error_locations.py:{line})" in msg
    assert "DynamicCache" in msg and "kwargs={'use_cache': False}" in msg
    assert "<unknown location>" not in msg
    c = ivy_ir.compile(model, "numpy", args=(x,), kwargs={"use_cache": False})
    with torch.no_grad():
        want = model(x, use_cache=False).numpy()
    np.testing.assert_allclose(c(x.numpy()), want, rtol=1e-6, atol=1e-6)


def test_hf_causal_lm_with_its_default_cache_compiles():
    """HF's own cache objects are no longer such outputs: the cache the model makes
    comes back (the legacy tuple off torch; see tests/test_kv_cache.py)."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100,
                                  n_positions=16)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(0, 100, (1, 8), generator=torch.Generator().manual_seed(0))
    c = ivy_ir.compile(model, "numpy", args=(ids,))
    with torch.no_grad():
        want = model(ids)
    logits, cache = c(ids.numpy())
    np.testing.assert_allclose(logits, want.logits.numpy(), rtol=1e-4, atol=1e-5)
    (key, value), = cache
    np.testing.assert_allclose(key, want.past_key_values.layers[0].keys.numpy(),
                               rtol=1e-4, atol=1e-5)


def test_an_op_torch_cannot_import_is_located_at_the_users_line():
    def fn(x):
        y = x * 2
        return torch.special.bessel_j0(y)  # no ivy op for this one
    line = inspect.getsourcelines(fn)[1] + 2
    with pytest.raises(ivy_ir.UnsupportedOpsError,
                       match=rf"special_bessel_j0.*test_error_locations\.py:{line}"):
        ivy_ir.compile(fn, "numpy", args=(torch.ones(3),))
