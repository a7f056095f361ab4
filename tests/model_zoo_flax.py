"""The zoo's Flax models, in training mode: dropout draws its mask from JAX's PRNG, which
every target reproduces bit for bit (threefry2x32), so the outputs must match the
source's, mask included.

Linen modules take the dropout key as an input (`apply(..., rngs={"dropout": key})`,
the key a compiled argument); NNX modules carry their `Rngs` stream and batch-norm
statistics as state, so the check compares each target's first call with the first
call of a clone of the module (compiling leaves the module handed in untouched).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from model_zoo_core import Built, Model


def _x(*shape: int) -> Any:
    import jax.numpy as jnp
    return jnp.asarray(np.random.default_rng(1).standard_normal(shape).astype(np.float32))


def linen(make: Callable[[Any], Any], shape: tuple[int, ...]) -> Callable[[], Built]:
    """A builder: `train_step(variables, x, key)`, the module applied in training mode."""
    def build() -> Built:
        import flax.linen as nn
        import jax
        net, x, key = make(nn), _x(*shape), jax.random.PRNGKey(42)
        variables = net.init(jax.random.PRNGKey(0), x, train=False)

        def train_step(variables: Any, x: Any, key: Any) -> Any:
            return net.apply(variables, x, train=True, rngs={"dropout": key})
        return Built(train_step, (x, key), lambda: train_step(variables, x, key),
                     params=variables)
    return build


def nnx_module(make: Callable[[Any], Any], shape: tuple[int, ...]) -> Callable[[], Built]:
    def build() -> Built:
        from flax import nnx
        net, x = make(nnx), _x(*shape)
        twin = nnx.clone(net)
        return Built(net, (x,), lambda: twin(x))
    return build


def _linen_cnn(nn: Any) -> Any:
    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x: Any, train: bool) -> Any:
            x = nn.relu(nn.BatchNorm(use_running_average=True)(nn.Conv(8, (3, 3))(x)))
            x = nn.Dropout(0.3, deterministic=not train)(x)
            x = nn.avg_pool(x, (2, 2), (2, 2))
            x = nn.Dropout(0.2, broadcast_dims=(1, 2), deterministic=not train)(x)
            return nn.Dense(10)(x.reshape(x.shape[0], -1))
    return CNN()


def _linen_mlp(nn: Any) -> Any:
    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x: Any, train: bool) -> Any:
            x = nn.gelu(nn.LayerNorm()(nn.Dense(32)(x)))
            return nn.Dense(4)(nn.Dropout(0.5, deterministic=not train)(x))
    return MLP()


def _nnx_cnn(nnx: Any) -> Any:
    class CNN(nnx.Module):
        def __init__(self, rngs: Any):
            self.conv = nnx.Conv(3, 8, (3, 3), rngs=rngs)
            self.norm = nnx.BatchNorm(8, rngs=rngs)
            self.dropout = nnx.Dropout(0.3, rngs=rngs)
            self.head = nnx.Linear(8 * 8 * 8, 10, rngs=rngs)

        def __call__(self, x: Any) -> Any:
            x = self.dropout(nnx.relu(self.norm(self.conv(x))))
            return self.head(x.reshape(x.shape[0], -1))
    return CNN(nnx.Rngs(0))


def _nnx_mlp(nnx: Any) -> Any:
    class MLP(nnx.Module):
        def __init__(self, rngs: Any):
            self.up = nnx.Linear(16, 32, rngs=rngs)
            self.norm = nnx.LayerNorm(32, rngs=rngs)
            self.dropout = nnx.Dropout(0.5, rngs=rngs)
            self.down = nnx.Linear(32, 4, rngs=rngs)

        def __call__(self, x: Any) -> Any:
            return self.down(self.dropout(nnx.gelu(self.norm(self.up(x)))))
    return MLP(nnx.Rngs(dropout=1, params=0))


FLAX = [
    Model("flax_linen_cnn_dropout", "flax", linen(_linen_cnn, (2, 8, 8, 3)), "flax.linen"),
    Model("flax_linen_mlp_dropout", "flax", linen(_linen_mlp, (4, 16)), "flax.linen"),
    Model("flax_nnx_cnn_dropout_batchnorm", "flax", nnx_module(_nnx_cnn, (2, 8, 8, 3)),
          "flax.nnx"),
    Model("flax_nnx_mlp_dropout", "flax", nnx_module(_nnx_mlp, (4, 16)), "flax.nnx"),
]
