"""The `nn.Module` programs of the PyTorch zoo, written as torch users write models."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


def seeded(cls: type[nn.Module], *args: Any) -> nn.Module:
    """An instance built under a fixed seed, in eval mode, with non-trivial BN stats."""
    torch.manual_seed(0)
    model = cls(*args)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval()


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.GELU(),
                                 nn.Dropout(0.1), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


class ResidualMLP(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16), nn.SiLU())
                                    for _ in range(depth))
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + 0.5 * block(h) - torch.tanh(h) * 0.1
        return self.out(h).softmax(-1)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


class SmallResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(16, 16)
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.encoder(self.embed(x))
        return self.head(h.mean(1))


class GRUUnrolled(nn.Module):
    """A GRU cell written out with Linear layers and unrolled over time."""

    def __init__(self, inp: int = 4, hidden: int = 6):
        super().__init__()
        self.hidden = hidden
        self.x2h = nn.Linear(inp, 3 * hidden)
        self.h2h = nn.Linear(hidden, 3 * hidden)

    def forward(self, xs):
        h = xs.new_zeros(xs.shape[0], self.hidden)
        outs = []
        for t in range(xs.shape[1]):
            xr, xz, xn = self.x2h(xs[:, t]).chunk(3, 1)
            hr, hz, hn = self.h2h(h).chunk(3, 1)
            r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
            n = torch.tanh(xn + r * hn)
            h = (1 - z) * n + z * h
            outs.append(h)
        return torch.stack(outs, 1), h


class NormStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.ln = nn.LayerNorm([6, 6])
        self.rms = nn.RMSNorm(6)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.gn(x), self.inorm(x), self.ln(x), self.rms(x), self.bn(x * 2)


class PoolNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        h = self.bn(self.conv(x))
        return F.max_pool1d(h, 2), F.avg_pool1d(h, 3, 2, 1, count_include_pad=False), \
            F.avg_pool1d(h, 2, ceil_mode=True), F.adaptive_avg_pool1d(h, 4), \
            F.max_pool2d(h[None], 3, 2, 1, ceil_mode=True)


class ConvTransposeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        y = self.up(x)
        return y, F.interpolate(x, scale_factor=2), \
            F.interpolate(x, size=(7, 8), mode="bilinear", align_corners=False), \
            F.interpolate(x, size=(9, 9), mode="bilinear", align_corners=True)


class DepthwiseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 8, 3, padding="same", groups=4, dilation=2)
        self.pw = nn.Conv2d(8, 6, 1)
        self.strided = nn.Conv2d(6, 6, 4, stride=2, padding=1)

    def forward(self, x):
        return self.strided(F.relu6(self.pw(self.dw(x))))


class EmbeddingBag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.proj = nn.Linear(8, 4)

    def forward(self, tokens):
        return self.proj(self.emb(tokens).mean(1))
