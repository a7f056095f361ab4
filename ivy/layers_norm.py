"""Normalization layers: LayerNorm and BatchNorm2D.

BatchNorm2D's running statistics are state, not variables: they live in the layer's
`stats` Container, outside `v`, so gradients, optimizers and `module(x, v=...)` never
see them and they are never made `requires_grad` tensors or `tf.Variable`s. Training
mode replaces `stats` after each forward pass with values cut from the graph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

import ivy

from .container import Container
from .gradients import eager_only
from .initializers import Initializer, Ones, Seed, Zeros
from .module import Module

Array = Any


def channel_axis(data_format: str) -> int:
    """Where the channels sit: -1 channels-last (NHWC, Keras, the Ivy papers), 1
    channels-first (NCHW, torch). Both spellings of each are accepted."""
    if data_format in ("channels_last", "NWC", "NHWC", "NDHWC"):
        return -1
    if data_format in ("channels_first", "NCW", "NCHW", "NCDHW"):
        return 1
    raise ValueError(f"data_format must be 'channels_last' or 'channels_first' "
                     f"(or NHWC/NCHW), not {data_format!r}")


class LayerNorm(Module):
    """Normalizes over the trailing `normalized_shape` dimensions, then scales by `w`
    and shifts by `b` (both of that shape) when `elementwise_affine`.

    eps defaults to torch's 1e-5; Keras's LayerNormalization uses 1e-3 and Flax's
    LayerNorm 1e-6, so pass theirs when matching them."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, *, with_bias: bool = True,
                 weight_initializer: Initializer | None = None,
                 bias_initializer: Initializer | None = None, dtype: Any = None,
                 device: Any = None, seed: Seed = None):
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(int(d) for d in shape)
        self.eps, self.elementwise_affine = float(eps), elementwise_affine
        self.with_bias = with_bias and elementwise_affine
        self.weight_initializer = weight_initializer or Ones()
        self.bias_initializer = bias_initializer or Zeros()
        self._seed = seed
        Module.__init__(self, dtype=dtype, device=device)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        rng = numpy.random.default_rng(self._seed)
        size = math.prod(self.normalized_shape)
        options = {"fan_in": size, "fan_out": size, "dtype": dtype, "device": device,
                   "seed": rng}
        own = {}
        if self.elementwise_affine:
            own["w"] = self.weight_initializer(self.normalized_shape, **options)
        if self.with_bias:
            own["b"] = self.bias_initializer(self.normalized_shape, **options)
        return own

    def _forward(self, x: Array) -> Array:
        axes = tuple(range(-len(self.normalized_shape), 0))
        return ivy.layer_norm(x, self.v.get("w"), self.v.get("b"), axis=axes, eps=self.eps)


class BatchNorm2D(Module):
    """Normalizes each channel of (batch, H, W, C) input (or (batch, C, H, W) with
    data_format='channels_first') by its statistics, then scales by `w` and shifts by
    `b` (both (num_features,)) when `affine`.

    In training mode the batch's own mean and (biased) variance normalize, and the
    running statistics `stats.mean`/`stats.var` move towards them with torch's
    convention: running = (1 - momentum) * running + momentum * batch, the variance
    term unbiased (n / (n - 1)). Keras's `momentum` is 1 minus this one. In eval mode
    the running statistics normalize; with `track_running_stats=False` the batch
    statistics always do and `stats` stays empty.

    `stats` is replaced (never written in place) by each training step. Inside a JAX
    transformation (`jax.grad`, which `ivy.execute_with_gradients` uses on JAX) the
    values written are tracers: return `layer.stats` as an extra output of the loss
    function and set it back from the concrete value that comes out.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, track_running_stats: bool = True, *,
                 data_format: str = "channels_last", dtype: Any = None, device: Any = None):
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.axis = channel_axis(data_format)
        Module.__init__(self, dtype=dtype, device=device)
        shape = (self.num_features,)
        self.stats = Container(mean=Zeros()(shape, dtype=dtype, device=device),
                               var=Ones()(shape, dtype=dtype, device=device)) \
            if track_running_stats else Container()

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        if not self.affine:
            return {}
        shape = (self.num_features,)
        return {"w": Ones()(shape, dtype=dtype, device=device),
                "b": Zeros()(shape, dtype=dtype, device=device)}

    def _forward(self, x: Array) -> Array:
        axis = self.axis % len(x.shape)
        if self.training or not self.track_running_stats:
            reduced = tuple(i for i in range(len(x.shape)) if i != axis)
            mean, var = ivy.mean(x, axis=reduced), ivy.var(x, axis=reduced)
            if self.training and self.track_running_stats:
                eager_only([x], "batch norm's running statistics in training mode")
                self._update_stats(mean, var, math.prod(int(x.shape[i]) for i in reduced))
        else:
            mean, var = self.stats.mean, self.stats.var
        return ivy.batch_norm(x, mean, var, self.v.get("w"), self.v.get("b"), axis=axis,
                              eps=self.eps)

    def _update_stats(self, mean: Array, var: Array, count: int) -> None:
        m = self.momentum
        unbiased = ivy.stop_gradient(var) * (count / max(count - 1, 1))
        self.stats = Container(mean=self.stats.mean * (1 - m) + ivy.stop_gradient(mean) * m,
                               var=self.stats.var * (1 - m) + unbiased * m)

