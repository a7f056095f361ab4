"""ONNX `RotaryEmbedding` -> ivy ops.

The input is (batch, heads, seq, head) or (batch, seq, hidden) with `num_heads`; it is
viewed as (batch, seq, heads, head). The first `rotary_embedding_dim` features of each
head are rotated pairwise by the cached angles (picked by `position_ids` when given):
pairs are the two halves, or neighbours when `interleaved`. The rest pass through.
"""

from __future__ import annotations

from typing import Any

from .common import Rule, Unmapped
from .onnx_ctx import Ctx


def _strided(c: Ctx, x: Any, start: int, step: int) -> Any:
    """Every `step`-th feature of the last axis from `start`."""
    shape = c.spec(x).shape
    rank = len(shape)
    return c.emit("slice", x, start=[0] * (rank - 1) + [start], stop=list(shape),
                  step=[1] * (rank - 1) + [step])


def _rotary(c: Ctx, x: Any, cos_cache: Any, sin_cache: Any, position_ids: Any = None,
            interleaved: int = 0, num_heads: int = 0, rotary_embedding_dim: int = 0) -> Any:
    shape = c.spec(x).shape
    if None in shape:
        raise Unmapped("RotaryEmbedding of a dynamic shape")
    if len(shape) == 4:
        x = c.emit("permute_dims", x, axes=[0, 2, 1, 3])
    elif num_heads:
        batch, seq, hidden = shape
        x = c.emit("reshape", x, shape=[batch, seq, num_heads, hidden // num_heads])
    else:
        raise Unmapped("a 3-d input without num_heads")
    view = list(c.spec(x).shape)
    dim = rotary_embedding_dim or view[3]
    if position_ids is not None:
        ids = c.cast(position_ids, "int64")
        cos_cache = c.emit("take", cos_cache, ids, axis=0)
        sin_cache = c.emit("take", sin_cache, ids, axis=0)
    cos = c.emit("expand_dims", cos_cache, axis=[2])
    sin = c.emit("expand_dims", sin_cache, axis=[2])
    rotated = c.emit("slice", x, start=[0, 0, 0, 0], stop=view[:3] + [dim], step=[1] * 4)
    if interleaved:
        x1, x2 = _strided(c, rotated, 0, 2), _strided(c, rotated, 1, 2)
    else:
        x1, x2 = c.emit_all("split", rotated, sizes=[dim // 2, dim // 2], axis=3)
    real = c.emit("subtract", c.emit("multiply", cos, x1), c.emit("multiply", sin, x2))
    imag = c.emit("add", c.emit("multiply", sin, x1), c.emit("multiply", cos, x2))
    if interleaved:
        pairs = c.emit("stack", [real, imag], axis=-1)
        out = c.emit("reshape", pairs, shape=view[:3] + [dim])
    else:
        out = c.emit("concat", [real, imag], axis=3)
    if dim < view[3]:
        rest = c.emit("slice", x, start=[0, 0, 0, dim], stop=view, step=[1] * 4)
        out = c.emit("concat", [out, rest], axis=3)
    if len(shape) == 4:
        return c.emit("permute_dims", out, axes=[0, 2, 1, 3])
    return c.emit("reshape", out, shape=list(shape))


TABLE: dict[str, Rule] = {"RotaryEmbedding": _rotary}
"""ONNX op_type -> rule for rotary position embeddings."""
