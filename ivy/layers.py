"""Core layers written once against the functional API: Linear, Embedding, Dropout,
Sequential and the activation modules.

Every layer is an `ivy.Module` whose variables are drawn by the initializers of
`ivy/initializers.py` on the host from the layer's `seed` and converted to the current
backend, so one seed gives the same model under every framework. Weights keep the
layout the `ivy.<fn>` they feed expects (that op's line in ivy_ir/dialect/ops.spec),
so a forward pass is that one call with no transposes.
"""

from __future__ import annotations

from typing import Any

import numpy

import ivy

from .gradients import eager_only
from .initializers import GlorotUniform, Initializer, RandomNormal, Seed, Zeros
from .module import Module

Array = Any


class Linear(Module):
    """y = x w^T + b over the last axis of x.

    Variables: `w` (out_features, in_features), as `ivy.linear` and torch's
    `nn.Linear.weight` lay it out (Keras's `Dense.kernel` is its transpose), and `b`
    (out_features,) unless `with_bias=False`. Glorot-uniform weights and zero bias by
    default, as in Keras and the Ivy papers.
    """

    def __init__(self, in_features: int, out_features: int, *,
                 weight_initializer: Initializer | None = None,
                 bias_initializer: Initializer | None = None, with_bias: bool = True,
                 dtype: Any = None, device: Any = None, seed: Seed = None):
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight_initializer = weight_initializer or GlorotUniform()
        self.bias_initializer = bias_initializer or Zeros()
        self.with_bias = with_bias
        self._seed = seed
        Module.__init__(self, dtype=dtype, device=device)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        rng = numpy.random.default_rng(self._seed)
        fans = (self.in_features, self.out_features)
        own = {"w": self.weight_initializer((self.out_features, self.in_features), *fans,
                                            dtype=dtype, device=device, seed=rng)}
        if self.with_bias:
            own["b"] = self.bias_initializer((self.out_features,), *fans, dtype=dtype,
                                             device=device, seed=rng)
        return own

    def _forward(self, x: Array) -> Array:
        return ivy.linear(x, self.v.w, self.v.get("b"))


class Embedding(Module):
    """Rows of a (num_embeddings, embedding_dim) table `w` picked by integer indices.

    As torch's `nn.Embedding`: N(0, 1) rows by default, and with `padding_idx` that row
    starts at zero and receives no gradient, so padding never learns a meaning. The
    forward pass reads that row through `ivy.stop_gradient` rather than zeroing it, so
    a value written into it is still returned, as torch does.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int,
                 padding_idx: int | None = None, *,
                 weight_initializer: Initializer | None = None, dtype: Any = None,
                 device: Any = None, seed: Seed = None):
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"padding_idx {padding_idx} is outside the table of "
                             f"{num_embeddings} rows")
        self.padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        self.weight_initializer = weight_initializer or RandomNormal(0.0, 1.0)
        self._seed = seed
        Module.__init__(self, dtype=dtype, device=device)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        shape = (self.num_embeddings, self.embedding_dim)
        w = self.weight_initializer(shape, self.num_embeddings, self.embedding_dim,
                                    dtype=dtype, device=device, seed=self._seed)
        p = self.padding_idx
        if p is not None:
            w = ivy.concat([w[:p], ivy.zeros_like(w[p:p + 1]), w[p + 1:]], axis=0)
        return {"w": w}

    def _forward(self, indices: Array) -> Array:
        out = ivy.embedding(indices, self.v.w)
        if self.padding_idx is None:
            return out
        frozen = ivy.embedding(indices, ivy.stop_gradient(self.v.w))
        return ivy.where(ivy.expand_dims(indices == self.padding_idx, axis=-1), frozen, out)


class Dropout(Module):
    """Zeroes each entry with probability `prob` in training mode and scales the kept
    ones by 1 / (1 - prob) (unless `scale=False`), so eval mode, the identity, sees
    the same expected activations.

    Masks come from a NumPy Generator that the layer owns, seeded by `seed`: each call
    draws a fresh mask without reading or advancing any framework's global random
    state, and a seeded layer replays the same sequence of masks on every backend.
    Under a compiling transformation (`jax.jit`) the mask drawn while tracing is baked
    in as a constant; `ivy_ir.compile` refuses a training-mode dropout for that reason.
    """

    def __init__(self, prob: float, *, scale: bool = True, seed: Seed = None):
        if not 0.0 <= prob < 1.0:
            raise ValueError(f"dropout probability must lie in [0, 1), got {prob}")
        self.prob, self.scale = float(prob), scale
        self._rng = numpy.random.default_rng(seed)
        Module.__init__(self)

    def _forward(self, x: Array) -> Array:
        if not self.training or self.prob == 0.0:
            return x
        eager_only([x], "dropout in training mode")
        keep = self._rng.random(tuple(int(d) for d in x.shape)) >= self.prob
        factor = 1.0 / (1.0 - self.prob) if self.scale else 1.0
        return x * ivy.get_backend(x).asarray(keep * factor, dtype=x.dtype)


class Sequential(Module):
    """Layers applied in order. They sit in the list `submodules`, so their variables
    are `v.submodules/0/...`, `v.submodules/1/...` (how `ivy.Module` names list items)."""

    def __init__(self, *layers: Module, dtype: Any = None, device: Any = None):
        strays = [type(m).__name__ for m in layers if not isinstance(m, Module)]
        if strays:
            raise TypeError(f"Sequential takes ivy.Modules (a function can be wrapped in "
                            f"one, e.g. ivy.ReLU()), got {', '.join(strays)}")
        self.submodules = list(layers)
        Module.__init__(self, dtype=dtype, device=device)

    def _forward(self, x: Array) -> Array:
        for layer in self.submodules:
            x = layer(x)
        return x

    def __len__(self) -> int:
        return len(self.submodules)

    def __getitem__(self, index: int) -> Module:
        return self.submodules[index]


_ACTIVATIONS: dict[str, tuple[str, dict[str, Any]]] = {
    # module name: (the ivy function it applies, that function's options and defaults)
    "ReLU": ("relu", {}),
    "ReLU6": ("relu6", {}),
    "LeakyReLU": ("leaky_relu", {"alpha": 0.01}),
    "ELU": ("elu", {"alpha": 1.0}),
    "GELU": ("gelu", {"approximate": "none"}),
    "SiLU": ("silu", {}),
    "Mish": ("mish", {}),
    "Sigmoid": ("sigmoid", {}),
    "HardSigmoid": ("hard_sigmoid", {}),
    "HardSwish": ("hardswish", {}),
    "Softplus": ("softplus", {"beta": 1.0, "threshold": 20.0}),
    "Tanh": ("tanh", {}),
    "Softmax": ("softmax", {"axis": -1}),
    "LogSoftmax": ("log_softmax", {"axis": -1}),
}


def _activation_module(name: str, function: str, defaults: dict[str, Any]) -> type[Module]:
    """A variable-free Module applying `ivy.<function>`, its options given to the
    constructor (positionally in the table's order, or by name)."""

    def __init__(self: Module, *args: Any, **options: Any) -> None:
        if len(args) > len(defaults):
            raise TypeError(f"{name} takes at most {len(defaults)} positional options "
                            f"({', '.join(defaults) or 'none'}), got {len(args)}")
        given = dict(zip(defaults, args))
        unknown = (set(options) - set(defaults)) | (set(given) & set(options))
        if unknown:
            raise TypeError(f"{name}: unknown or repeated options {sorted(unknown)}; it "
                            f"takes {', '.join(defaults) or 'none'}")
        self.options = {**defaults, **given, **options}
        Module.__init__(self)

    def _forward(self: Module, x: Array) -> Array:
        return getattr(ivy, function)(x, **self.options)

    def __repr__(self: Module) -> str:
        return f"{name}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"

    doc = f"`ivy.{function}` as a layer, for `Sequential` and module attributes."
    return type(name, (Module,), {"__init__": __init__, "_forward": _forward,
                                  "__repr__": __repr__, "__doc__": doc,
                                  "__module__": __name__, "__qualname__": name})


ACTIVATIONS: dict[str, type[Module]] = {
    name: _activation_module(name, function, defaults)
    for name, (function, defaults) in _ACTIVATIONS.items()}
globals().update(ACTIVATIONS)

