"""Every op of a float class in float16 and bfloat16, on every target, against the same
op computed in float32 and rounded once (docs/semantics.md): within a few units in the
last place, or declared unsupported by the registry. Sums, statistics and convolutions
that rounded every partial result to 8 or 11 bits were 10-100 units off before."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from dtype_sweep import HALF_FLOATS, half_units, ops_for, program, run, supported

from ivy_ir.dialect.infer import InferError

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
UNITS = 4
"""The most units in the last place a result may be off: a window sum of a few terms or
a transcendental kernel rounds in half precision on the way (avg_pool, bessel_i0e: 2-3)."""
LOOSE = {("tensorflow", "qr", "float16"): "TF's float16 Householder QR rounds each "
                                          "reflection to 11 bits (12 units)"}
"""(target, op, dtype) computed in half by the framework's own kernel, left to it."""
STRUCTURED = {"cholesky": "needs a positive-definite matrix (the sweep draws any)"}


def _typed(name: str, dtype: str) -> bool:
    """Whether the op takes half operands at all (`complex` has no half complex)."""
    try:
        program([name], dtype)
    except InferError:
        return False
    return True


def _units(got: np.ndarray, want32: np.ndarray, dtype: str) -> float:
    # the distance in units of the result's last place, at least a quarter's
    got, want = got.astype(np.float64), want32.astype(np.float64)
    ok = np.isfinite(want)
    assert (np.isfinite(got) == ok).all(), "finite where float32 is not, or the reverse"
    if not ok.any():
        return 0.0
    return float((np.abs(got[ok] - want[ok]) / half_units(want[ok], dtype, 0.25)).max())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", HALF_FLOATS)
def test_every_float_op_in_half_rounds_like_float32(dtype: str, target: str) -> None:
    kind = HALF_FLOATS[dtype][0]
    names = supported([n for n in ops_for(dtype) if n not in STRUCTURED and _typed(n, dtype)],
                      dtype, target)
    names = [n for n in names if (target, n, dtype) not in LOOSE and n in ops_for("float32")]
    module, inputs, labels = program(names, dtype)
    wide, wide_inputs, _ = program(names, "float32")
    # the same draws: the float32 program reads the half inputs widened
    wide_inputs = [h.astype(np.float32) if h.dtype == kind else w
                   for h, w in zip(inputs, wide_inputs, strict=True)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got, want = run(module, inputs, target), run(wide, wide_inputs, "numpy")
    off = {}
    for g, w, label in zip(got, want, labels, strict=True):
        if w.dtype.kind != "f" or not w.size:
            continue
        assert g.dtype == kind, f"ivy.{label} gives {g.dtype}"
        units = _units(g, w, dtype)
        if units > UNITS:
            off[label] = round(units, 1)
    assert not off, f"units in the last place off the float32 answer rounded once: {off}"
