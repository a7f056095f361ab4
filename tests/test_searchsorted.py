"""`searchsorted` imported from every source that has it (torch's searchsorted and
bucketize, TF's LowerBound/UpperBound behind `tf.searchsorted`, NumPy's) and run on
every target against the source, ties on both sides included. The op table draws its
values (NaN and infinities too); the torch target searches floats by an integer key
of NumPy's order, since torch's own search ranks NaN below nothing."""

from __future__ import annotations

import numpy as np
import pytest

import ivy_ir

TARGETS = ("numpy", "jax", "torch", "tensorflow")
ROWS = np.array([[-1.0, 0.0, 0.0, 2.0, 5.0], [1.0, 1.0, 1.0, 3.0, 4.0]], np.float32)
VALUES = np.array([[0.0, -3.0, 2.0, 9.0], [1.0, 3.5, 0.0, 4.0]], np.float32)


def _same(fn, args, data):
    want = np.asarray(fn(*args))
    for target in TARGETS:
        got = np.asarray(ivy_ir.compile(fn, target=target, args=args)(*data))
        assert got.dtype == want.dtype, target
        np.testing.assert_array_equal(got, want, err_msg=target)


@pytest.mark.parametrize("right", [False, True])
def test_torch_searchsorted_and_bucketize(right):
    torch = pytest.importorskip("torch")
    rows, values = torch.from_numpy(ROWS), torch.from_numpy(VALUES)
    _same(lambda s, v: torch.searchsorted(s, v, right=right), (rows, values), (ROWS, VALUES))
    _same(lambda s, v: torch.searchsorted(s[0], v, side="right" if right else "left",
                                          out_int32=True), (rows, values), (ROWS, VALUES))
    _same(lambda v, b: torch.bucketize(v, b[1], right=right), (values, rows), (VALUES, ROWS))


@pytest.mark.parametrize("side", ["left", "right"])
def test_tensorflow_lower_and_upper_bounds(side):
    tf = pytest.importorskip("tensorflow")
    fn = tf.function(lambda s, v: tf.searchsorted(s, v, side=side, out_type=tf.int32))
    _same(fn, (ROWS, VALUES), (ROWS, VALUES))


@pytest.mark.parametrize("side", ["left", "right"])
def test_numpy_searchsorted(side):
    _same(lambda s, v: np.searchsorted(s[0], v, side=side), (ROWS, VALUES), (ROWS, VALUES))
