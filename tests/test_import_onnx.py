"""The ONNX importer (`importers/onnx.py`): ONNX's own node tests for the core operator
families compared numerically, hand-built models for naming, locations, opset upgrades,
the unsupported report, malformed and hostile models, external data and the CLI
(control flow: `test_import_onnx_control.py`)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_cases import check, make_model, node_case, tensor_info  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.dim_flow import DimError  # noqa: E402
from ivy_ir.core.errors import UnsupportedOpsError  # noqa: E402

NODE_CASES = [
    "test_add_bcast", "test_div_int8", "test_mod_mixed_sign_int32", "test_mod_int64_fmod",
    "test_mod_mixed_sign_float32", "test_pow_types_int32_float32", "test_bitshift_right_uint16",
    "test_isinf_negative", "test_round", "test_clip_splitbounds", "test_max_int16",
    "test_mean_example", "test_gemm_all_attributes", "test_matmul_2d", "test_einsum_transpose",
    "test_where_long_example", "test_cast_FLOAT_to_DOUBLE", "test_castlike_DOUBLE_to_FLOAT16",
    "test_equal_bcast", "test_xor_bcast4v4d",
    "test_argmax_negative_axis_keepdims_random_select_last_index",
    "test_transpose_all_permutations_2", "test_flatten_negative_axis1",
    "test_concat_3d_axis_negative_2", "test_split_equal_parts_2d",
    "test_split_1d_uneven_split_opset18", "test_gather_negative_indices",
    "test_gather_elements_negative_indices", "test_gathernd_example_int32",
    "test_scatter_elements_with_negative_indices", "test_scatternd_add",
    "test_shape_start_negative_1", "test_size_example", "test_identity",
    "test_eyelike_with_dtype", "test_scan9_sum", "test_if", "test_sce_mean_weight_ii_log_prob",
    "test_nllloss_NCd1d2_with_weight_reduction_mean", "test_rotary_embedding_3d_input",
    "test_reversesequence_batch", "test_dequantizelinear_blocked", "test_quantizelinear_axis",
    "test_dynamicquantizelinear_min_adjusted", "test_matmulinteger",
    "test_qlinearmatmul_3D_int8_float16", "test_dft_irfft_opset19", "test_adam_multiple",
    "test_nesterov_momentum", "test_gathernd_example_int32_batch_dim1",
    "test_ai_onnx_ml_binarizer", "test_ai_onnx_ml_array_feature_extractor",
    "test_tensorscatter_circular", "test_scatternd_max",
]
"""ONNX node tests of the core families, with their stored inputs and outputs."""

STATIC_CASES = {
    "test_reshape_negative_extended_dims": ["shape"], "test_slice_neg_steps": [
        "starts", "ends", "axes", "steps"], "test_squeeze_negative_axes": ["axes"],
    "test_unsqueeze_unsorted_axes": ["axes"], "test_tile_precomputed": ["y"],
    "test_tril_neg": ["k"], "test_onehot_negative_indices": ["depth"],
    "test_range_int32_type_negative_delta": ["start", "limit", "delta"],
    "test_constant_pad_negative_axes": ["pads", "axes"], "test_edge_pad": ["pads"],
    "test_reflect_pad": ["pads"], "test_expand_dim_changed": ["new_shape"],
    "test_reduce_max_empty_set": ["axes"], "test_reduce_sum_keepdims_random": ["axes"],
    "test_reduce_log_sum_exp_do_not_keepdims_random": ["axes"], "test_top_k_smallest": ["k"],
    "test_cumsum_1d_reverse_exclusive": ["axis"], "test_constantofshape_int_shape_zero": ["x"],
    "test_reduce_l2_do_not_keepdims_example": ["axes"],
    "test_reduce_sum_default_axes_keepdims_random": ["axes"],
    "test_blackmanwindow_symmetric": ["x"], "test_center_crop_pad_crop_and_pad": ["shape"],
    "test_dft_inverse": ["axis"], "test_stft": ["frame_step", "frame_length"],
    "test_wrap_pad": ["pads"],
}
"""Node tests whose shape-like inputs are given as Python lists: fixed at import."""


@pytest.mark.parametrize("name", NODE_CASES)
def test_node_case_numpy(name: str) -> None:
    model, ins, outs = node_case(name)
    check(ivy_ir.compile(model, target="numpy", args=tuple(ins))(*ins), outs)


@pytest.mark.parametrize("name", sorted(STATIC_CASES))
def test_node_case_static_inputs(name: str) -> None:
    """Shape, axes and bound inputs given as lists are fixed at import (no IR input)."""
    model, ins, outs = node_case(name)
    inputs = [i.name for i in model.graph.input]
    args = [a.tolist() if n in STATIC_CASES[name] else a for n, a in zip(inputs, ins)]
    compiled = ivy_ir.compile(model, target="numpy", args=tuple(args))
    check(compiled(*(a for a in args if isinstance(a, np.ndarray))), outs)


def test_traced_shape_input_names_the_graph_input() -> None:
    """A shape given as a graph input is reported with the input's own name, which a
    `StaticInputsError` also carries; its example as a list fixes it at import."""
    from importers.onnx import StaticInputsError

    nodes = [helper.make_node("Add", ["dims.0", "one"], ["dims"]),
             helper.make_node("Reshape", ["x", "dims"], ["y"])]
    model = make_model(nodes, [tensor_info("x", [2, 3]), tensor_info("dims.0", [2], TensorProto.INT64)],
                   [tensor_info("y", None)], [numpy_helper.from_array(np.asarray(1), "one")])
    x, dims = np.arange(6, dtype=np.float32).reshape(2, 3), np.asarray([2, 1])
    with pytest.raises(StaticInputsError, match=r"Reshape \(opset \d+\): the target shape "
                       r"is not known at import time \(it depends on graph input 'dims.0'") \
            as info:
        ivy_ir.trace(model, args=(x, dims))
    assert info.value.inputs == ("dims.0",)
    compiled = ivy_ir.compile(model, args=(x, dims.tolist()))
    np.testing.assert_array_equal(compiled(x), x.reshape(3, 2))
    assert len(ivy_ir.trace(model, args=(x, dims.tolist())).inputs) == 1


@pytest.mark.parametrize("target", ["jax", "torch"])
@pytest.mark.parametrize("name", ["test_mod_mixed_sign_int32", "test_gemm_all_attributes",
                                  "test_scatter_elements_with_negative_indices",
                                  "test_scan9_sum", "test_gather_elements_negative_indices"])
def test_node_case_other_targets(name: str, target: str) -> None:
    pytest.importorskip(target)
    model, ins, outs = node_case(name)
    check(ivy_ir.compile(model, target=target, args=tuple(ins))(*ins), outs)


def test_tables_name_onnx_operators() -> None:
    """Every table key is a default-domain ONNX operator, and every upgrade row belongs
    to a mapped operator and names an opset where its newer form exists."""
    from importers import onnx as onnx_importer

    latest = onnx.defs.onnx_opset_version()
    for domain, table in onnx_importer.TABLES.items():
        assert [op for op in table if not onnx.defs.has(op, domain)] == []
    for op, (since, _) in onnx_importer.UPGRADES.items():
        assert op in onnx_importer.TABLE
        assert onnx.defs.get_schema(op, max_inclusive_version=latest).since_version >= since


def _linear_model() -> tuple[onnx.ModelProto, np.ndarray, np.ndarray]:
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    shape = np.asarray([2, 2, 2], np.int64)
    nodes = [helper.make_node("MatMul", ["x", "layer.0.weight"], ["hidden"], name="mm"),
             helper.make_node("Reshape", ["hidden", "new_shape"], ["y"], name="reshape")]
    inits = [numpy_helper.from_array(w, "layer.0.weight"),
             numpy_helper.from_array(shape, "new_shape")]
    return make_model(nodes, [tensor_info("x", [2, 3])], [tensor_info("y", [2, 2, 2])], inits), w, shape


def test_initializers_are_named_parameters_and_shapes_stay_static() -> None:
    model, w, shape = _linear_model()
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    compiled = ivy_ir.compile(model, target="numpy", args=(x,))
    np.testing.assert_allclose(compiled(x), (x @ w).reshape(shape), rtol=1e-6)
    module = ivy_ir.trace(model, args=(x,))
    assert list(module.params) == ["layer.0.weight"]  # the int64 shape is a known value
    text = module.to_text(locations=True)
    assert 'ivy.param = "layer.0.weight"' in text
    assert "%hidden = ivy.matmul" in text  # output names become SSA names
    assert 'loc("mm"("<onnx>":1:0))' in text and 'loc("reshape"("<onnx>":2:0))' in text
    assert "ivy.reshape" in text and "new_shape" not in text


def test_graph_input_that_is_an_initializer_is_a_parameter() -> None:
    """Old IR versions list initializers among the graph inputs too."""
    model, w, _ = _linear_model()
    model.graph.input.append(tensor_info("layer.0.weight", [3, 4]))
    x = np.ones((2, 3), np.float32)
    module = ivy_ir.trace(model, args=(x,))
    assert len(module.inputs) == 1 and "layer.0.weight" in module.params


def test_declared_input_types_without_args_and_symbolic_dims() -> None:
    model, w, _ = _linear_model()
    module = ivy_ir.trace(model)
    assert [str(s) for s in module.inputs] == ["tensor<2x3xf32>"]
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    with pytest.raises(DimError, match=r"ivy.reshape at reshape \(<onnx>:2:0\): reshape \(the "
                       r"element count\) needs 4 \* batch == 8.*keep that dim static"):
        ivy_ir.trace(model)  # its reshape to [2, 2, 2] holds only for a batch of 2
    model.graph.input[0].type.tensor_type.ClearField("shape")  # no rank: examples needed
    with pytest.raises(TypeError, match=r"ONNX input 'x' has no static type \(\[\?\] "
                       r"float32\); pass example inputs"):
        ivy_ir.trace(model)
    model, w, _ = _linear_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    del model.graph.node[1:]  # y = x @ w for any batch
    model.graph.output[0].name = "hidden"
    module = ivy_ir.trace(model)  # the named dim stays symbolic: no examples needed
    assert [str(s) for s in module.inputs] == ["tensor<?x3xf32>"]
    assert [a.dims for a in module.args()][0] == ("batch", None)
    lazy = ivy_ir.compile(model, target="numpy")  # compiles on the first call, once
    for batch in (1, 4):
        x = np.ones((batch, 3), np.float32)
        np.testing.assert_allclose(lazy(x), x @ w, rtol=1e-6)
    assert lazy.cache_info().misses == 1 and lazy.traces == 1


def test_path_bytes_and_external_data(tmp_path: object) -> None:
    model, w, shape = _linear_model()
    x = np.ones((2, 3), np.float32)
    expected = (x @ w).reshape(shape)
    path = os.path.join(str(tmp_path), "linear.onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    assert os.path.exists(os.path.join(str(tmp_path), "weights.bin"))
    np.testing.assert_allclose(ivy_ir.compile(path, args=(x,))(x), expected, rtol=1e-6)
    loc = ivy_ir.trace(path, args=(x,)).to_text(locations=True)
    assert '"linear.onnx":1:0' in loc
    fresh, _, _ = _linear_model()
    np.testing.assert_allclose(ivy_ir.compile(fresh.SerializeToString(), args=(x,))(x),
                               expected, rtol=1e-6)
    with pytest.raises(UnsupportedOpsError, match=r"initializer 'layer.0.weight' \(its data "
                       r"is in an external file; load the model from its path\)"):
        ivy_ir.trace(model, args=(x,))  # the saved proto now points at weights.bin


def test_external_data_outside_the_model_folder_is_refused(tmp_path: object) -> None:
    """A stranger's model may point its external data anywhere: ONNX's loader, which
    reads it, refuses locations outside the model's folder."""
    root = str(tmp_path)
    os.makedirs(os.path.join(root, "model"))
    with open(os.path.join(root, "secret.bin"), "wb") as f:
        f.write(np.ones(2, np.float32).tobytes())
    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2],
                         data_location=TensorProto.EXTERNAL)
    tensor.external_data.add(key="location", value="../secret.bin")
    graph = make_model([helper.make_node("Identity", ["w"], ["y"])], [],
                       [tensor_info("y", [2])], [tensor])
    path = os.path.join(root, "model", "m.onnx")
    with open(path, "wb") as f:
        f.write(graph.SerializeToString())
    with pytest.raises(ValueError, match="could not be read as an ONNX model: .*points "
                       "outside the directory"):
        ivy_ir.trace(path)


def test_names_from_the_model_never_reach_generated_source_as_code() -> None:
    evil = '"); __import__("os").system("echo pwned") #'
    nodes = [helper.make_node("Relu", ["x"], [evil], name=evil),
             helper.make_node("Neg", [evil], ["y"], name="\n" + evil)]
    model = make_model(nodes, [tensor_info("x", [2])], [tensor_info("y", [2])])
    x = np.ones(2, np.float32)
    for target in ("numpy", "jax"):
        compiled = ivy_ir.compile(model, target=target, args=(x,))
        assert '__import__("os")' not in compiled.source and "echo pwned" not in \
            compiled.source
        np.testing.assert_array_equal(compiled(x), -x)


def test_unsupported_ops_are_reported_all_at_once() -> None:
    nodes = [helper.make_node("Unique", ["x"], ["u"], name="uniq", domain="com.example"),
             helper.make_node("Foo", ["x"], ["f"], name="custom", domain="com.example"),
             helper.make_node("Cast", ["x"], ["s"], name="to_text", to=TensorProto.STRING),
             helper.make_node("TopK", ["x", "i"], ["m", "mi"], name="top"),
             helper.make_node("Concat", ["x", "x"], ["cat"], name="no_axis"),
             helper.make_node("Add", ["u", "f"], ["y"], name="after")]
    model = make_model(nodes, [tensor_info("x", [3]), tensor_info("i", [3, 1], TensorProto.INT64)],
                   [tensor_info("y", [3]), tensor_info("s", [3], TensorProto.STRING), tensor_info("m", [3])])
    model.opset_import.append(helper.make_opsetid("com.example", 2))
    with pytest.raises(UnsupportedOpsError) as info:
        ivy_ir.trace(model, args=(np.ones(3, np.float32), np.zeros((3, 1), np.int64)))
    message = str(info.value)
    assert "5 onnx ops of 5 kinds cannot be imported" in message
    assert "Concat (opset 18): the node does not fit the operator: missing a required " \
        "argument: 'axis' (x1): node 'no_axis' (<onnx>:5)" in message
    assert "com.example.Unique (opset 2): operators of domain 'com.example' are not " \
        "imported (x1): node 'uniq' (<onnx>:1)" in message
    assert "com.example.Foo (opset 2): operators of domain 'com.example' are not imported" \
        in message
    assert "Cast (opset 18): ivy.astype: string is a text dtype: only the string ops make " \
        "it (x1): node 'to_text'" in message
    assert "TopK (opset 18): k is not known at import time (it depends on graph input 'i': " \
        "give its example as a Python list to fix it at import) (x1): node 'top' (<onnx>:4)" \
        in message
    assert "'after'" not in message  # a consequence of the failures above, not a gap


UPGRADE_CASES = {
    "Reshape": (4, [], {"shape": [3, 2]}, [np.asarray([3, 2], np.int64)], {}),
    "Squeeze": (11, [], {"axes": [0]}, [np.asarray([0], np.int64)], {}),
    "ReduceSum": (11, [], {"axes": [1], "keepdims": 0},
                  [np.asarray([1], np.int64)], {"keepdims": 0}),
    "ReduceMax": (13, [], {"axes": [0]}, [np.asarray([0], np.int64)], {}),
    "Split": (11, [], {"split": [1, 2], "axis": 1},
              [np.asarray([1, 2], np.int64)], {"axis": 1}),
    "Slice": (9, [], {"starts": [0], "ends": [2], "axes": [1]},
              [np.asarray([0]), np.asarray([2]), np.asarray([1])], {}),
    "Pad": (10, [], {"pads": [0, 1, 0, 2], "value": 1.5},
            [np.asarray([0, 1, 0, 2]), np.asarray(1.5, np.float32)], {}),
    "Clip": (6, [], {"min": -0.5, "max": 0.5},
             [np.asarray(-0.5, np.float32), np.asarray(0.5, np.float32)], {}),
    "TopK": (9, [], {"k": 2}, [np.asarray([2], np.int64)], {}),
}
"""op -> (old opset, -, old attributes, the newest form's extra inputs, its attributes)."""


@pytest.mark.parametrize("op", sorted(UPGRADE_CASES))
def test_old_opsets_are_upgraded(op: str) -> None:
    """The same node at an old opset (attributes) and at the newest (inputs) gives the
    same numbers; the newest form equals ONNX's reference evaluator."""
    old, _, old_attrs, extra, new_attrs = UPGRADE_CASES[op]
    shape = (1, 6) if op in ("Squeeze", "Reshape") else (2, 3)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    outs = ["y", "z"] if op in ("Split", "TopK") else ["y"]
    old_node = helper.make_node(op, ["x"], outs, **old_attrs)
    old_model = make_model([old_node], [tensor_info("x", list(shape))], [tensor_info(o, None) for o in outs],
                       opset=old)
    names = ["x"] + [f"c{i}" for i in range(len(extra))]
    inits = [numpy_helper.from_array(e.astype(np.int64) if e.dtype.kind == "i" else e,
                                     f"c{i}") for i, e in enumerate(extra)]
    new_model = make_model([helper.make_node(op, names, outs, **new_attrs)],
                       [tensor_info("x", list(shape))], [tensor_info(o, None) for o in outs], inits,
                       opset=onnx.defs.onnx_opset_version())
    expected = [np.asarray(e) for e in ReferenceEvaluator(new_model).run(None, {"x": x})]
    for model in (old_model, new_model):
        check(ivy_ir.compile(model, target="numpy", args=(x,))(x), expected)


def test_legacy_broadcast_attributes() -> None:
    """Before opset 7, B broadcasts only with `broadcast=1`, aligned with A from `axis`."""
    a = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
    b = np.asarray([1.0, 2.0, 3.0], np.float32)
    node = helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=1)
    model = make_model([node], [tensor_info("a", [2, 3, 4])], [tensor_info("y", [2, 3, 4])],
                   [numpy_helper.from_array(b, "b")], opset=6)
    np.testing.assert_array_equal(ivy_ir.compile(model, args=(a,))(a), a + b[:, None])
    traced = make_model([node], [tensor_info("a", [2, 3, 4]), tensor_info("b", [3])], [tensor_info("y", None)],
                    opset=6)
    np.testing.assert_array_equal(ivy_ir.compile(traced, args=(a, b))(a, b), a + b[:, None])


def test_malformed_models_get_clear_errors() -> None:
    with pytest.raises(ValueError, match="the bytes are not a serialized ONNX model"):
        ivy_ir.trace(b"\x12\x34garbage\xff" * 10)
    bad_input = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_info("x", [-3])],
                       [tensor_info("y", None)])
    with pytest.raises(ValueError, match=r"ONNX input 'x' declares a negative dim: \[-3\]"):
        ivy_ir.trace(bad_input)
    nodes = [helper.make_node("Add", ["later", "x"], ["early"], name="cycle"),
             helper.make_node("Gather", ["x", "i"], ["g"], name="far", axis=5),
             helper.make_node("Neg", ["x"], ["later"])]
    model = make_model(nodes, [tensor_info("x", [2, 3]), tensor_info("i", [1], TensorProto.INT64)],
                   [tensor_info("early", None), tensor_info("g", None), tensor_info("nowhere", None)])
    with pytest.raises(UnsupportedOpsError) as info:
        ivy_ir.trace(model)
    message = str(info.value)
    assert "Add (opset 18): input 'later' is produced by no node, graph input or " \
        "initializer (x1): node 'cycle' (<onnx>:1)" in message
    assert "Gather (opset 18): an axis or index out of range" in message
    assert "output 'nowhere' is produced by no node, graph input or initializer" in message


def test_huge_known_results_are_ops_not_import_time_arrays() -> None:
    """A model may ask for a constant of 10**10 elements (by mistake or on purpose):
    the size is checked before folding, so the import allocates nothing of the kind."""
    shape = numpy_helper.from_array(np.asarray([100000, 100000], np.int64), "shape")
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["big"]),
             helper.make_node("Range", ["zero", "limit", "one"], ["steps"]),
             helper.make_node("ReduceSum", ["big"], ["y"], keepdims=0)]
    inits = [shape] + [numpy_helper.from_array(np.asarray(v, np.int64), n)
                       for n, v in (("zero", 0), ("limit", 10**10), ("one", 1))]
    model = make_model(nodes, [], [tensor_info("y", []), tensor_info("steps", None, TensorProto.INT64)],
                   inits)
    text = str(ivy_ir.trace(model))
    assert "ivy.full" in text and "ivy.arange" in text


def test_random_generators_draw_per_call() -> None:
    nodes = [helper.make_node("RandomUniformLike", ["p"], ["u"], low=2.0, high=3.0),
             helper.make_node("RandomNormal", [], ["n"], shape=[4000], mean=1.0, scale=2.0,
                              seed=5.0),
             helper.make_node("Bernoulli", ["p"], ["b"])]
    model = make_model(nodes, [tensor_info("p", [4000])], [tensor_info(n, None) for n in "unb"], opset=22)
    p = np.full(4000, 0.25, np.float32)
    compiled = ivy_ir.compile(model, target="numpy", args=(p,))
    u, n, b = compiled(p)
    assert 2.0 <= u.min() and u.max() < 3.0 and (u != compiled(p)[0]).any()
    assert abs(n.mean() - 1.0) < 0.15 and abs(n.std() - 2.0) < 0.15
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.05


def test_detection_and_no_onnx_import() -> None:
    import importers

    assert importers.detect_source(b"\x08\x07") == "onnx"
    assert importers.detect_source("model.ONNX") == "onnx"
    assert importers.detect_source(onnx.ModelProto()) == "onnx"
    code = "import sys, ivy_ir; assert 'onnx' not in sys.modules, 'onnx imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_import_onnx(tmp_path: object) -> None:
    model, _, _ = _linear_model()
    path = os.path.join(str(tmp_path), "linear.onnx")
    onnx.save_model(model, path)
    cli = [sys.executable, "-m", "ivy_ir.cli", "import", path]
    out = subprocess.run(cli + ["--target", "jax", "--print-ir"], capture_output=True,
                         text=True, check=True).stdout
    assert "ivy.matmul" in out and "def " in out and "jnp" in out
    bad = subprocess.run(cli + ["--arg", "float32[5,3]"], capture_output=True, text=True)
    assert bad.returncode == 1 and "example input 'x' has shape [5, 3]" in bad.stderr
    bad = subprocess.run(cli + ["--arg", "float64[2,3]"], capture_output=True, text=True)
    assert bad.returncode == 1 and "example input 'x' has dtype float64; the model " \
        "declares float32" in bad.stderr
