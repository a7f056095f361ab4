"""ONNX LinearAttention (opset 27) as one `ivy.scan` over the tokens.

The state S (batch, kv heads, d_k, d_v) is the scan's carry, in float32 as ONNX computes
it. Per token t, with the update rule's parts: `gated` decays S by exp(g_t) (one factor
per head, or per head and key dim), `delta` replaces v_t by beta_t * (v_t - S^T k_t),
then S += k_t (outer) v_t, and the output is scale * q_t^T S (each kv head's state read
by its group of query heads). The packed (batch, tokens, heads * dim) inputs are
unpacked and moved token-first for the scan.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ivy_ir.core.control import emit_scan

from .common import Rule, Unmapped

RULES = {"linear": (False, False), "gated": (True, False), "delta": (False, True),
         "gated_delta": (True, True)}
"""update_rule -> (decays the state, corrects by delta)."""


def _token_major(ctx: Any, t: Any, heads: int) -> Any:
    """(B, T, heads * d) -> (T, B, heads, d) in float32."""
    b, steps, width = ctx.spec(t).shape
    split = ctx.emit("reshape", ctx.cast(t, "float32"), shape=[b, steps, heads, width // heads])
    return ctx.emit("permute_dims", split, axes=[1, 0, 2, 3])


def _linear_attention(ctx: Any, query: Any, key: Any, value: Any, past_state: Any = None,
                      decay: Any = None, beta: Any = None, *, chunk_size: int = 64,
                      kv_num_heads: int, q_num_heads: int, scale: float = 0.0,
                      update_rule: str = "gated_delta") -> list[Any]:
    if update_rule not in RULES:
        raise Unmapped(f"with update_rule {update_rule!r}")
    gating, delta = RULES[update_rule]
    if gating != (decay is not None) or delta != (beta is not None):
        raise Unmapped(f"update_rule {update_rule!r} with decay/beta inputs that do not fit")
    spec = ctx.spec(query)
    if None in spec.shape or None in ctx.spec(value).shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    b, steps, _ = spec.shape
    d_k = spec.shape[2] // q_num_heads
    d_v = ctx.spec(value).shape[2] // kv_num_heads
    group = q_num_heads // kv_num_heads
    xs = [_token_major(ctx, query, q_num_heads), _token_major(ctx, key, kv_num_heads),
          _token_major(ctx, value, kv_num_heads)]
    if gating:  # one decay per head, or per head and key dim
        xs.append(_token_major(ctx, decay, kv_num_heads))
    if delta:  # one rate per head, or one for all
        xs.append(_token_major(ctx, beta, ctx.spec(beta).shape[2]))
    state_dtype = spec.dtype if past_state is None else ctx.spec(past_state).dtype
    state = ctx.cast(past_state, "float32") if past_state is not None else \
        np.zeros((b, kv_num_heads, d_k, d_v), np.float32)
    factor = np.float32(scale if scale else 1.0 / math.sqrt(d_k))

    def body(args: list[Any]) -> list[Any]:
        s, q_t, k_t, v_t, *rest = args
        if gating:
            s = ctx.emit("multiply", s, ctx.emit("expand_dims", ctx.emit("exp", rest.pop(0)),
                                                 axis=[3]))
        if delta:
            seen = ctx.emit("squeeze", ctx.emit("matmul", ctx.emit(
                "expand_dims", k_t, axis=[2]), s), axis=[2])
            v_t = ctx.emit("multiply", rest.pop(0), ctx.emit("subtract", v_t, seen))
        s = ctx.emit("add", s, ctx.emit("multiply", ctx.emit("expand_dims", k_t, axis=[3]),
                                        ctx.emit("expand_dims", v_t, axis=[2])))
        read = ctx.emit("repeat", s, repeats=group, axis=1) if group > 1 else s
        y = ctx.emit("squeeze", ctx.emit("matmul", ctx.emit("expand_dims", q_t, axis=[2]),
                                         read), axis=[2])
        return [s, ctx.emit("multiply", y, np.asarray(factor))]
    final, ys = emit_scan(ctx.b.graph, [ctx.operand(state)], [ctx.operand(v) for v in xs],
                          body, length=steps)
    out = ctx.emit("reshape", ctx.emit("permute_dims", ys, axes=[1, 0, 2, 3]),
                   shape=[b, steps, q_num_heads * d_v])
    return [ctx.cast(out, spec.dtype), ctx.cast(final, state_dtype)]


TABLE: dict[str, Rule] = {"LinearAttention": _linear_attention}
"""ONNX op_type -> rule of linear attention."""
