"""Operators whose output sizes depend on the data (`NonZero`, `Unique`,
`NonMaxSuppression`; registry ops `argwhere`, `unique`, `non_max_suppression`):
ONNX's node tests through ivy_ir's ONNX backend against their stored outputs, a
detection-style post-processing graph (NMS, then gathers over its `?` rows) against
onnxruntime on every target, uint64 order on torch, JAX running such ops op by op and
the rest of their programs in jitted stages, and the shape checks' messages."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_cases import make_model, node_case, tensor_info  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import IRError  # noqa: E402
from ivy_ir.onnx_backend import backend  # noqa: E402
from lowerings import LoweringError  # noqa: E402
from lowerings.runtime import host_array  # noqa: E402

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
NODE_TESTS = [
    "test_nonzero_example",
    *(f"test_unique_{n}" for n in (
        "length_1", "not_sorted_without_axis", "sorted_with_axis", "sorted_with_axis_3d",
        "sorted_with_negative_axis", "sorted_without_axis", "bfloat16_sorted_without_axis")),
    *(f"test_nonmaxsuppression_{n}" for n in (
        "center_point_box_format", "flipped_coordinates", "identical_boxes",
        "limit_output_size", "single_box", "suppress_by_IOU",
        "suppress_by_IOU_and_scores", "two_batches", "two_classes", "iou_threshold_boundary")),
]
OTHER_TARGET_TESTS = ["test_nonzero_example", "test_unique_not_sorted_without_axis",
                      "test_unique_sorted_with_axis_3d", "test_nonmaxsuppression_two_classes"]


def _run(target: str, name: str) -> None:
    model, inputs, expected = node_case(name)
    got = backend(target).prepare(model).run(inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g = np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape, (name, g.dtype, g.shape, e.shape)
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name", NODE_TESTS)
def test_node_tests_on_numpy(name: str) -> None:
    _run("numpy", name)


@pytest.mark.parametrize("target", TARGETS[1:])
@pytest.mark.parametrize("name", OTHER_TARGET_TESTS)
def test_node_tests_on_the_other_targets(target: str, name: str) -> None:
    _run(target, name)


def _detection_model() -> onnx.ModelProto:
    """Boxes and class scores -> NMS -> each kept box's corners and score, as an
    exported detector's post-processing does: every value after NMS has `?` rows."""
    inits = [numpy_helper.from_array(np.array([3], np.int64), "max_out"),
             numpy_helper.from_array(np.array([0.4], np.float32), "iou"),
             numpy_helper.from_array(np.array([0.2], np.float32), "score_min"),
             numpy_helper.from_array(np.array([2], np.int64), "two"),
             numpy_helper.from_array(np.array([[0, 2]], np.int64), "b_and_box")]
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou",
                                               "score_min"], ["sel"]),
        helper.make_node("Gather", ["sel", "b_and_box"], ["where"], axis=1),  # (K, 1, 2)
        helper.make_node("Squeeze", ["where", "one_axis"], ["pairs"]),
        helper.make_node("GatherND", ["boxes", "pairs"], ["kept_boxes"]),
        helper.make_node("GatherND", ["scores", "sel"], ["kept_scores"]),
        helper.make_node("Mul", ["kept_scores", "kept_scores"], ["squared"]),
        helper.make_node("ReduceSum", ["kept_boxes", "one_axis"], ["box_sums"], keepdims=0),
    ]
    inits.append(numpy_helper.from_array(np.array([1], np.int64), "one_axis"))
    model = make_model(nodes, [tensor_info("boxes", [2, 6, 4]),
                               tensor_info("scores", [2, 3, 6])],
                       [tensor_info("kept_boxes", None), tensor_info("squared", None),
                        tensor_info("box_sums", None),
                        tensor_info("sel", None, TensorProto.INT64)], inits, opset=18)
    model.ir_version = 10  # what the installed onnxruntime reads
    return model


@pytest.mark.parametrize("target", TARGETS)
def test_detection_post_processing_matches_onnxruntime(target: str) -> None:
    rng = np.random.default_rng(3)
    corners = rng.uniform(0, 8, (2, 6, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(1, 4, (2, 6, 2))], -1)
    boxes = boxes.astype(np.float32)
    scores = rng.uniform(0, 1, (2, 3, 6)).astype(np.float32)
    model = _detection_model()
    want = ort.InferenceSession(model.SerializeToString()).run(
        None, {"boxes": boxes, "scores": scores})
    assert want[0].shape[0] > 3  # several boxes kept, in several batches and classes
    c = ivy_ir.compile(model, target=target, args=(boxes, scores))
    got = [host_array(v) for v in c(boxes, scores)]
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_jax_runs_a_data_shaped_program_op_by_op() -> None:
    """`jax.jit` needs every size while tracing: the program is not wrapped in it, so
    the same compiled object gives results of different lengths, and inside the
    caller's own `jax.jit` it fails with JAX's error for `jnp.nonzero`."""
    jax = pytest.importorskip("jax")
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])],
                       [tensor_info("x", [5])], [tensor_info("y", None, TensorProto.INT64)])
    x = np.array([0, 1, 0, 2, 3], np.float32)
    c = ivy_ir.compile(model, target="jax", args=(x,))
    assert np.asarray(c(x)).tolist() == [[1, 3, 4]]
    assert np.asarray(c(np.zeros(5, np.float32))).shape == (1, 0)
    assert isinstance(c(x), jax.Array)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="jnp.nonzero"):
        jax.jit(lambda a: c(a))(jax.numpy.asarray(x))


def test_jax_compiles_the_ops_around_a_data_shaped_one_in_stages() -> None:
    """A program cut at its NonZero (`lowerings/staged.py`): the layers before it and
    the gathers after it run as jitted programs, NonZero alone op by op; the stages
    pass values by position (an input read twice, an intermediate returned), and the
    later stage compiles again for each new count of nonzeros."""
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("NonZero", ["r"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
             helper.make_node("GatherND", ["r", "idx"], ["kept"]),
             helper.make_node("Mul", ["kept", "kept"], ["sq"]),
             helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0)]
    model = make_model(nodes, [tensor_info("x", [4, 8])],
                       [tensor_info("sq", None), tensor_info("r", [4, 8]),
                        tensor_info("total", [])], [numpy_helper.from_array(w, "w")], opset=18)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    c = ivy_ir.compile(model, target="jax", args=(x,))
    assert c.source.count("# stage") == 3
    assert "stage 1, op by op" in c.source and "jnp.argwhere" in c.source
    reference = ivy_ir.compile(model, target="numpy", args=(x,))
    for a in (x, -x, np.zeros_like(x)):
        got, want = c(a), reference(a)
        assert all(isinstance(g, jax.Array) for g in got)
        for g, w_ in zip(got, want):
            assert np.asarray(g).shape == w_.shape
            np.testing.assert_allclose(np.asarray(g), w_, rtol=1e-5, atol=1e-6)


def test_jax_stages_of_consecutive_data_shaped_ops_and_a_returned_input() -> None:
    """Two data-shaped ops in a row (Unique of NonZero's positions), each its own
    stage, and an input returned as it is, which no stage writes."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Unique", ["nz"], ["u"], sorted=1),
             helper.make_node("Cast", ["u"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["f"], ["s"], keepdims=0)]
    model = make_model(nodes, [tensor_info("x", [3, 4])],
                       [tensor_info("s", []), tensor_info("x", [3, 4])], opset=18)
    x = np.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 0, 4]], np.float32)
    c = ivy_ir.compile(model, target="jax", args=(x,))
    assert c.source.count("op by op") == 2 and c.source.count("import jax\n") == 1
    s, same = c(x)
    assert float(s) == float(np.unique(np.nonzero(x)).sum()) and np.asarray(same).tolist() \
        == x.tolist()


def test_xla_compilation_of_a_data_shaped_program_is_refused() -> None:
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])],
                       [tensor_info("x", [5])], [tensor_info("y", None, TensorProto.INT64)])
    with pytest.raises(LoweringError, match="jit_compile=True: XLA needs every size"):
        ivy_ir.compile(model, target="tensorflow", args=(np.ones(5, np.float32),),
                       jit_compile=True)


def test_torch_unique_orders_uint64_as_unsigned() -> None:
    text = """
func.func @main(%x: tensor<5xui64>) -> (tensor<?xui64>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>) {
  %a, %b, %c, %d = ivy.unique %x : (tensor<5xui64>) -> (tensor<?xui64>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>)
  func.return %a, %b, %c, %d : tensor<?xui64>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>
}"""
    x = np.array([2**63 + 1, 1, 2**64 - 1, 1, 2**63 + 1], np.uint64)
    fn = ivy_ir.lower(ivy_ir.parse(text), target="torch")
    values, first, inverse, counts = (np.asarray(v) for v in fn(x))
    np.testing.assert_array_equal(values, np.array([1, 2**63 + 1, 2**64 - 1], np.uint64))
    assert first.tolist() == [1, 0, 2] and inverse.tolist() == [1, 0, 2, 0, 1]
    assert counts.tolist() == [2, 2, 1]


@pytest.mark.parametrize("boxes, scores, message", [
    ("2x4xf32", "1x1x2xf32", r"boxes must be \(batch, boxes, 4\), got shape \(2, 4\)"),
    ("1x3x4xf32", "1x2x5xf32", r"scores' box count 5 differs from boxes' 3"),
    ("2x3x4xf32", "1x2x3xf32", r"scores' batch 1 differs from boxes' 2"),
])
def test_nms_shapes_are_checked(boxes: str, scores: str, message: str) -> None:
    text = f"""
func.func @main(%b: tensor<{boxes}>, %s: tensor<{scores}>) -> tensor<?x3xi64> {{
  %r = ivy.non_max_suppression %b, %s : (tensor<{boxes}>, tensor<{scores}>) -> tensor<?x3xi64>
  func.return %r : tensor<?x3xi64>
}}"""
    with pytest.raises(IRError, match=message) as info:
        ivy_ir.parse(text)
    assert str(info.value).startswith("<ir>:3:")  # the line of the op in the text
