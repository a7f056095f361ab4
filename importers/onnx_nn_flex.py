"""FlexAttention (domain `ai.onnx.preview`, opset 26): attention with ONNX subgraphs that
rewrite the scores and the probabilities, imported inline by the walker.

As ONNX defines it: q and k each scaled by sqrt(scale) (scale in float32, then q's
dtype), their product cast to the softmax dtype (`softmax_precision`, else float32 for
16-bit inputs and the input dtype otherwise), `score_mod` applied, softmax over the
keys, `prob_mod` applied, and the product with v in that dtype, cast back to v's dtype.
Grouped key/value heads are repeated to the query heads.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import Rule, Unmapped

DOMAIN = "ai.onnx.preview"
"""The operator domain this table serves."""


def _modified(ctx: Any, graph: Any, value: Any, dtype: str) -> Any:
    """`value` through a one-in, one-out modifier subgraph, kept in `dtype`."""
    if graph is None:
        return value
    outs = ctx.subgraph(graph, [value])
    if len(outs) != 1:
        raise Unmapped(f"a modifier subgraph with {len(outs)} outputs")
    return ctx.cast(outs[0], dtype)


def _flex_attention(ctx: Any, q: Any, k: Any, v: Any, *, prob_mod: Any = None,
                    scale: float | None = None, score_mod: Any = None,
                    softmax_precision: int | None = None) -> Any:
    spec = ctx.spec(q)
    if spec.rank != 4 or None in spec.shape or None in ctx.spec(k).shape:
        raise Unmapped(f"on inputs {spec.shape}, {ctx.spec(k).shape} (static rank 4 only)")
    hq, hk = spec.shape[1], ctx.spec(k).shape[1]
    if hq != hk:
        k, v = (ctx.emit("repeat", t, repeats=hq // hk, axis=1) for t in (k, v))
    scale = 1.0 / math.sqrt(spec.shape[3]) if scale is None else scale
    root = ctx.const(np.sqrt(np.float32(scale)), spec.dtype)
    kt = ctx.emit("permute_dims", ctx.emit("multiply", k, root), axes=[0, 1, 3, 2])
    scores = ctx.emit("matmul", ctx.emit("multiply", q, root), kt)
    if softmax_precision is not None:
        wide = ctx.dtype(softmax_precision)
    else:
        wide = spec.dtype if spec.dtype in ("float32", "float64") else "float32"
    scores = _modified(ctx, score_mod, ctx.cast(scores, wide), wide)
    probs = _modified(ctx, prob_mod, ctx.emit("softmax", scores, axis=3), wide)
    out_dtype = ctx.spec(v).dtype
    return ctx.cast(ctx.emit("matmul", probs, ctx.cast(v, wide)), out_dtype)


TABLE: dict[str, Rule] = {"FlexAttention": _flex_attention}
"""ai.onnx.preview op_type -> rule of flexible attention."""
