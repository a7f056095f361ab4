"""ONNX's neural-network operators: one `TABLE` and one `UPGRADES` merged from the
family modules (windowed layers, normalizations, activations, resizing, recurrent
layers and attention), which `importers/onnx.py` merges with its own families.

Each rule maps one ONNX operator onto registry ops exactly, or raises `Unmapped` with
the attribute use it cannot express (reported with every other missing op at once).
"""

from __future__ import annotations

from typing import Any

from . import (
    onnx_nn_act,
    onnx_nn_attention,
    onnx_nn_conv,
    onnx_nn_deform,
    onnx_nn_grid,
    onnx_nn_linear_attention,
    onnx_nn_norm,
    onnx_nn_qconv,
    onnx_nn_recurrent,
    onnx_nn_resize,
    onnx_nn_roi,
    onnx_nn_spatial,
)
from .common import Rule, merge_tables

NN_FAMILIES = (onnx_nn_conv, onnx_nn_norm, onnx_nn_act, onnx_nn_resize, onnx_nn_recurrent,
               onnx_nn_attention, onnx_nn_spatial, onnx_nn_grid,
               onnx_nn_linear_attention, onnx_nn_deform, onnx_nn_roi,
               onnx_nn_qconv)
"""The family modules, each with `TABLE` and optionally `UPGRADES`."""

TABLE: dict[str, Rule] = merge_tables(*(f.TABLE for f in NN_FAMILIES))
"""ONNX op_type (default domain) -> rule, for the neural-network operators."""

UPGRADES: dict[str, tuple[int, Any]] = dict(
    merge_tables(*(getattr(f, "UPGRADES", {}) for f in NN_FAMILIES)))
"""op_type -> (since, upgrade) of the neural-network operators' older forms."""
