"""ONNX random generators -> ivy's keyed random ops.

Each node draws from its own key (`Ctx.rng_key`: the program's key input, which the
compiled call refreshes per call, plus a per-op offset), so results are random per
call as ONNX runtimes make them. A `seed` attribute asks for one fixed stream of
ONNX's reference generator, which no target reproduces: it is accepted and not
honoured (a seeded model still draws valid samples of the same distribution).
"""

from __future__ import annotations

from typing import Any

from .common import Rule, Unmapped
from .onnx_ctx import Ctx


def _uniform(c: Ctx, shape: list[int], dtype: str, low: float, high: float) -> Any:
    return c.emit("random_uniform", c.rng_key(), shape=shape, low=low, high=high, dtype=dtype)


def _normal(c: Ctx, shape: list[int], dtype: str, mean: float, scale: float) -> Any:
    return c.emit("random_normal", c.rng_key(), shape=shape, mean=mean, std=scale, dtype=dtype)


def _shape_of(c: Ctx, x: Any) -> list[int]:
    shape = c.spec(x).shape
    if None in shape:
        raise Unmapped("a random tensor of dynamic shape")
    return list(shape)  # type: ignore[arg-type]


def _random_uniform(c: Ctx, shape: list[int], dtype: int = 1, high: float = 1.0,
                    low: float = 0.0, seed: float | None = None) -> Any:
    return _uniform(c, shape, c.dtype(dtype), low, high)


def _random_normal(c: Ctx, shape: list[int], dtype: int = 1, mean: float = 0.0,
                   scale: float = 1.0, seed: float | None = None) -> Any:
    return _normal(c, shape, c.dtype(dtype), mean, scale)


def _random_uniform_like(c: Ctx, x: Any, dtype: int | None = None, high: float = 1.0,
                         low: float = 0.0, seed: float | None = None) -> Any:
    out = c.dtype(dtype) if dtype is not None else c.spec(x).dtype
    return _uniform(c, _shape_of(c, x), out, low, high)


def _random_normal_like(c: Ctx, x: Any, dtype: int | None = None, mean: float = 0.0,
                        scale: float = 1.0, seed: float | None = None) -> Any:
    out = c.dtype(dtype) if dtype is not None else c.spec(x).dtype
    return _normal(c, _shape_of(c, x), out, mean, scale)


def _bernoulli(c: Ctx, p: Any, dtype: int | None = None, seed: float | None = None) -> Any:
    """1 where a uniform draw in [0, 1) is below the probability, else 0."""
    source = c.spec(p).dtype
    draw = _uniform(c, _shape_of(c, p), source, 0.0, 1.0)
    return c.cast(c.emit("less", draw, p), c.dtype(dtype) if dtype is not None else source)


TABLE: dict[str, Rule] = {
    "RandomUniform": _random_uniform, "RandomNormal": _random_normal,
    "RandomUniformLike": _random_uniform_like, "RandomNormalLike": _random_normal_like,
    "Bernoulli": _bernoulli,
}
"""ONNX op_type -> rule for the random generators."""
