"""TF SpaceToBatchND / BatchToSpaceND -> ivy ops, and the dilated convolution they
spell.

TF runs a dilated convolution (`tf.nn.convolution`, `depthwise_conv2d` and so every
Keras convolution with `dilation_rate > 1`) as SpaceToBatchND -> a plain VALID
convolution -> BatchToSpaceND: the padded image is split into `block` interleaved
phases stacked on the batch axis, each convolved densely, then interleaved back and
cropped. Phase r of output pixel i reads padded[r + (i + t) * block] for tap t, which is
padded[j + t * block] at j = i * block + r: the interleaved result *is* the VALID
convolution of the padded image with dilation `block`, and cropping (lo, hi) off it is
the same convolution with (lo, hi) less padding. So BatchToSpaceND of such a
convolution (2-D, 3-D, or Conv1D's 1-D through ExpandDims/Squeeze: `_chain`) imports as
that one `ivy.conv` (`FUSABLE`); the ops it was built from, then unused, are dropped
when the import ends (`tensorflow.import_program`). Anywhere else the two ops import
as what they are: a pad, a reshape splitting each spatial axis into (size / block,
block), a transpose bringing the block factors in front of the batch, a reshape
(SpaceToBatchND), and the reverse with a crop (BatchToSpaceND).
"""

from __future__ import annotations

import math
from typing import Any

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, node_attrs
from .tensorflow_nn import emit_conv

FUSABLE = {"Conv2D": (False, 2), "DepthwiseConv2dNative": (True, 2), "Conv3D": (False, 3)}
"""Convolutions between SpaceToBatchND and BatchToSpaceND that fold into one dilated
`ivy.conv`: raw op -> (depthwise, spatial axes); a chain through any other op imports
op by op."""


def _static_shape(c: Ctx, x: Any) -> list[int]:
    shape = list(c.spec(x).shape)
    if None in shape:
        raise Unmapped("dynamic shape")
    return shape


def _space_to_batch(c: Ctx, x: Any, block_shape: Any, paddings: Any, **_: Any) -> Any:
    block, pads = c.ints(block_shape, "block_shape"), c.ints(paddings, "paddings")
    shape, m = _static_shape(c, x), len(block)
    rest = shape[1 + m:]
    x = c.operand(x)
    if any(pads):
        x = c.emit("pad", x, pad_width=[0, 0, *pads] + [0, 0] * len(rest))
    inner = [(d + lo + hi) // b for d, lo, hi, b in zip(shape[1:], pads[::2], pads[1::2], block)]
    split = [shape[0]] + [v for n, b in zip(inner, block) for v in (n, b)] + rest
    x = c.emit("reshape", x, shape=split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    x = c.emit("permute_dims", x, axes=perm + list(range(1 + 2 * m, len(split))))
    return c.emit("reshape", x, shape=[math.prod(block) * shape[0], *inner, *rest])


def _batch_to_space(c: Ctx, x: Any, block_shape: Any, crops: Any, **_: Any) -> Any:
    block, crop = c.ints(block_shape, "block_shape"), c.ints(crops, "crops")
    fused = _dilated_conv(c, block, crop)
    if fused is not None:
        return fused
    shape, m = _static_shape(c, x), len(block)
    n, rest = shape[0] // math.prod(block), shape[1 + m:]
    x = c.emit("reshape", x, shape=[*block, n, *shape[1:]])
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)]
    x = c.emit("permute_dims", x, axes=perm + list(range(2 * m + 1, 2 * m + 1 + len(rest))))
    grown = [d * b for d, b in zip(shape[1:], block)]
    x = c.emit("reshape", x, shape=[n, *grown, *rest])
    if not any(crop):
        return x
    start = [0, *crop[::2]] + [0] * len(rest)
    stop = [n] + [g - hi for g, hi in zip(grown, crop[1::2])] + rest
    return c.emit("slice", x, start=start, stop=stop, step=[1] * len(start))


def _chain(c: Ctx) -> tuple[Any, Any, Any, int] | None:
    """The SpaceToBatchND op, the convolution op, the filter tensor and the number of
    spatial axes of the chain that ends in this BatchToSpaceND, or None. A 1-D chain
    (Keras Conv1D) reaches a 2-D convolution through ExpandDims of the phases and of
    the filter at the height axis, and back through Squeeze."""
    conv = c.op.inputs[0].op
    one_d = conv.type == "Squeeze"
    if one_d:
        if node_attrs(conv).get("squeeze_dims") not in ([1], [-3]):
            return None
        conv = conv.inputs[0].op
    if conv.type not in FUSABLE:
        return None
    source, w = conv.inputs[0].op, conv.inputs[1]
    if one_d:
        if FUSABLE[conv.type][1] != 2 or not (
                _expands(c, source, (1, -3)) and _expands(c, w.op, (0, -4))):
            return None
        source, w = source.inputs[0].op, w.op.inputs[0]
    if source.type != "SpaceToBatchND":
        return None
    return source, conv, w, 1 if one_d else FUSABLE[conv.type][1]


def _expands(c: Ctx, op: Any, axes: tuple[int, ...]) -> bool:
    if op.type != "ExpandDims":
        return False
    axis = c.known(c.value_of(op.inputs[1]))
    return axis is not None and axis.size == 1 and int(axis.ravel()[0]) in axes


def _dilated_conv(c: Ctx, block: list[int], crop: list[int]) -> Any:
    """The one dilated `ivy.conv` a SpaceToBatchND -> conv -> BatchToSpaceND chain
    computes, or None where the chain is not exactly that (see the module docstring)."""
    chain = _chain(c)
    if chain is None:
        return None
    space_to_batch, conv, filters, n = chain
    attrs = node_attrs(conv)
    if attrs.get("padding") != "VALID" or attrs.get("data_format", "NHWC")[-1] != "C" or any(
            v != 1 for v in attrs["strides"] + (attrs.get("dilations") or [])):
        return None
    x, inner_block, paddings = (c.value_of(t) for t in space_to_batch.inputs)
    w = c.value_of(filters)
    known = c.known(inner_block), c.known(paddings)
    if any(k is None for k in known) or len(block) != n or \
            [int(v) for v in known[0].ravel()] != block:
        return None
    pads = [int(p) - int(k) for p, k in zip(known[1].ravel(), crop)]
    if any(p < 0 for p in pads) or x is None or w is None:
        return None
    sizes, kernel = c.spec(x).shape[1:1 + n], c.spec(w).shape[:n]
    out = [d + lo + hi - (k - 1) * b for d, lo, hi, k, b in
           zip(sizes, pads[::2], pads[1::2], kernel, block)]
    if out != list(c.out.shape[1:1 + n]):
        return None
    return emit_conv(c, x, w, FUSABLE[conv.type][0], "channels_last", [1] * n, pads, block)


SPACE: dict[str, Rule] = {
    "SpaceToBatchND": _space_to_batch, "BatchToSpaceND": _batch_to_space,
}
"""TF raw op -> rule: space/batch reshuffles (and the dilated convolutions they spell)."""
