"""The PyTorch import zoo: programs written the way torch users write them.

Models are built under a fixed seed and put in eval mode; inputs are NumPy arrays from
one seeded generator. `build_500_op` gives the ~500-op program of the import speed check.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from zoo_common import ZooProgram
from zoo_torch_models import (
    MLP,
    ConvTransposeNet,
    DepthwiseNet,
    EmbeddingBag,
    GRUUnrolled,
    NormStack,
    PoolNet,
    ResidualMLP,
    SmallCNN,
    SmallResNet,
    TinyTransformer,
    seeded,
)

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def f64(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def i64(high: int, *shape: int, low: int = 0) -> np.ndarray:
    return rng.integers(low, high, shape).astype(np.int64)


def elementwise(x, y):
    return torch.exp(-x.abs()) * torch.sin(y) + torch.sqrt(x * x + 1) - torch.tanh(y) / 2


def log_family(x):
    a = x.abs() + 1
    return torch.log(a) + torch.log1p(a) * torch.log2(a) - torch.log10(a) + torch.expm1(x * 0.1) \
        + torch.rsqrt(a) + torch.reciprocal(a) + x.pow(2) + torch.atan2(x, a)


def rounding(x):
    return torch.floor(x * 3) + torch.ceil(x) + torch.round(x * 2) + torch.trunc(x * 5) \
        + torch.sign(x) + torch.remainder(x, 0.7)


def activations(x):
    return (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.softplus(x), F.elu(x),
            F.leaky_relu(x, 0.2), F.hardswish(x), F.hardsigmoid(x), F.mish(x),
            torch.sigmoid(x), F.relu6(x * 4), F.hardtanh(x), F.selu(x), F.celu(x, 0.5),
            F.logsigmoid(x), F.softsign(x), F.glu(x, -1))


def reductions(x):
    return (x.sum(1), x.mean((0, 2), keepdim=True), x.amax(-1), x.prod(0), x.std(1),
            x.var(unbiased=False), torch.logsumexp(x, dim=1), x.norm(dim=1), x.min(),
            torch.linalg.vector_norm(x, 1, dim=-1))


def arg_reductions(x):
    values, indices = x.max(dim=1)
    return x.argmax(1), x.argmin(), values, indices, torch.min(x, -1, keepdim=True).indices


def scans(x):
    return torch.cumsum(x, 1), torch.cumprod(x * 0.5 + 1, 0)


def compare_bool(x, y):
    keep = (x > y) & (x < 1) | ~(y > 0)
    return keep, torch.isfinite(x / y), (x == y).any(1), (x > -3).all(), keep.sum()


def where_masked(x, y):
    return torch.where(x > 0, x, y * 2), x.masked_fill(y < 0, -1.0), x.clamp(-0.5, 0.5), \
        torch.clamp(y, min=0.0), torch.maximum(x, y), torch.minimum(x, 0.2 * y)


def basic_slicing(x):
    return x[1:, ::2], x[..., -1], x[:, None, 3], x[-2:].flip(0), x[-3:-1, 1::3], x[0, -1]


def advanced_indexing(x, idx):
    return x[:, [0, 2, 3]], x[idx], x[[0, 1], [1, 2]], x[idx, 1:], \
        torch.gather(x, 1, idx.abs()[:, None].expand(-1, 2)), x.index_select(1, idx.abs()), x[:, idx[0]]


def boolean_mask_static(x):
    keep = torch.tensor([True, False, True, False, True])
    return x[:, keep] * 2, x[:, ~keep].sum(-1)


def mask_assign(x):
    y = x.clone()
    y[y < 0] = 0.0
    y[:, 0] = 1.0
    y[1:, 2:4] = x[:-1, :2] * 3
    return y


def broadcasting(x, y, z):
    return x + y * z, (x - z) / (y.abs() + 1)


def matmul_family(x, y, v):
    return x @ y, torch.bmm(x, y), torch.mm(x[0], y[0]), x.mT @ x, x[0] @ v, v @ y[1]


def einsum_ops(q, k):
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k)
    return scores, torch.einsum("bhqk,bhkd->bqhd", scores.softmax(-1), k), \
        torch.einsum("bhqd->bd", q)


def sdpa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def handwritten_attention(x, mask):
    scores = x @ x.transpose(-2, -1) / x.shape[-1] ** 0.5
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.softmax(scores, dim=-1) @ x


def int_float_scalar(i):
    return i + 1.5, i * 2, i / 2, i - 1, 3 - i, i ** 2


def int_division(i, j):
    return i // j, i / j, i % j, torch.div(i, j, rounding_mode="trunc"), \
        torch.div(i, j, rounding_mode="floor")


def f32_f64(x, y):
    return x + y, x * torch.tensor(2.0, dtype=torch.float64), x.double().sum() + y.mean()


def bool_arith(x, b):
    return b + b, b * 3, b.float() + x, x * b, b.int() + torch.tensor(1.5, dtype=torch.float64)


def int_outputs(i, x):
    return i.sum(), i.max(), torch.argsort(x, dim=1), torch.topk(x, 2).indices, i.cumsum(0)


def multiple_outputs(x, y):
    return x.sum(), y.mean(0), x * y, (x > y).float()


def split_join(x):
    a, b = torch.chunk(x, 2, dim=1)
    c, d, e = torch.split(x, [1, 2, 3], dim=1)
    rows = torch.unbind(x, 0)
    return torch.cat([b, a], 1), torch.stack([c, d[:, :1], e[:, -1:]], 0), rows[0] + rows[-1]


def reshapes(x):
    y = x.view(2, 3, 4).permute(2, 0, 1).reshape(4, 6)
    z = x.view(-1).unsqueeze(0).expand(3, -1).transpose(0, 1)
    return y.flatten(), z, y.t().contiguous().view(6, 2, 2).squeeze(), x.repeat(2, 1)


def padding(x):
    return F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), mode="reflect"), \
        F.pad(x, (2, 2, 1, 1), mode="replicate"), F.pad(x, (-1, 1), value=3.0)


def creation(x):
    n = x.shape[-1]
    return x + torch.arange(n), x * torch.ones_like(x) + torch.eye(2, n), \
        torch.zeros(2, n) + torch.full((n,), 0.5), torch.linspace(0, 1, n) * x, \
        torch.arange(1, 7, 2.5)


def softmax_family(x, y):
    return torch.softmax(x, -1), F.log_softmax(x, dim=1), F.normalize(x, dim=-1), \
        F.cosine_similarity(x, y, dim=-1)


def sorting(x):
    values, _ = torch.sort(x, dim=1, descending=True)
    return values, torch.topk(x, 3, dim=-1).values, torch.sort(x, 0).values


def triangles(x):
    return torch.tril(x), torch.triu(x, 1), torch.diagonal(x, 0, -2, -1), x.diagonal(1)


def layout_ops(x):
    return F.pixel_shuffle(x, 2), torch.roll(x, 1, 2), torch.roll(x, (1, -1), (2, 3)), \
        x.repeat_interleave(2, dim=1), x.tile((1, 2))


def lerp_addcmul(x, y):
    return torch.lerp(x, y, 0.3), torch.lerp(x, y, 0.7), torch.addcmul(x, x, y, value=0.5), \
        torch.addcdiv(x, y, x.abs() + 1)


def float64_mlp(x):
    return F.gelu(x @ x.T).sum(0) / x.shape[0]


def one_hot_embed(i):
    return F.one_hot(i, 6).float() @ torch.arange(6.0)


PROGRAMS: list[ZooProgram] = [
    ZooProgram("elementwise", elementwise, (f32(3, 4), f32(3, 4))),
    ZooProgram("log_family", log_family, (f32(4, 5),)),
    ZooProgram("rounding", rounding, (f32(5, 6),)),
    ZooProgram("activations", activations, (f32(3, 8),)),
    ZooProgram("reductions", reductions, (f32(3, 4, 5),)),
    ZooProgram("arg_reductions", arg_reductions, (f32(4, 6),)),
    ZooProgram("scans", scans, (f32(3, 5),)),
    ZooProgram("compare_bool", compare_bool, (f32(4, 5), f32(4, 5))),
    ZooProgram("where_masked", where_masked, (f32(4, 5), f32(4, 5))),
    ZooProgram("basic_slicing", basic_slicing, (f32(5, 6),)),
    ZooProgram("advanced_indexing", advanced_indexing, (f32(4, 5), i64(4, 3, low=-4))),
    ZooProgram("boolean_mask_static", boolean_mask_static, (f32(3, 5),)),
    ZooProgram("mask_assign", mask_assign, (f32(4, 5),)),
    ZooProgram("broadcasting", broadcasting, (f32(4, 1, 3), f32(5, 1), f32(3))),
    ZooProgram("matmul_family", matmul_family, (f32(2, 3, 4), f32(2, 4, 5), f32(4))),
    ZooProgram("einsum", einsum_ops, (f32(2, 2, 3, 4), f32(2, 2, 5, 4))),
    ZooProgram("sdpa_causal", sdpa_causal, (f32(2, 2, 5, 4), f32(2, 2, 5, 4), f32(2, 2, 5, 4))),
    ZooProgram("handwritten_attention", handwritten_attention,
               (f32(2, 5, 4), np.tril(np.ones((5, 5), np.int64)))),
    ZooProgram("promote_int_float_scalar", int_float_scalar, (i64(9, 6, low=-9),)),
    ZooProgram("promote_int_division", int_division, (i64(20, 8, low=-20), i64(5, 8, low=1))),
    ZooProgram("promote_f32_f64", f32_f64, (f32(3, 4), f64(3, 4))),
    ZooProgram("promote_bool", bool_arith, (f32(4,), rng.random(4) > 0.5)),
    ZooProgram("int_outputs", int_outputs, (i64(10, 5), f32(3, 6))),
    ZooProgram("multiple_outputs", multiple_outputs, (f32(3, 4), f32(3, 4))),
    ZooProgram("split_join", split_join, (f32(4, 6),)),
    ZooProgram("reshapes", reshapes, (f32(6, 4),)),
    ZooProgram("padding", padding, (f32(2, 3, 4, 5),)),
    ZooProgram("creation", creation, (f32(2, 4),)),
    ZooProgram("softmax_family", softmax_family, (f32(3, 5), f32(3, 5))),
    ZooProgram("sorting", sorting, (f32(4, 6),)),
    ZooProgram("triangles", triangles, (f32(2, 4, 4),)),
    ZooProgram("layout_ops", layout_ops, (f32(1, 8, 3, 3),)),
    ZooProgram("lerp_addcmul", lerp_addcmul, (f32(3, 4), f32(3, 4))),
    ZooProgram("float64_gelu", float64_mlp, (f64(4, 3),)),
    ZooProgram("one_hot", one_hot_embed, (i64(6, 7),)),
    ZooProgram("mlp", seeded(MLP), (f32(4, 8),)),
    ZooProgram("residual_mlp", seeded(ResidualMLP, 3), (f32(4, 8),)),
    ZooProgram("small_cnn", seeded(SmallCNN), (f32(2, 3, 16, 16),)),
    ZooProgram("small_resnet", seeded(SmallResNet), (f32(2, 3, 16, 16),)),
    ZooProgram("transformer_encoder", seeded(TinyTransformer), (f32(2, 6, 16),)),
    ZooProgram("gru_unrolled", seeded(GRUUnrolled), (f32(2, 5, 4),)),
    ZooProgram("norm_stack", seeded(NormStack), (f32(2, 4, 6, 6),)),
    ZooProgram("pool_net", seeded(PoolNet), (f32(2, 3, 11),)),
    ZooProgram("conv_transpose_upsample", seeded(ConvTransposeNet), (f32(1, 4, 5, 5),)),
    ZooProgram("depthwise_same_padding", seeded(DepthwiseNet), (f32(2, 4, 9, 9),)),
    ZooProgram("embedding_bag", seeded(EmbeddingBag), (i64(20, 3, 7),)),
]


def build_500_op() -> tuple[nn.Module, tuple[torch.Tensor, ...], None]:
    """A residual MLP of ~500 ops for the import speed check (params live in the module)."""
    torch.manual_seed(0)
    model = ResidualMLP(55).eval()
    return model, (torch.as_tensor(f32(4, 8)),), None
