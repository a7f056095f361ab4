"""ONNX's neural-network operators on hand-built models: attribute variants the node
tests miss and older opsets, against ONNX's reference evaluator, NumPy or torch, and the
errors for uses the registry cannot express."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_nn_cases import make_model, ours, randn, reference, vi  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import UnsupportedOpsError  # noqa: E402


def test_batch_norm_opset7_and_training_statistics() -> None:
    x = randn(2, 3, 4, 4)
    values = {"s": [1.0, 2.0, 0.5], "b": [0.1, 0.0, -0.2], "m": [0.3, -0.1, 0.2],
              "v": [1.5, 0.7, 2.0]}
    stats = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in values.items()]
    old = make_model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                                       epsilon=1e-3, spatial=1, is_test=1)],
                     [vi("x", [2, 3, 4, 4])], [vi("y", None)], 7, stats)
    scale, bias, mean, var = (numpy_helper.to_array(t) for t in stats)
    want = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3) * scale[:, None, None] \
        + bias[:, None, None]
    np.testing.assert_allclose(ours(old, x)[0], want, rtol=1e-5, atol=1e-6)
    train = make_model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                                         ["y", "rm", "rv"], momentum=0.8, training_mode=1)],
                       [vi("x", [2, 3, 4, 4])], [vi(n, None) for n in ("y", "rm", "rv")], 15,
                       stats)
    y, rm, rv = ours(train, x)
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(rm, mean * 0.8 + batch_mean * 0.2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv, var * 0.8 + batch_var * 0.2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, reference(train, {"x": x})[0], rtol=1e-4, atol=1e-5)


def test_batch_norm_per_activation_is_unmapped() -> None:
    stats = [numpy_helper.from_array(np.ones(3, np.float32), n) for n in "sbmv"]
    model = make_model([helper.make_node("BatchNormalization", list("xsbmv"), ["y"], spatial=0)],
                       [vi("x", [2, 3, 4])], [vi("y", None)], 7, stats)
    with pytest.raises(UnsupportedOpsError, match="BatchNormalization.*spatial=0"):
        ivy_ir.trace(model, args=(randn(2, 3, 4),))


def _softmax_2d(flat: np.ndarray) -> np.ndarray:
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


FLATTENED = {
    "Softmax": _softmax_2d,
    "LogSoftmax": lambda flat: np.log(_softmax_2d(flat)),
    "Hardmax": lambda flat: np.eye(flat.shape[1], dtype=flat.dtype)[flat.argmax(axis=1)],
}
"""The opset < 13 forms over the input flattened to 2-D at `axis` (ONNX's reference
evaluator applies the opset 13 single-axis form to every opset, so NumPy is the
reference here)."""


@pytest.mark.parametrize("op", sorted(FLATTENED))
def test_softmax_family_opset11_flattens_at_axis(op: str) -> None:
    model = make_model([helper.make_node(op, ["x"], ["y"], axis=1)], [vi("x", [2, 3, 4])],
                       [vi("y", None)], 11)
    x = randn(2, 3, 4)
    want = FLATTENED[op](x.reshape(2, 12)).reshape(2, 3, 4)
    np.testing.assert_allclose(ours(model, x)[0], want, rtol=1e-5, atol=1e-6)


def _scales(values: list[float]) -> object:
    """A Constant node `sc` of float scales (known at import)."""
    return helper.make_node("Constant", [], ["sc"], value=numpy_helper.from_array(
        np.array(values, np.float32)))


def test_upsample_opset7_and_9_and_resize_10() -> None:
    x = randn(1, 2, 3, 3)
    want = x.repeat(2, axis=2).repeat(3, axis=3)
    seven = make_model([helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0])],
                       [vi("x", [1, 2, 3, 3])], [vi("y", None)], 7)
    nine, ten = (make_model([_scales([1, 1, 2, 3]), helper.make_node(op, ["x", "sc"], ["y"])],
                            [vi("x", [1, 2, 3, 3])], [vi("y", None)], opset)
                 for op, opset in (("Upsample", 9), ("Resize", 10)))
    for model in (seven, nine, ten):
        np.testing.assert_array_equal(ours(model, x)[0], want)


def test_resize_11_tf_half_pixel_for_nn() -> None:
    """Opset 11's mode (dropped in 13): source = (out + 0.5) / scale, rounded."""
    sizes = numpy_helper.from_array(np.array([1, 1, 8, 8], np.int64), "sz")
    roi = numpy_helper.from_array(np.zeros(0, np.float32), "roi")
    scales = numpy_helper.from_array(np.zeros(0, np.float32), "sc")
    model = make_model([helper.make_node("Resize", ["x", "roi", "sc", "sz"], ["y"],
                                         coordinate_transformation_mode="tf_half_pixel_for_nn")],
                       [vi("x", [1, 1, 4, 4])], [vi("y", None)], 11, [roi, scales, sizes])
    x = randn(1, 1, 4, 4)
    pick = [0, 1, 1, 2, 2, 3, 3, 3]  # round_prefer_floor((i + 0.5) / 2), clipped
    np.testing.assert_array_equal(ours(model, x)[0], x[:, :, pick][:, :, :, pick])


def test_prelu_opset6_slope_per_channel() -> None:
    slope = numpy_helper.from_array(np.array([0.1, 0.5, 2.0], np.float32), "s")
    model = make_model([helper.make_node("PRelu", ["x", "s"], ["y"])], [vi("x", [2, 3, 4])],
                       [vi("y", None)], 6, [slope])
    x = randn(2, 3, 4)
    want = np.where(x < 0, x * np.array([0.1, 0.5, 2.0], np.float32)[:, None], x)
    np.testing.assert_allclose(ours(model, x)[0], want, rtol=1e-6)


def test_resize_scales_from_a_float_initializer() -> None:
    """Exported models keep scales as initializers: fixed at import, not a parameter."""
    scales = numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "sc")
    model = make_model([helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")],
                       [vi("x", [1, 2, 3, 4])], [vi("y", None)], 13, [scales])
    x = randn(1, 2, 3, 4)
    np.testing.assert_allclose(ours(model, x)[0], reference(model, {"x": x})[0], rtol=1e-5,
                               atol=1e-6)


def test_resize_10_nearest_downsampling_is_unmapped() -> None:
    model = make_model([_scales([1, 1, 0.5, 0.5]), helper.make_node("Resize", ["x", "sc"], ["y"])],
                       [vi("x", [1, 1, 4, 4])], [vi("y", None)], 10)
    with pytest.raises(UnsupportedOpsError, match="Resize.*rounding unspecified"):
        ivy_ir.trace(model, args=(randn(1, 1, 4, 4),))


def test_resize_linear_on_integer_input_is_unmapped() -> None:
    sizes = numpy_helper.from_array(np.array([1, 1, 5, 5], np.int64), "sz")
    model = make_model([helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear")],
                       [vi("x", [1, 1, 3, 3], TensorProto.INT32)], [vi("y", None)], 19, [sizes])
    with pytest.raises(UnsupportedOpsError, match="linear mode on int32 input"):
        ivy_ir.trace(model, args=(np.arange(9, dtype=np.int32).reshape(1, 1, 3, 3),))


def test_dropout_opset7_ratio_attribute_is_identity() -> None:
    """Before opset 10 the mask has the input's dtype."""
    model = make_model([helper.make_node("Dropout", ["x"], ["y", "mask"], ratio=0.3)],
                       [vi("x", [3, 4])], [vi("y", None), vi("mask", None)], 7)
    x = randn(3, 4)
    y, mask = ours(model, x)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.float32 and (mask == 1).all()


def test_training_dropout_masks_and_rescales() -> None:
    ratio = numpy_helper.from_array(np.array(0.25, np.float32), "r")
    train = numpy_helper.from_array(np.array(True), "t")
    model = make_model([helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"])],
                       [vi("x", [64, 64])], [vi("y", None), vi("mask", None, TensorProto.BOOL)],
                       13, [ratio, train])
    x = np.abs(randn(64, 64)) + 1
    y, mask = ours(model, x)
    assert mask.dtype == np.bool_ and 0.2 < 1 - mask.mean() < 0.3
    np.testing.assert_allclose(y, np.where(mask, x / 0.75, 0), rtol=1e-6)


def test_group_norm_opset18_scale_per_group() -> None:
    scale = numpy_helper.from_array(np.array([2.0, -1.0], np.float32), "s")
    bias = numpy_helper.from_array(np.array([0.5, 1.0], np.float32), "b")
    model = make_model([helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                                         num_groups=2, epsilon=1e-4)],
                       [vi("x", [2, 6, 3])], [vi("y", None)], 18, [scale, bias])
    x = randn(2, 6, 3)
    g = x.reshape(2, 2, 9)
    norm = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-4))
    want = norm * np.array([2.0, -1.0])[:, None] + np.array([0.5, 1.0])[:, None]
    np.testing.assert_allclose(ours(model, x)[0], want.reshape(2, 6, 3), rtol=1e-5, atol=1e-5)


def test_layer_norm_statistics_outputs() -> None:
    scale = numpy_helper.from_array(np.full([4], 1.5, np.float32), "s")
    model = make_model([helper.make_node("LayerNormalization", ["x", "s"], ["y", "mean", "inv"],
                                         axis=-2)],
                       [vi("x", [2, 3, 4])], [vi(n, None) for n in ("y", "mean", "inv")], 17,
                       [scale])
    x = randn(2, 3, 4)
    for got, want in zip(ours(model, x), reference(model, {"x": x})):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [
    {"auto_pad": "SAME_LOWER", "strides": [2, 2]}, {"pads": [0, 1, 2, 1], "dilations": [2, 1]},
    {"auto_pad": "VALID", "strides": [1, 2], "group": 2}])
def test_conv_padding_variants(attrs: dict) -> None:
    w = numpy_helper.from_array(randn(4, 2 if attrs.get("group") else 4, 3, 3), "w")
    model = make_model([helper.make_node("Conv", ["x", "w"], ["y"], **attrs)],
                       [vi("x", [1, 4, 7, 6])], [vi("y", None)], 13, [w])
    x = randn(1, 4, 7, 6)
    np.testing.assert_allclose(ours(model, x)[0], reference(model, {"x": x})[0], rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("attrs", [
    {"strides": [2, 2], "output_shape": [8, 9], "auto_pad": "SAME_UPPER"},
    {"strides": [2, 3], "output_padding": [1, 2], "pads": [1, 0, 0, 1]}])
def test_conv_transpose_output_variants(attrs: dict) -> None:
    w = numpy_helper.from_array(randn(4, 3, 3, 3), "w")
    model = make_model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attrs)],
                       [vi("x", [1, 4, 4, 4])], [vi("y", None)], 13, [w])
    x = randn(1, 4, 4, 4)
    np.testing.assert_allclose(ours(model, x)[0], reference(model, {"x": x})[0], rtol=1e-4,
                               atol=1e-5)


def test_grouped_conv_transpose_same_lower() -> None:
    """SAME_LOWER puts the odd cell of padding first (ONNX's reference evaluator cannot
    run grouped ConvTranspose, so torch is the reference)."""
    torch = pytest.importorskip("torch")
    w = randn(4, 3, 3, 3)
    model = make_model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2],
                                         auto_pad="SAME_LOWER", group=2)],
                       [vi("x", [1, 4, 4, 4])], [vi("y", None)], 13,
                       [numpy_helper.from_array(w, "w")])
    x = randn(1, 4, 4, 4)
    full = torch.nn.functional.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w),
                                                stride=2, groups=2).numpy()
    np.testing.assert_allclose(ours(model, x)[0], full[:, :, 1:, 1:], rtol=1e-4, atol=1e-5)


def test_pools_with_pads_over_half_the_kernel() -> None:
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], pads=[2, 2, 2, 2]),
             helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3],
                              pads=[2, 2, 2, 2], count_include_pad=0, strides=[2, 2])]
    model = make_model(nodes, [vi("x", [1, 2, 5, 5])], [vi("m", None), vi("a", None)], 19)
    x = randn(1, 2, 5, 5)
    m, a = ours(model, x)
    np.testing.assert_allclose(m, reference(model, {"x": x})[0], rtol=1e-6)
    padded = np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)])
    counts = np.pad(np.ones((5, 5)), 2)
    want = np.array([[[padded[0, c, i:i + 3, j:j + 3].sum()
                       / counts[i:i + 3, j:j + 3].sum() for j in range(0, 7, 2)]
                      for i in range(0, 7, 2)] for c in range(2)])
    np.testing.assert_allclose(a[0], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize(("size", "kernel", "pad", "stride"), [(6, 3, 2, 2), (5, 3, 2, 2),
                                                               (7, 2, 1, 3), (8, 3, 2, 3)])
def test_ceil_mode_pools_with_large_pads(op: str, size: int, kernel: int, pad: int,
                                         stride: int) -> None:
    """ceil_mode drops windows that would start in the end padding, also where the pads
    are too large for the registry pool and are applied explicitly."""
    extra = {"count_include_pad": size % 2} if op == "AveragePool" else {}
    model = make_model([helper.make_node(op, ["x"], ["y"], kernel_shape=[kernel, kernel],
                                         pads=[pad] * 4, strides=[stride, stride], ceil_mode=1,
                                         **extra)],
                       [vi("x", [1, 2, size, size])], [vi("y", None)], 19)
    x = randn(1, 2, size, size)
    np.testing.assert_allclose(ours(model, x)[0], reference(model, {"x": x})[0], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize(("node", "detail"), [
    (helper.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=2, activation_alpha=[0.5]),
     r"GRU.*with 1 alpha\(s\) and 0 beta\(s\) left unused"),
    (helper.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=2,
                      activations=["Sigmoid", "Gelu"]), "GRU.*with activation 'gelu'"),
    (helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="nearest", antialias=1),
     "Resize.*antialias with mode nearest"),
    (helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                      keep_aspect_ratio_policy="fit"), "Resize.*keep_aspect_ratio_policy 'fit'"),
    (helper.make_node("LpNormalization", ["x"], ["y"], p=3), "LpNormalization.*p=3"),
    (helper.make_node("ConvTranspose", ["x", "w"], ["y"], output_padding=[2]),
     r"ConvTranspose.*output_padding \[2\] not below stride or dilation"),
])
def test_unmappable_attribute_uses_are_reported(node: object, detail: str) -> None:
    w = randn(3, 2, 3) if node.op_type == "ConvTranspose" else randn(1, 6, 3)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(randn(1, 6, 2), "r"),
             numpy_helper.from_array(np.array([2, 1, 5], np.int64), "sz")]
    model = make_model([node], [vi("x", [2, 1, 3])], [vi(o, None) for o in node.output], 19,
                       [i for i in inits if i.name in node.input])
    with pytest.raises(UnsupportedOpsError, match=detail):
        ivy_ir.trace(model, args=(randn(2, 1, 3),))


def test_maxpool_indices_column_major_with_padding_and_dilation() -> None:
    model = make_model([helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 2],
                                         pads=[1, 0, 1, 1], dilations=[1, 2], strides=[2, 1],
                                         storage_order=1)],
                       [vi("x", [2, 3, 6, 5])], [vi("y", None), vi("i", None, TensorProto.INT64)],
                       12)
    x = randn(2, 3, 6, 5)
    for got, want in zip(ours(model, x), reference(model, {"x": x})):
        np.testing.assert_array_equal(got, want)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


def _gru_reference(x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray,
                   lens: np.ndarray, clip: float, f: object = _sigmoid,
                   g: object = lambda v: np.maximum(v, 0)) -> tuple[np.ndarray, np.ndarray]:
    """ONNX's GRU equations (linear_before_reset=0, activations f and g, clip,
    sequence_lens), bidirectional, written out in NumPy."""
    steps, batch, _ = x.shape
    hidden = r.shape[-1]
    y = np.zeros((steps, 2, batch, hidden), np.float32)
    finals = np.zeros((2, batch, hidden), np.float32)
    for d in range(2):
        wz, wr, wh = np.split(w[d], 3)
        rz, rr, rh = np.split(r[d], 3)
        wbz, wbr, wbh, rbz, rbr, rbh = np.split(b[d], 6)
        for n in range(batch):
            h = np.zeros(hidden, np.float32)
            order = range(lens[n]) if d == 0 else range(lens[n] - 1, -1, -1)
            for t in order:
                z = f(np.clip(x[t, n] @ wz.T + h @ rz.T + wbz + rbz, -clip, clip))
                rt = f(np.clip(x[t, n] @ wr.T + h @ rr.T + wbr + rbr, -clip, clip))
                cand = g(np.clip(x[t, n] @ wh.T + (rt * h) @ rh.T + rbh + wbh, -clip, clip))
                h = (1 - z) * cand + z * h
                y[t, d, n] = h
            finals[d, n] = h
    return y, finals


def test_gru_cells_with_clip_activations_and_sequence_lengths() -> None:
    """Features beyond the registry's torch-shaped `ivy.gru` run as scans of ONNX's cell."""
    w, r, b = randn(2, 9, 4), randn(2, 9, 3), randn(2, 18)
    lens = np.array([3, 1, 2], np.int32)
    inits = [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (r, "r"), (b, "b"),
                                                        (lens, "lens"))]
    model = make_model([helper.make_node("GRU", ["x", "w", "r", "b", "lens"], ["y", "h"],
                                         hidden_size=3, direction="bidirectional", clip=0.8,
                                         activations=["Sigmoid", "Relu"] * 2)],
                       [vi("x", [3, 3, 4])], [vi("y", None), vi("h", None)], 14, inits)
    x = randn(3, 3, 4)
    want_y, want_h = _gru_reference(x, w, r, b, lens, 0.8)
    got_y, got_h = ours(model, x)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-5, atol=1e-6)


def test_gru_cells_with_activation_alpha_and_beta() -> None:
    """activation_alpha/beta are consumed in order by the activations taking them:
    HardSigmoid(0.3, 0.6) and LeakyRelu(0.2) per direction."""
    w, r, b = randn(2, 9, 4), randn(2, 9, 3), randn(2, 18)
    lens = np.array([3, 3, 3], np.int32)
    inits = [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (r, "r"), (b, "b"),
                                                        (lens, "lens"))]
    model = make_model([helper.make_node("GRU", ["x", "w", "r", "b", "lens"], ["y", "h"],
                                         hidden_size=3, direction="bidirectional", clip=9.0,
                                         activations=["HardSigmoid", "LeakyRelu"] * 2,
                                         activation_alpha=[0.3, 0.2] * 2,
                                         activation_beta=[0.6, 0.6])],
                       [vi("x", [3, 3, 4])], [vi("y", None), vi("h", None)], 14, inits)
    x = randn(3, 3, 4)
    want_y, want_h = _gru_reference(x, w, r, b, lens, 9.0,
                                    lambda v: np.clip(0.3 * v + 0.6, 0, 1),
                                    lambda v: np.where(v >= 0, v, 0.2 * v))
    got_y, got_h = ours(model, x)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-5, atol=1e-6)
