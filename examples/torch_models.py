"""Two PyTorch models written the way timm and Hugging Face write them, transpiled by
ivy_ir to JAX, TensorFlow and NumPy: the models `ivy-ir demo` (the showcase) runs.

`TinyEfficientNet` is a timm-style CNN (conv-BN-SiLU stem, a depthwise-separable and
two inverted-residual blocks with squeeze-excite, a 1x1 head conv, global pooling, a
classifier); `TinyTransformer` a text encoder (token and position embeddings, two
pre-norm layers whose attention is written as in Hugging Face's BERT: separate q/k/v
projections, heads split by view/permute, softmax of scaled scores, heads merged back).
Nothing here knows ivy_ir: these are plain models a user would bring.

    python examples/torch_models.py          # transpile both to JAX and compare
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import ivy_ir

BATCH = 4
IMAGE = 64
TOKENS, VOCAB = 32, 1000


class SqueezeExcite(nn.Module):
    """timm's `SqueezeExcite`: a per-channel gate from globally pooled features."""

    def __init__(self, channels: int, rd_ratio: float = 0.25):
        super().__init__()
        rd = max(8, int(channels * rd_ratio))
        self.conv_reduce = nn.Conv2d(channels, rd, 1)
        self.act1 = nn.SiLU()
        self.conv_expand = nn.Conv2d(rd, channels, 1)
        self.gate = nn.Sigmoid()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.conv_expand(self.act1(self.conv_reduce(s))))


def conv_bn(c_in: int, c_out: int, k: int, stride: int = 1, groups: int = 1,
            act: bool = True) -> nn.Sequential:
    """timm's `ConvNormAct`: bias-free conv, batch norm, optional SiLU."""
    layers: list[nn.Module] = [nn.Conv2d(c_in, c_out, k, stride, k // 2, groups=groups,
                                         bias=False), nn.BatchNorm2d(c_out)]
    return nn.Sequential(*layers, nn.SiLU() if act else nn.Identity())


class DepthwiseSeparable(nn.Module):
    """EfficientNet's first block: depthwise 3x3, squeeze-excite, pointwise 1x1."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv_dw = conv_bn(channels, channels, 3, groups=channels)
        self.se = SqueezeExcite(channels)
        self.conv_pw = conv_bn(channels, channels, 1, act=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv_pw(self.se(self.conv_dw(x)))


class InvertedResidual(nn.Module):
    """MobileNetV2/EfficientNet block: expand 1x1, depthwise 3x3, squeeze-excite,
    project 1x1; residual when the shape is kept."""

    def __init__(self, c_in: int, c_out: int, stride: int, expand: int = 4):
        super().__init__()
        mid = c_in * expand
        self.conv_pw = conv_bn(c_in, mid, 1)
        self.conv_dw = conv_bn(mid, mid, 3, stride, groups=mid)
        self.se = SqueezeExcite(mid, 0.25 / expand)
        self.conv_pwl = conv_bn(mid, c_out, 1, act=False)
        self.has_skip = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv_pwl(self.se(self.conv_dw(self.conv_pw(x))))
        return x + y if self.has_skip else y


class TinyEfficientNet(nn.Module):
    """A timm-style EfficientNet scaled down to run in milliseconds on a CPU."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv_stem = conv_bn(3, 16, 3, stride=2)
        self.blocks = nn.Sequential(DepthwiseSeparable(16), InvertedResidual(16, 24, 2),
                                    InvertedResidual(24, 24, 1))
        self.conv_head = conv_bn(24, 64, 1)
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        self.classifier = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv_head(self.blocks(self.conv_stem(x)))
        return self.classifier(self.drop(self.global_pool(x).flatten(1)))


class SelfAttention(nn.Module):
    """Multi-head self-attention as Hugging Face's BERT writes it."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.query, self.key, self.value = (nn.Linear(dim, dim) for _ in range(3))
        self.output = nn.Linear(dim, dim)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        return x.view(b, n, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (self.split_heads(f(x)) for f in (self.query, self.key, self.value))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        context = torch.matmul(F.softmax(scores, dim=-1), v)
        b, _, n, _ = context.shape
        return self.output(context.permute(0, 2, 1, 3).contiguous().view(b, n, -1))


class EncoderLayer(nn.Module):
    """Pre-norm encoder layer: x + attn(ln(x)), then x + mlp(ln(x)) with a GELU MLP."""

    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """A two-layer text classifier: embeddings, encoder layers, mean pooling, head."""

    def __init__(self, dim: int = 64, heads: int = 4, layers: int = 2, num_classes: int = 10):
        super().__init__()
        self.tok_embed = nn.Embedding(VOCAB, dim)
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, TOKENS, dim))
        self.layers = nn.ModuleList(EncoderLayer(dim, heads, 4 * dim) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tok_embed(ids) + self.pos_embed
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x).mean(1))


def _randomize_norms(model: nn.Module, gen: torch.Generator) -> None:
    """Fresh batch norms are identities in eval mode; random statistics and affine
    weights make the comparison of the transpiled outputs mean something."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            with torch.no_grad():
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=gen))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=gen))
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=gen))
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)


def build(name: str, seed: int = 0) -> tuple[nn.Module, np.ndarray]:
    """A model in eval mode with fixed random weights, and an example input as NumPy."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    if name == "cnn":
        model: nn.Module = TinyEfficientNet()
        x = rng.standard_normal((BATCH, 3, IMAGE, IMAGE)).astype(np.float32)
    elif name == "transformer":
        model = TinyTransformer()
        x = rng.integers(0, VOCAB, (BATCH, TOKENS)).astype(np.int64)
    else:
        raise KeyError(f"no model '{name}'; there are: cnn, transformer")
    _randomize_norms(model, gen)
    return model.eval(), x


MODELS = {"cnn": "timm-style EfficientNet (conv-BN-SiLU, SE, inverted residuals)",
          "transformer": "2-layer pre-norm transformer (HF-style attention, GELU MLP)"}
"""The showcase's models, with the one-line description it prints."""


def set_threads(threads: int) -> None:
    """torch's intra-op threads (the showcase gives every framework the same number)."""
    torch.set_num_threads(threads)


def torch_runners(model: nn.Module, x: np.ndarray, compile_model: bool
                  ) -> dict[str, Callable[[], Any]]:
    """The baselines, not yet called: `model(x)` in eager mode and, if asked, under
    `torch.compile` (whose first call compiles), both without autograd."""
    xt = torch.from_numpy(x)
    runners = {"torch eager": torch.no_grad()(lambda: model(xt))}
    if compile_model:
        compiled = torch.compile(model)
        runners["torch.compile"] = torch.no_grad()(lambda: compiled(xt))
    return runners


def _main() -> None:
    for name, what in MODELS.items():
        model, x = build(name)
        c = ivy_ir.compile(model, target="jax", args=(x,))
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).numpy()
        err = float(np.max(np.abs(np.asarray(c(x)) - ref)))
        print(f"{name}: {what}\n  torch -> jax: {c!r}, max |diff| vs torch = {err:.1e}")


if __name__ == "__main__":
    _main()
