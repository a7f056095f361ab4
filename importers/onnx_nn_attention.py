"""ONNX Attention (opsets 23 to 25) onto registry ops.

3-D inputs (batch, seq, heads * size) are split into heads first; past keys and values
are concatenated in front along the sequence (and returned as the present ones); grouped
key/value heads are repeated to the query heads, as `np.repeat` does. The plain case (no
mask, no softcap, a causal mask only on a square score matrix, no fourth output, float32
or float64) is one `scaled_dot_product_attention`. Otherwise the scores are composed the
way ONNX defines them: q and k each scaled by sqrt(scale), softcap, then one additive
bias of the mask (bool masks as 0 / -inf, padded with -inf to the key length), the causal
frontier `key <= query + past length` and the sliding window, a softmax that gives zeros
for a row every key of which is masked, and the product with v. With `nonpad_kv_seqlen` (the
valid key count per batch, known at run time) the keys past it are masked and the
causal frontier and window sit at `key <= query + nonpad - query length`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import Rule, Unmapped

WIDE = ("float32", "float64")
"""Dtypes in which the fused op's rounding order (scale after the product) stays within
ONNX's tolerance; in half precision ONNX's order (q and k each scaled by sqrt(scale))
is followed step by step."""


def _heads(ctx: Any, t: Any, heads: int | None, what: str) -> Any:
    """(batch, seq, heads * size) -> (batch, heads, seq, size)."""
    b, s, width = ctx.spec(t).shape
    if heads is None or None in (b, s, width):
        raise Unmapped(f"3-D {what} without its number of heads or static sizes")
    split = ctx.emit("reshape", t, shape=[b, s, heads, width // heads])
    return ctx.emit("permute_dims", split, axes=[0, 2, 1, 3])


def _static_bias(q_len: int, kv_len: int, offset: int, causal: int, left: int,
                 right: int) -> np.ndarray | None:
    """The 0 / -inf bias of the causal frontier and the sliding window, or None."""
    if not causal and left < 0 and right < 0:
        return None
    diff = np.arange(q_len)[:, None] + offset - np.arange(kv_len)[None, :]
    allowed = np.ones_like(diff, dtype=bool)
    if causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    return np.where(allowed, 0.0, -np.inf)


def _nonpad_bias(ctx: Any, nonpad: Any, q_len: int, kv_len: int, causal: int, left: int,
                 right: int, dtype: str) -> Any:
    """(batch, 1, q, kv) 0 / -inf bias of the valid keys, causal frontier and window
    when each batch's key count `nonpad` is a run-time value: with
    diff = query + nonpad - q_len - key, a key counts while key < nonpad, diff >= 0
    (causal), diff <= left and -diff <= right."""
    limit = ctx.emit("reshape", ctx.cast(nonpad, "int64"), shape=[-1, 1, 1, 1])
    keys = np.arange(kv_len, dtype=np.int64)
    spread = keys[None, :] - np.arange(q_len, dtype=np.int64)[:, None] + q_len  # nonpad - diff
    allowed = ctx.emit("less", keys.reshape(1, 1, 1, kv_len), limit)
    diff = ctx.emit("subtract", limit, spread.reshape(1, 1, q_len, kv_len))
    for on, bound, sign in ((causal, 0, -1), (left >= 0, left, 1), (right >= 0, right, -1)):
        if on:
            side = diff if sign > 0 else ctx.emit("negative", diff)
            allowed = ctx.emit("logical_and", allowed, ctx.emit(
                "less_equal", side, np.asarray(bound, np.int64)))
    return ctx.emit("where", allowed, ctx.const(0.0, dtype), ctx.const(-math.inf, dtype))


def _mask_bias(ctx: Any, mask: Any, kv_len: int, dtype: str) -> Any:
    """A mask as an additive bias of `dtype`, padded with -inf to the key length."""
    if ctx.spec(mask).dtype == "bool":
        mask = ctx.emit("where", mask, ctx.const(0.0, dtype), ctx.const(-math.inf, dtype))
    else:
        mask = ctx.cast(mask, dtype)
    spec = ctx.spec(mask)
    short = kv_len - spec.shape[-1]
    if short > 0:
        pads = [0, 0] * (spec.rank - 1) + [0, short]
        mask = ctx.emit("pad", mask, pad_width=pads, value=-math.inf)
    return mask


def _softmax_rows(ctx: Any, scores: Any, bias: Any, dtype: str) -> Any:
    """Softmax over the keys; a row whose max is -inf gives zeros, as does a row whose
    bias masks every key."""
    neg_inf, zero = ctx.const(-math.inf, dtype), ctx.const(0.0, dtype)
    top = ctx.emit("max", scores, axis=[ctx.rank(scores) - 1], keepdims=True)
    top = ctx.emit("where", ctx.emit("equal", top, neg_inf), zero, top)
    e = ctx.emit("exp", ctx.emit("subtract", scores, top))
    total = ctx.emit("sum", e, axis=[ctx.rank(e) - 1], keepdims=True)
    total = ctx.emit("where", ctx.emit("equal", total, zero), ctx.const(1.0, dtype), total)
    probs = ctx.emit("divide", e, total)
    masked = ctx.emit("equal", ctx.emit("max", bias, axis=[ctx.rank(bias) - 1],
                                        keepdims=True), neg_inf)
    return ctx.emit("where", masked, zero, probs)


def _attention(ctx: Any, q: Any, k: Any, v: Any, attn_mask: Any = None, past_key: Any = None,
               past_value: Any = None, nonpad_kv_seqlen: Any = None, *, is_causal: int = 0,
               kv_num_heads: int | None = None, q_num_heads: int | None = None,
               qk_matmul_output_mode: int = 0, scale: float | None = None,
               softcap: float = 0.0, softmax_precision: int | None = None,
               left_window_size: int = -1, right_window_size: int = -1) -> list[Any]:
    if (past_key is None) != (past_value is None):
        raise Unmapped("with only one of past_key and past_value")
    three_d = ctx.rank(q) == 3
    if three_d:
        q, k, v = (_heads(ctx, t, n, w) for t, n, w in
                   ((q, q_num_heads, "Q"), (k, kv_num_heads, "K"), (v, kv_num_heads, "V")))
    dtype = ctx.spec(q).dtype
    if past_key is not None:
        k = ctx.emit("concat", [past_key, k], axis=2)
        v = ctx.emit("concat", [past_value, v], axis=2)
    present = [k, v]
    (b, hq, q_len, size), hk = ctx.spec(q).shape, ctx.spec(k).shape[1]
    kv_len = ctx.spec(k).shape[2]
    if None in (hq, hk, q_len, kv_len, size):
        raise Unmapped("on dynamic head counts or sequence lengths")
    if hq != hk:
        k, v = (ctx.emit("repeat", t, repeats=hq // hk, axis=1) for t in (k, v))
    scale = 1.0 / math.sqrt(size) if scale is None else scale
    offset = 0 if past_key is None else ctx.spec(past_key).shape[2]
    want_scores = ctx.outputs > 3 and ctx.requested(3)
    plain = (attn_mask is None and nonpad_kv_seqlen is None and not softcap
             and not want_scores and left_window_size < 0 and right_window_size < 0
             and (not is_causal or (offset == 0 and q_len == kv_len))
             and softmax_precision in (None, _elem(dtype)) and dtype in WIDE)
    if plain:
        y = ctx.emit("scaled_dot_product_attention", q, k, v, None, causal=bool(is_causal),
                     scale=scale)
    else:
        frontier = (is_causal, left_window_size, right_window_size)
        bias = _static_bias(q_len, kv_len, offset, *frontier) if nonpad_kv_seqlen is None \
            else _nonpad_bias(ctx, nonpad_kv_seqlen, q_len, kv_len, *frontier, dtype)
        y, scores = _composed(ctx, q, k, v, attn_mask, dtype, scale, softcap,
                              qk_matmul_output_mode, softmax_precision, bias)
    if three_d:
        y = ctx.emit("reshape", ctx.emit("permute_dims", y, axes=[0, 2, 1, 3]),
                     shape=[b, q_len, hq * ctx.spec(v).shape[3]])
    return [y, *present, None if plain else scores]


def _composed(ctx: Any, q: Any, k: Any, v: Any, mask: Any, dtype: str, scale: float,
              softcap: float, mode: int, precision: int | None,
              bias: Any) -> tuple[Any, Any]:
    """ONNX's attention formula step by step, `bias` that of the causal frontier and
    window (a static array, a run-time value or None); also the scores its
    qk_matmul_output_mode asks for."""
    root = ctx.const(math.sqrt(scale), dtype)
    kt = ctx.emit("permute_dims", k, axes=[0, 1, 3, 2])
    scores = ctx.emit("matmul", ctx.emit("multiply", q, root), ctx.emit("multiply", kt, root))
    if softcap > 0:
        cap = ctx.const(softcap, dtype)
        scores = ctx.emit("multiply", ctx.emit("tanh", ctx.emit("divide", scores, cap)), cap)
    kv_len = ctx.spec(k).shape[2]
    if bias is None:
        bias = ctx.const(np.zeros((1, 1)), dtype)
    elif isinstance(bias, np.ndarray):
        bias = ctx.const(bias, dtype)
    if mask is not None:
        bias = ctx.emit("add", bias, _mask_bias(ctx, mask, kv_len, dtype))
    biased = ctx.emit("add", scores, bias)
    wide = dtype if precision is None else ctx.dtype(precision)
    probs = ctx.cast(_softmax_rows(ctx, ctx.cast(biased, wide), ctx.cast(bias, wide), wide),
                     dtype)
    chosen = {0: scores, 1: scores, 2: biased, 3: probs}.get(mode)
    if chosen is None:
        raise Unmapped(f"with qk_matmul_output_mode {mode}")
    return ctx.emit("matmul", probs, v), chosen


ELEM_TYPES = {"float32": 1, "float16": 10, "float64": 11, "bfloat16": 16}
"""Registry float dtype -> ONNX element type (softmax_precision names one)."""


def _elem(dtype: str) -> int | None:
    return ELEM_TYPES.get(dtype)


TABLE: dict[str, Rule] = {"Attention": _attention}
"""ONNX op_type -> rule of the attention operator."""
