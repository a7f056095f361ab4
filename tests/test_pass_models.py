"""The default pipeline on imported real architectures: a `TransformerEncoderLayer` and
the ResNet-style CNN of `benchmarks/passes.py`, imported through the torch importer in
every form torch hands out (`torch.export` as is, core ATen, core ATen with layer norm
and softmax decomposed too).

Whatever the form, the optimized IR holds one `scaled_dot_product_attention` per
attention block, one `layer_norm` per layer norm and one `linear` per linear layer,
the ResNet's batch norms are folded into its convolutions, and every compiled program
computes what torch computes. Each model is imported once per form (cached).
"""

from __future__ import annotations

import functools
import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import ivy_ir
from ivy_ir.passes import run_pipeline

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "passes.py"
_SPEC = importlib.util.spec_from_file_location("bench_passes", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
BENCH = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(BENCH)

TRANSFORMER, RESNET = "TransformerEncoderLayer", "ResNet-style CNN"
CASES = [(name, form) for name, (_, forms) in BENCH.MODELS.items() for form in forms]
SPELLED_OUT = {"matmul", "softmax", "exp", "max", "sum", "var", "mean", "rsqrt", "where",
               "equal", "any", "broadcast_to", "batch_norm"}
"""Ops of the decomposed layers that must not survive the pipeline in these models."""


@functools.cache
def _model(name: str) -> tuple[Any, np.ndarray, np.ndarray]:
    """(model, input, torch's output)."""
    model, x = BENCH.MODELS[name][0]()
    with torch.no_grad():
        want = model(torch.as_tensor(x)).numpy()
    return model, x, want


@functools.cache
def _imported(name: str, form: str) -> tuple[ivy_ir.Module, ivy_ir.Module]:
    """(imported module, after the default pipeline)."""
    model, x, _ = _model(name)
    module = ivy_ir.trace(BENCH.exported(model, x, form), (x,))
    return module, run_pipeline(module, "default")


def _outputs(module: ivy_ir.Module, target: str, x: np.ndarray) -> np.ndarray:
    compiled = ivy_ir.lower(module, target)
    y = compiled(compiled.runtime.to_native(x))
    return y.detach().numpy() if hasattr(y, "detach") else np.asarray(y)


@pytest.mark.parametrize("form", BENCH.MODELS[TRANSFORMER][1])
def test_transformer_recomposes_to_its_layers(form):
    before, after = _imported(TRANSFORMER, form)
    ops = BENCH.histogram(after)
    assert (ops["scaled_dot_product_attention"], ops["layer_norm"], ops["linear"]) == \
        (1, 2, 4), ops
    assert not SPELLED_OUT & set(ops), ops
    if form != "export":  # the high-level export is compact already
        n0, n1 = before.op_count(), after.op_count()
        assert n1 <= 0.7 * n0, (n0, n1)
        # what torch decomposed comes back whole: the same ops as from the export
        assert ops == BENCH.histogram(_imported(TRANSFORMER, "export")[1])


@pytest.mark.parametrize("form", BENCH.MODELS[RESNET][1])
def test_resnet_folds_batch_norm_into_conv(form):
    before, after = _imported(RESNET, form)
    acts, weights = BENCH.split(after)
    pool = "adaptive_avg_pool" if form == "export" else "mean"
    # the activation path is conv -> relu (-> add) per layer: the folds moved the batch
    # norms onto the weights, whose ops never touch the data
    assert acts == Counter(conv=5, relu=5, add=2, linear=1, reshape=1, **{pool: 1}), acts
    assert weights["rsqrt"] == 5 and not {"conv", "relu", "linear"} & set(weights), weights
    assert BENCH.histogram(before)["batch_norm"] == 5


def test_split_puts_only_parameter_ops_apart():
    before, _ = _imported(RESNET, "core ATen")
    acts, weights = BENCH.split(before)
    assert weights == Counter(permute_dims=1)  # the transposed linear weight of addmm
    assert acts["batch_norm"] == 5 and acts["conv"] == 5


@pytest.mark.parametrize("name,form", CASES)
@pytest.mark.parametrize("target", ["numpy", "torch"])
def test_optimized_model_computes_what_torch_does(name, form, target):
    _, x, want = _model(name)
    got = _outputs(_imported(name, form)[1], target, x)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,form", CASES)
def test_import_computes_what_torch_does(name, form):
    _, x, want = _model(name)
    np.testing.assert_allclose(_outputs(_imported(name, form)[0], "numpy", x), want,
                               rtol=1e-5, atol=1e-5)
