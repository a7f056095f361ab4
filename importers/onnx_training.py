"""The operators of ONNX's `ai.onnx.preview.training` domain -> ivy ops: the
optimizers (`Adagrad`, `Momentum`, `Adam`) and `Gradient`.

Each updates several tensors at once: the inputs are the learning rate R, the step
count T, then one group per state kind (tensors X, gradients G, accumulators ...), n
tensors each; the outputs are the new values, grouped the same way. Every update is
computed in float64 (ONNX's definition mixes float64 scalars into float32 tensors)
and cast back to each tensor's dtype; conditions on T (`t > 0`) are `ivy.where`s.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from xdsl.ir import SSAValue

from ivy_ir.core.reverse import DerivativeError, gradients
from ivy_ir.core.tracer import Tracer

from .common import Rule, Unmapped
from .onnx_ctx import Ctx

DOMAIN = "ai.onnx.preview.training"
"""The ONNX operator domain this family's table serves."""

Update = Callable[..., list[Any]]
"""`update(ctx, r, t, *tensors) -> new tensors`, all float64, for one tensor's group."""


def _grouped(kinds: int, update: Update) -> Callable[..., list[Any]]:
    """The rule applying `update` to each of the n tensors of `kinds` groups."""
    takes = set(inspect.signature(update).parameters)

    def rule(c: Ctx, r: Any, t: Any, *data: Any, **attrs: Any) -> list[Any]:
        unknown = sorted(set(attrs) - takes)
        if unknown:
            raise Unmapped(f"attributes {', '.join(unknown)} not supported")
        if len(data) % kinds:
            raise Unmapped(f"{len(data)} tensor inputs do not form {kinds} equal groups")
        n = len(data) // kinds
        groups = [data[k * n:(k + 1) * n] for k in range(kinds)]
        rate, step = c.cast(c.emit("reshape", r, shape=[]), "float64"), c.cast(
            c.emit("reshape", t, shape=[]), "float64")
        results = []
        for i in range(n):
            tensors = [g[i] for g in groups]
            wide = [c.cast(v, "float64") for v in tensors]
            new = update(c, rate, step, *wide, **attrs)
            results.append([c.cast(v, c.spec(old).dtype) for v, old in zip(new, tensors)])
        return [results[i][k] for k in range(len(results[0])) for i in range(n)]
    return rule


def _f(c: Ctx, value: float) -> Any:
    return c.const(value, "float64")


def _regularized(c: Ctx, x: Any, g: Any, norm_coefficient: float) -> Any:
    """norm_coefficient * x + g (the L2-regularized gradient)."""
    return c.emit("add", c.emit("multiply", _f(c, norm_coefficient), x), g)


def _adagrad(c: Ctx, r: Any, t: Any, x: Any, g: Any, h: Any, decay_factor: float = 0.0,
             epsilon: float = 0.0, norm_coefficient: float = 0.0) -> list[Any]:
    rate = c.emit("divide", r, c.emit("add", _f(c, 1.0),
                                      c.emit("multiply", t, _f(c, decay_factor))))
    grad = _regularized(c, x, g, norm_coefficient)
    h_new = c.emit("add", h, c.emit("multiply", grad, grad))
    scale = c.emit("add", c.emit("sqrt", h_new), _f(c, epsilon))
    step = c.emit("divide", c.emit("multiply", rate, grad), scale)
    return [c.emit("subtract", x, step), h_new]


def _momentum(c: Ctx, r: Any, t: Any, x: Any, g: Any, v: Any, alpha: float = 0.0,
              beta: float = 0.0, mode: str = "standard", norm_coefficient: float = 0.0
              ) -> list[Any]:
    if mode not in ("standard", "nesterov"):
        raise Unmapped(f"mode '{mode}'")
    grad = _regularized(c, x, g, norm_coefficient)
    first = c.emit("greater", t, _f(c, 0.0))
    weight = c.emit("where", first, _f(c, beta), _f(c, 1.0))
    v_new = c.emit("add", c.emit("multiply", _f(c, alpha), v), c.emit("multiply", weight, grad))
    direction = v_new if mode == "standard" else c.emit(
        "add", grad, c.emit("multiply", _f(c, alpha), v_new))
    return [c.emit("subtract", x, c.emit("multiply", r, direction)), v_new]


def _adam(c: Ctx, r: Any, t: Any, x: Any, g: Any, v: Any, h: Any, alpha: float = 0.9,
          beta: float = 0.999, epsilon: float = 0.0, norm_coefficient: float = 0.0,
          norm_coefficient_post: float = 0.0) -> list[Any]:
    grad = _regularized(c, x, g, norm_coefficient)
    v_new = c.emit("add", c.emit("multiply", _f(c, alpha), v),
                   c.emit("multiply", _f(c, 1 - alpha), grad))
    h_new = c.emit("add", c.emit("multiply", _f(c, beta), h),
                   c.emit("multiply", _f(c, 1 - beta), c.emit("multiply", grad, grad)))
    scale = c.emit("add", c.emit("sqrt", h_new), _f(c, epsilon))
    # bias-corrected rate r * sqrt(1 - beta^t) / (1 - alpha^t), only after step 0 (the
    # denominator is 1 at step 0, so the branch not taken holds no 0 / 0)
    later = c.emit("greater", t, _f(c, 0.0))
    below = c.emit("where", later, c.emit("subtract", _f(c, 1.0),
                                          c.emit("pow", _f(c, alpha), t)), _f(c, 1.0))
    fixed = c.emit("divide", c.emit("multiply", r, c.emit("sqrt", c.emit(
        "subtract", _f(c, 1.0), c.emit("pow", _f(c, beta), t)))), below)
    rate = c.emit("where", later, fixed, r)
    x_new = c.emit("subtract", x, c.emit("multiply", rate, c.emit("divide", v_new, scale)))
    return [c.emit("multiply", _f(c, 1 - norm_coefficient_post), x_new), v_new, h_new]


def _gradient(c: Ctx, *at: Any, xs: list[str], y: str, zs: list[str] | None = None
              ) -> list[Any]:
    """d(y)/d(x) for each tensor named in `xs` (of y's sum, where y is not a scalar), by
    the IR's own reverse mode (`ivy_ir.core.reverse`), so every target computes it,
    NumPy included. The inputs are the points to differentiate at: here, the named
    tensors themselves (`zs` are held fixed)."""
    named = [*xs, *(zs or [])]
    if len(at) != len(named) or any(v is not c.graphs.value_of(n) for v, n in zip(at, named)):
        raise Unmapped("inputs other than the tensors named in xs and zs (a gradient at "
                       "other points)")
    target = c.graphs.value_of(y)
    if not all(isinstance(v, SSAValue) for v in (target, *at[:len(xs)])):
        raise Unmapped("a y or xs tensor that is known at import time")
    graph = c.b.graph
    try:
        grads = gradients(Tracer(target, graph), [Tracer(v, graph) for v in at[:len(xs)]])
    except DerivativeError as exc:
        raise Unmapped(str(exc)) from None
    return [g.value for g in grads]


TABLE: dict[str, Rule] = {
    "Adagrad": _grouped(3, _adagrad), "Momentum": _grouped(3, _momentum),
    "Adam": _grouped(4, _adam), "Gradient": _gradient,
}
"""op_type (domain `ai.onnx.preview.training`) -> rule."""
