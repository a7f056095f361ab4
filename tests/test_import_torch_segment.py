"""torch's embedding bags, scatter-reductions, masked_scatter and pairwise distances
(`importers/torch_segment.py`) against torch itself: every mode on the NumPy target,
a sample on JAX and PyTorch, and a recommender-style model on all four targets; and
`Tensor.unfold`'s sliding windows (`importers/torch_shape.py`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from zoo_common import TARGETS

import ivy_ir

RNG = np.random.default_rng(3)
WEIGHT = torch.as_tensor(RNG.standard_normal((12, 4)).astype(np.float32))
IDS = torch.as_tensor(RNG.integers(0, 12, 9))
OFFSETS = torch.tensor([0, 2, 2, 6])  # an empty bag and a bag to the end


def _array(x) -> np.ndarray:
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _check(fn, args, targets=("numpy",), tol=1e-5):
    with torch.no_grad():
        want = fn(*args)
    want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
    module = ivy_ir.trace(fn, args)
    for target in targets:
        got = ivy_ir.compile(module, target=target)(*(a.numpy() for a in args))
        got = got if isinstance(got, (tuple, list)) else [got]
        for g, w in zip(got, want, strict=True):
            g = _array(g)
            assert g.dtype == w.dtype, target
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=target)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("last,padding", [(False, None), (True, None), (False, 3)])
def test_embedding_bag_modes(mode, last, padding):
    ids = torch.where(torch.arange(9) % 3 == 0, torch.tensor(3), IDS)  # some padding rows
    offsets = torch.tensor([0, 2, 2, 6, 9]) if last else OFFSETS

    def fn(w, i, o):
        return F.embedding_bag(i, w, o, mode=mode, include_last_offset=last,
                               padding_idx=padding)
    _check(fn, (WEIGHT, ids, offsets))


def test_embedding_bag_per_sample_weights_and_2d_input():
    psw = torch.as_tensor(RNG.standard_normal(9).astype(np.float32))
    _check(lambda w, i, o, s: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s),
           (WEIGHT, IDS, OFFSETS, psw), targets=("numpy", "jax", "torch"))
    _check(lambda w, i: F.embedding_bag(i, w, mode="max"), (WEIGHT, IDS.reshape(3, 3)),
           targets=("numpy", "torch"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x = torch.as_tensor(RNG.standard_normal((3, 5)).astype(np.float32))
    src = torch.as_tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    index = torch.as_tensor(RNG.integers(0, 4, (3, 4)))  # position 4 of each row stays

    def fn(x, src, index):
        return x.scatter_reduce(1, index, src, reduce, include_self=include_self)
    _check(fn, (x, src, index))


def test_scatter_reduce_integers_and_other_targets():
    x = torch.as_tensor(RNG.integers(-9, 9, (4, 3)))
    src = torch.as_tensor(RNG.integers(-9, 9, (6, 3)))
    index = torch.as_tensor(RNG.integers(0, 4, (6, 3)))
    # integer mean divides with floor, as torch does
    _check(lambda x, s, i: x.scatter_reduce(0, i, s, "mean"), (x, src, index))
    _check(lambda x, s, i: x.scatter_reduce(0, i, s, "amax"), (x, src, index))
    xf, srcf = x.float(), src.float()
    _check(lambda x, s, i: x.scatter_reduce(0, i, s, "amin", include_self=False),
           (xf, srcf, index), targets=("jax", "torch"))


def test_scatters_with_an_index_smaller_than_the_input_and_torchs_old_reduce():
    """An index smaller than x in the other dims (refused before), `scatter(reduce=)`."""
    rng = np.random.default_rng(7)  # its own draws: the module's RNG feeds later tests
    x = torch.as_tensor(rng.standard_normal((4, 5)).astype(np.float32))
    src = torch.as_tensor(rng.standard_normal((3, 4)).astype(np.float32))
    index = torch.as_tensor(rng.integers(0, 5, (2, 3)))
    for reduce in ("amax", "prod", "mean"):
        _check(lambda x, s, i, r=reduce: x.scatter_reduce(1, i, s, r, include_self=False),
               (x, src, index), targets=TARGETS)
    _check(lambda x, s, i: x.scatter(1, i, s, reduce="multiply"), (x, src, index),
           targets=TARGETS)
    _check(lambda x, i: x.scatter(0, i, 2.5, reduce="add"), (x, index % 4), targets=TARGETS)


def test_masked_scatter_with_a_broadcast_mask():
    x = torch.as_tensor(RNG.standard_normal((2, 3, 4)).astype(np.float32))
    mask = torch.as_tensor(RNG.random((3, 1)) > 0.4)
    source = torch.as_tensor(RNG.standard_normal(30).astype(np.float32))
    _check(lambda x, m, s: x.masked_scatter(m, s), (x, mask, source),
           targets=("numpy", "jax", "torch"))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_and_pdist(p):
    a = torch.as_tensor(RNG.standard_normal((2, 5, 3)).astype(np.float32))
    b = torch.as_tensor(RNG.standard_normal((2, 4, 3)).astype(np.float32))
    _check(lambda a, b: torch.cdist(a, b, p=p), (a, b), tol=1e-4)
    _check(lambda a: F.pdist(a, p=p), (a[0],), tol=1e-4)


def test_cdist_takes_torchs_matrix_product_route_for_many_rows():
    a = torch.as_tensor(RNG.standard_normal((30, 4)).astype(np.float32))
    b = torch.as_tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    b[0] = a[0]  # a zero distance: clamped, not the square root of a rounding error < 0
    _check(lambda a, b: torch.cdist(a, b), (a, b), targets=("numpy", "jax", "torch"), tol=1e-4)


class Recommender(nn.Module):
    """Two sparse features pooled by embedding bags (a sum bag with per-sample weights,
    a mean bag with padding), one dense feature, an MLP on top: a small DLRM."""

    def __init__(self):
        super().__init__()
        self.items = nn.EmbeddingBag(50, 8, mode="sum")
        self.tags = nn.EmbeddingBag(20, 8, mode="mean", padding_idx=0)
        self.dense = nn.Linear(4, 8)
        self.mlp = nn.Sequential(nn.Linear(24, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, dense, items, item_offsets, item_weights, tags):
        pooled = [self.items(items, item_offsets, per_sample_weights=item_weights),
                  self.tags(tags), torch.relu(self.dense(dense))]
        return torch.sigmoid(self.mlp(torch.cat(pooled, dim=1)))


def test_recommender_model_on_every_target():
    torch.manual_seed(0)
    model = Recommender().eval()
    args = (torch.as_tensor(RNG.standard_normal((4, 4)).astype(np.float32)),
            torch.as_tensor(RNG.integers(0, 50, 11)), torch.tensor([0, 3, 3, 7]),
            torch.as_tensor(RNG.uniform(0.5, 1.5, 11).astype(np.float32)),
            torch.as_tensor(RNG.integers(0, 20, (4, 5))))
    with torch.no_grad():
        want = model(*args).numpy()
    module = ivy_ir.trace(model, args)
    for target in TARGETS:
        got = _array(ivy_ir.compile(module, target=target)(*(a.numpy() for a in args)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=target)


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), dilation=2, ceil_mode=True),
])
def test_max_pool_indices(kwargs):
    x = torch.as_tensor(RNG.integers(-3, 3, (2, 3, 7, 8)).astype(np.float32))  # ties
    x[0, 0, :3, :3] = -float("inf")  # a window of only -inf: torch points at its first input
    _check(lambda x: F.max_pool2d(x, return_indices=True, **kwargs), (x,))
    _check(lambda x: F.max_pool2d(x, return_indices=True, **kwargs), (x[0],), targets=("jax",))
    x3 = torch.as_tensor(RNG.standard_normal((1, 2, 5, 4, 6)).astype(np.float32))
    _check(lambda x: F.max_pool3d(x, 2, return_indices=True, padding=1), (x3,),
           targets=("numpy", "torch"))


def test_unread_extra_results_build_nothing():
    # a core-ATen export keeps max_pool2d_with_indices and native_layer_norm whole, their
    # indices and statistics unread: the importer builds neither
    model = nn.Sequential(nn.MaxPool2d(2), nn.LayerNorm(3))
    ep = torch.export.export(model, (torch.zeros(1, 2, 4, 6),)).run_decompositions()
    ir = str(ivy_ir.trace(ep, (torch.zeros(1, 2, 4, 6),)))
    assert "ivy.max_pool" in ir and "ivy.layer_norm" in ir
    assert "argmax" not in ir and "rsqrt" not in ir


def test_index_put_after_full_slices():
    x = torch.as_tensor(RNG.standard_normal((2, 3, 4, 5)).astype(np.float32))
    i, j = torch.tensor([0, 2, 1]), torch.tensor([4, 0, 3])
    adjacent = torch.as_tensor(RNG.standard_normal((2, 3, 5)).astype(np.float32))
    apart = torch.as_tensor(RNG.standard_normal((3, 2, 4)).astype(np.float32))

    def fn(x, a, b):
        y = torch.ops.aten.index_put(x, [None, i, torch.tensor([3, 0, 2])], a, True)
        return torch.ops.aten.index_put(y, [None, i, None, j], b)
    _check(fn, (x, adjacent, apart), targets=("numpy", "torch"))


def test_as_strided_reads_the_storage_of_its_input():
    x = torch.as_tensor(RNG.standard_normal((4, 5)).astype(np.float32))
    _check(lambda x: torch.as_strided(x, (3, 4), (1, 1), 2), (x,))  # overlapping windows
    _check(lambda x: torch.as_strided(x.t() * 1, (2, 3), (5, 2), 1), (x,),
           targets=("numpy", "torch"))
    _check(lambda x: torch.as_strided(x.t(), (2, 3), (5, 2), 1), (x,))  # a view: x's storage
    with pytest.raises(ivy_ir.UnsupportedOpsError, match="outside its input"):
        ivy_ir.trace(lambda x: torch.as_strided(x[:, 1:], (2, 2), (5, 1), 0), (x,))


# ---- Tensor.unfold: sliding windows (kornia's bilateral_blur, im2col by hand) ----

@pytest.mark.parametrize("dim, size, step", [(1, 3, 2), (0, 2, 1), (-1, 4, 3), (2, 5, 5)])
def test_unfold_windows_match_torch(dim, size, step):
    x = torch.randn(2, 7, 5)
    fn = lambda t: t.unfold(dim, size, step) * 2  # noqa: E731
    for target in TARGETS:
        got = ivy_ir.compile(fn, target=target, args=(x,))(x)
        got = got.detach() if hasattr(got, "detach") else got
        np.testing.assert_array_equal(np.asarray(got), fn(x).numpy(), err_msg=target)
