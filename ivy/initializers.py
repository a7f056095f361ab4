"""Initializers: the starting values of a layer's variables, on the current backend.

Values are drawn on the host with a `numpy.random.Generator` and then converted with
`ivy.asarray`, so that the same seed gives the same weights on every backend (a model
built under torch and under JAX starts identical) and no framework's global random
state is read or advanced. `seed` takes an int, a Generator (a layer passes one
Generator to all its initializers, so its variables differ from each other yet are
reproducible), or None for fresh entropy.

Every initializer is called as `init(shape, fan_in=None, fan_out=None, *, dtype=None,
device=None, seed=None)`. The fans are the layer's to give because only the layer
knows its weight layout (a channels-last kernel keeps its input channels second to
last, a torch-style one second); the initializers that scale by a fan refuse to guess.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

import ivy

Array = Any
Seed = int | numpy.random.Generator | None
Shape = tuple[int, ...]
Fan = int | None
Rng = numpy.random.Generator
Host = numpy.ndarray


class Initializer:
    """Turns a host sample into a backend array; subclasses say how to sample."""

    def __call__(self, shape: Sequence[int], fan_in: Fan = None, fan_out: Fan = None, *,
                 dtype: Any = None, device: Any = None, seed: Seed = None) -> Array:
        shape = tuple(int(d) for d in shape)
        host = self.sample(shape, fan_in, fan_out, numpy.random.default_rng(seed))
        return ivy.asarray(numpy.asarray(host, dtype=numpy.float64),
                           dtype=ivy.float32 if dtype is None else dtype, device=device)

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    """Every entry `value`: biases, norm scales, and the forget-gate trick."""

    def __init__(self, value: float):
        self.value = float(value)

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        return numpy.full(shape, self.value)


class Zeros(Constant):
    def __init__(self) -> None:
        super().__init__(0.0)


class Ones(Constant):
    def __init__(self) -> None:
        super().__init__(1.0)


class Uniform(Initializer):
    """Independent draws from [low, high)."""

    def __init__(self, low: float = -0.05, high: float = 0.05):
        self.low, self.high = float(low), float(high)

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        return rng.uniform(self.low, self.high, shape)


class RandomNormal(Initializer):
    """Independent draws from N(mean, std^2)."""

    def __init__(self, mean: float = 0.0, std: float = 0.05):
        self.mean, self.std = float(mean), float(std)

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        return rng.normal(self.mean, self.std, shape)


def _fan(mode: str, fan_in: Fan, fan_out: Fan, who: str) -> float:
    needed = {"fan_in": (fan_in,), "fan_out": (fan_out,), "fan_avg": (fan_in, fan_out)}[mode]
    if any(f is None for f in needed):
        raise ValueError(f"{who} scales by {mode}: pass fan_in and fan_out (the layer "
                         "knows them from its weight layout)")
    return float(sum(needed)) / len(needed)


class VarianceScaling(Initializer):
    """Zero-mean values of variance `scale / fan` (fan_in, fan_out or their average),
    uniform or normal: keeps activations (fan_in), gradients (fan_out) or both at unit
    scale through a layer, the reasoning behind Glorot's and He's schemes."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "normal"):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"mode must be fan_in, fan_out or fan_avg, not {mode!r}")
        if distribution not in ("normal", "uniform"):
            raise ValueError(f"distribution must be normal or uniform, not {distribution!r}")
        self.scale, self.mode, self.distribution = float(scale), mode, distribution

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        std = math.sqrt(self.scale / _fan(self.mode, fan_in, fan_out, type(self).__name__))
        if self.distribution == "normal":
            return rng.normal(0.0, std, shape)
        limit = std * math.sqrt(3.0)  # U(-a, a) has variance a^2 / 3
        return rng.uniform(-limit, limit, shape)


class GlorotUniform(VarianceScaling):
    """U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) (Xavier)."""

    def __init__(self) -> None:
        super().__init__(1.0, "fan_avg", "uniform")


class GlorotNormal(VarianceScaling):
    def __init__(self) -> None:
        super().__init__(1.0, "fan_avg", "normal")


class KaimingNormal(VarianceScaling):
    """N(0, gain^2 / fan) (He), gain sqrt(2) by default: a ReLU halves the second
    moment, which the factor 2 restores. Untruncated, as torch's `kaiming_normal_`."""

    def __init__(self, gain: float = math.sqrt(2.0), mode: str = "fan_in"):
        super().__init__(gain * gain, mode, "normal")


class KaimingUniform(VarianceScaling):
    def __init__(self, gain: float = math.sqrt(2.0), mode: str = "fan_in"):
        super().__init__(gain * gain, mode, "uniform")


class Siren(VarianceScaling):
    """U(-a, a) with a = sqrt(6 / fan_in) / w0: the hidden layers of a SIREN, whose
    sin(w0 * x) activations stay arcsine-distributed at this scale."""

    def __init__(self, w0: float = 30.0):
        super().__init__(2.0 / (w0 * w0), "fan_in", "uniform")
        self.w0 = float(w0)


class FirstLayerSiren(Initializer):
    """U(-1 / fan_in, 1 / fan_in): a SIREN's first layer, whose inputs are coordinates
    rather than sine activations."""

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        limit = 1.0 / _fan("fan_in", fan_in, fan_out, type(self).__name__)
        return rng.uniform(-limit, limit, shape)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the last axis against the rest flattened, times
    `gain`: recurrent kernels keep the hidden state's norm through many steps."""

    def __init__(self, gain: float = 1.0):
        self.gain = float(gain)

    def sample(self, shape: Shape, fan_in: Fan, fan_out: Fan, rng: Rng) -> Host:
        if len(shape) < 2:
            raise ValueError(f"Orthogonal needs at least 2 dimensions, got shape {shape}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        q, r = numpy.linalg.qr(rng.normal(size=(max(rows, cols), min(rows, cols))))
        q = q * numpy.sign(numpy.diag(r))  # makes the draw uniform over orthogonal matrices
        return self.gain * (q if rows >= cols else q.T).reshape(shape)
