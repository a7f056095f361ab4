"""ONNX `TfIdfVectorizer` (importers/onnx_tfidf.py) against ONNX's reference evaluator:
every mode, with and without weights, 1-D and batched input, skips, n-gram sizes
outside the requested range, and columns shared by two n-grams, on every target."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import ivy_ir  # noqa: E402
from lowerings.runtime import host_array  # noqa: E402

POOL = dict(ngram_counts=[0, 4], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 2, 3],
            ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 1])
"""Unigrams 2, 3, 5, 4 and bigrams (5, 6), (7, 8), (6, 7), (2, 3); the last shares the
second unigram's column."""


def _model(shape: list[int], **attrs) -> onnx.ModelProto:
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(
        "x", TensorProto.INT32, shape)], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])


CASES = {
    "tf_uni_and_bigrams_skip2": dict(mode="TF", min_gram_length=1, max_gram_length=2,
                                     max_skip_count=2),
    "idf_weighted_bigrams": dict(mode="IDF", min_gram_length=2, max_gram_length=2,
                                 max_skip_count=0, weights=[1, 2, 3, 4, 5, 6, 7]),
    "idf_unweighted": dict(mode="IDF", min_gram_length=1, max_gram_length=2,
                           max_skip_count=1),
    "tfidf_weighted_unigrams": dict(mode="TFIDF", min_gram_length=1, max_gram_length=1,
                                    max_skip_count=3, weights=[0.5, 2, 3, 4, 5, 6, 7]),
}


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("shape", [[12], [3, 12]])
def test_matches_the_reference_evaluator(case, shape, target):
    rng = np.random.default_rng(len(case) + len(shape))
    x = rng.integers(2, 9, shape).astype(np.int32)
    model = _model(shape, **CASES[case], **POOL)
    if CASES[case]["mode"] == "IDF" and "weights" not in CASES[case]:
        # the evaluator fails on IDF without weights: it is whether the TF count is > 0
        counts = _model(shape, **{**CASES[case], "mode": "TF"}, **POOL)
        want = (ReferenceEvaluator(counts).run(None, {"x": x})[0] > 0).astype(np.float32)
    else:
        want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    assert want.any()  # the draw holds some of the pool's n-grams
    got = host_array(ivy_ir.compile(model, target=target)(x))
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_a_string_pool_is_reported():
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1,
                            max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                            ngram_indexes=[0], pool_strings=["a"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(
        "x", TensorProto.STRING, [3])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    with pytest.raises(ivy_ir.UnsupportedOpsError, match=r"TfIdfVectorizer \(opset 9\): a "
                                                         r"pool of strings"):
        ivy_ir.trace(model)
