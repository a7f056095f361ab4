"""Multi-head attention over `ivy.scaled_dot_product_attention`.

The four projections are `Linear` submodules, so the variables are `v.to_q/w`,
`v.to_k/w`, `v.to_v/w`, `v.to_out/w` (and their `b`), each in torch's (out, in)
layout: torch's `nn.MultiheadAttention.in_proj_weight` is to_q, to_k and to_v stacked
on the first axis, and its `out_proj` is to_out. Heads are contiguous blocks of
`head_dim` features of each projection, as in torch, Keras and Flax.
"""

from __future__ import annotations

from typing import Any

import numpy

import ivy

from .initializers import Initializer, Seed
from .layers import Linear
from .module import Module

Array = Any


class MultiHeadAttention(Module):
    """Attention of `num_heads` heads of width `head_dim` each, from queries of
    `query_dim` features to keys and values of `key_dim`/`value_dim` features (both
    `query_dim` by default), projected back to `out_dim` (default `query_dim`).

    Called as `mha(query, key=None, value=None, mask=None, causal=False)` with
    batch-major (batch, length, features) inputs; the key defaults to the query
    (self-attention) and the value to the key. `mask` follows
    `ivy.scaled_dot_product_attention`: broadcastable to (batch, heads, query length,
    key length), boolean True where attending is allowed (the opposite of torch's
    `attn_mask`) or a float added to the scores. Scores are scaled by
    1 / sqrt(head_dim). No dropout is applied to the attention weights.
    """

    def __init__(self, query_dim: int, num_heads: int = 8, head_dim: int = 64, *,
                 key_dim: int | None = None, value_dim: int | None = None,
                 out_dim: int | None = None, with_bias: bool = True,
                 weight_initializer: Initializer | None = None,
                 bias_initializer: Initializer | None = None, dtype: Any = None,
                 device: Any = None, seed: Seed = None):
        self.num_heads, self.head_dim = int(num_heads), int(head_dim)
        inner = self.num_heads * self.head_dim
        key_dim = query_dim if key_dim is None else key_dim
        value_dim = key_dim if value_dim is None else value_dim
        rng = numpy.random.default_rng(seed)
        options = {"weight_initializer": weight_initializer,
                   "bias_initializer": bias_initializer, "with_bias": with_bias,
                   "dtype": dtype, "device": device, "seed": rng}
        self.to_q = Linear(query_dim, inner, **options)
        self.to_k = Linear(key_dim, inner, **options)
        self.to_v = Linear(value_dim, inner, **options)
        self.to_out = Linear(inner, query_dim if out_dim is None else out_dim, **options)
        Module.__init__(self, dtype=dtype, device=device)

    def _heads(self, x: Array) -> Array:
        """(batch, length, heads * head_dim) -> (batch, heads, length, head_dim)."""
        batch, length = int(x.shape[0]), int(x.shape[1])
        x = ivy.reshape(x, (batch, length, self.num_heads, self.head_dim))
        return ivy.permute_dims(x, (0, 2, 1, 3))

    def _forward(self, query: Array, key: Array | None = None, value: Array | None = None,
                 mask: Array | None = None, causal: bool = False) -> Array:
        key = query if key is None else key
        value = key if value is None else value
        q, k, v = self._heads(self.to_q(query)), self._heads(self.to_k(key)), \
            self._heads(self.to_v(value))
        attended = ivy.scaled_dot_product_attention(q, k, v, mask, causal=causal)
        batch, length = int(attended.shape[0]), int(attended.shape[2])
        merged = ivy.reshape(ivy.permute_dims(attended, (0, 2, 1, 3)),
                             (batch, length, self.num_heads * self.head_dim))
        return self.to_out(merged)
