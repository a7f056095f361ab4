"""Gradient updates and optimizers, written once against the `ivy` functional API.

Every rule below is the update of one leaf (`w`, its gradient `g`, the learning rate,
the 1-based index `t` of this update of that leaf, and its moments), so one loop
(`_apply_rule`) serves the functional updates of the 2021 Ivy API
(`gradient_descent_update`, `adam_update`, `lamb_update`, `lars_update`) and the
optimizer classes (`SGD`, `Adam`, `AdamW`, `LAMB`, `LARS`) alike, over a `Container`
or one array, on whichever framework holds the weights (NumPy included: no autodiff
is needed). A leaf whose gradient is None (an integer leaf) is left as it is. The
elementwise rules (SGD, Adam, AdamW) run once over the small leaves joined end to end
on NumPy and torch (`fused_updates.py`): the same numbers, a dozen dispatches per step
instead of a dozen per leaf.

The classes keep their moments per key chain, not per array object, because a training
step replaces every array (`model.v = optimizer.step(model.v, grads)`); the new
weights go through `gradients.updated`, so they come back cut from the graph and
variables again (a `tf.Variable` assigned in place).

Defaults follow the 2021 Ivy API (Adam's epsilon 1e-7, where torch.optim and optax use
1e-8 and optax's LAMB 1e-6); pass `epsilon` to reproduce those exactly. A learning rate
may be a schedule: it is called with the number of updates made before this one, as
optax calls its schedules, so one written for optax gives the same rates here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import ivy

from . import fused_updates as fused
from .container import Container, leaves_of, rebuilt
from .gradients import autodiff_of, updated

Array = Any
Tree = Any
"""A Container (or any mapping) of arrays, or one array."""
LearningRate = float | Callable[[int], Any]
LeafState = tuple[int, tuple[Any, ...]]
"""(updates made to the leaf so far, its moments; a None moment stands for zeros)."""


# ---- pieces the rules share ----

def _decayed(u: Array, w: Array, weight_decay: float) -> Array:
    """L2 weight decay folded into the update: u + wd * w."""
    return u + weight_decay * w if weight_decay else u


def _momentum(u: Array, buffer: Array, momentum: float,
              nesterov: bool) -> tuple[Array, Array]:
    """Heavy-ball momentum, b_t = mu * b_{t-1} + u_t, stepping along b_t, or along
    u_t + mu * b_t with Nesterov's look-ahead (Sutskever et al. 2013). A zero initial
    buffer gives b_1 = u_1, which is torch.optim.SGD's first step with no dampening."""
    buffer = u + momentum * buffer
    return (u + momentum * buffer if nesterov else buffer), buffer


def _adam_direction(g: Array, m: Array, v: Array, t: int, beta1: float, beta2: float,
                    epsilon: float) -> tuple[Array, Array, Array]:
    """Adam's step direction (Kingma & Ba 2015, Algorithm 1), with its new moments:
        m_t = b1 m_{t-1} + (1 - b1) g,   v_t = b2 v_{t-1} + (1 - b2) g^2,
        direction = m^_t / (sqrt(v^_t) + eps),  m^_t = m_t / (1 - b1^t), v^_t = v_t / (1 - b2^t).
    eps sits outside the root, as in the paper, torch.optim.Adam and optax.adam."""
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * (g * g)
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    return m_hat / (ivy.sqrt(v_hat) + epsilon), m, v


def _trust_ratio(w: Array, u: Array, coefficient: float, epsilon: float) -> Array:
    """The layer-wise trust ratio of LARS and LAMB, c * ||w|| / (||u|| + eps), taken as 1
    where either norm is zero (a zero layer, or no update), as optax does: the ratio
    would otherwise freeze a zero-initialised layer or divide by zero."""
    w_norm = ivy.linalg.vector_norm(w)
    u_norm = ivy.linalg.vector_norm(u)
    degenerate = ivy.logical_or(w_norm == 0, u_norm == 0)
    denominator = ivy.where(degenerate, 1.0, u_norm + epsilon)
    return ivy.where(degenerate, 1.0, coefficient * w_norm / denominator)


# ---- the rules: one leaf's update each ----

def _sgd_step(w: Array, g: Array, lr: Any, t: int, *buffer: Array, momentum: float,
              nesterov: bool, weight_decay: float) -> tuple[Array, ...]:
    """SGD as torch.optim.SGD (dampening 0) and optax.sgd apply it: the L2 decay joins the
    gradient before the momentum, and the learning rate scales the momentum's step:
        u = g + wd * w;   b = mu * b + u;   w <- w - lr * (b, or u + mu * b if Nesterov).
    With no momentum there is no buffer: w <- w - lr * u."""
    u = _decayed(g, w, weight_decay)
    if not buffer:
        return (w - lr * u,)
    direction, new_buffer = _momentum(u, buffer[0], momentum, nesterov)
    return w - lr * direction, new_buffer


def _adam_step(w: Array, g: Array, lr: Any, t: int, m: Array, v: Array, *, beta1: float,
               beta2: float, epsilon: float, weight_decay: float) -> tuple[Array, ...]:
    """Adam (Kingma & Ba 2015): w <- w - lr * m^ / (sqrt(v^) + eps), see `_adam_direction`.
    With a weight decay this is AdamW (Loshchilov & Hutter 2019): the decay is decoupled
    from the moments and applied first, as torch.optim.AdamW does,
        w <- w * (1 - lr * wd),   then the Adam step,
    which is optax.adamw's w - lr * (direction + wd * w) to rounding."""
    direction, m, v = _adam_direction(g, m, v, t, beta1, beta2, epsilon)
    if weight_decay:
        w = w * (1 - lr * weight_decay)
    return w - lr * direction, m, v


def _lamb_step(w: Array, g: Array, lr: Any, t: int, m: Array, v: Array, *, beta1: float,
               beta2: float, epsilon: float, weight_decay: float) -> tuple[Array, ...]:
    """LAMB (You et al. 2020, Algorithm 2, with phi the identity as in optax.lamb):
        u = m^ / (sqrt(v^) + eps) + wd * w,   w <- w - lr * (||w|| / ||u||) * u,
    the trust ratio taken on the decayed update and set to 1 where a norm is zero."""
    direction, m, v = _adam_direction(g, m, v, t, beta1, beta2, epsilon)
    u = _decayed(direction, w, weight_decay)
    return w - lr * (_trust_ratio(w, u, 1.0, 0.0) * u), m, v


def _lars_step(w: Array, g: Array, lr: Any, t: int, *buffer: Array, momentum: float,
               nesterov: bool, weight_decay: float, trust_coefficient: float,
               epsilon: float) -> tuple[Array, ...]:
    """LARS (You et al. 2017) in optax.lars's order: weight decay, trust ratio, learning
    rate, then momentum over the scaled updates:
        u = g + wd * w,   u <- lr * c * ||w|| / (||u|| + eps) * u,
        b = mu * b + u,   w <- w - (b, or u + mu * b if Nesterov).
    (The paper's ratio divides by ||g|| + wd * ||w||; optax, followed here, by ||u||.)"""
    u = _decayed(g, w, weight_decay)
    u = lr * (_trust_ratio(w, u, trust_coefficient, epsilon) * u)
    if not buffer:
        return (w - u,)
    direction, new_buffer = _momentum(u, buffer[0], momentum, nesterov)
    return w - direction, new_buffer


@dataclass(frozen=True)
class _Rule:
    """A leaf update `update(w, g, lr, t, *moments) -> (new_w, *new_moments)`, the
    names of its moments (zeros before a leaf's first update), and whether it is
    elementwise (no norm over the leaf), which lets small leaves share one update
    (`fused_updates.py`)."""

    update: Callable[..., tuple[Any, ...]]
    moments: tuple[str, ...]
    elementwise: bool = True


def _sgd_rule(momentum: float, nesterov: bool, weight_decay: float) -> _Rule:
    return _Rule(partial(_sgd_step, momentum=momentum, nesterov=nesterov,
                         weight_decay=weight_decay), ("momentum_buffer",) if momentum else ())


def _adam_rule(beta1: float, beta2: float, epsilon: float, weight_decay: float) -> _Rule:
    return _Rule(partial(_adam_step, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         weight_decay=weight_decay), ("mw", "vw"))


def _lamb_rule(beta1: float, beta2: float, epsilon: float, weight_decay: float) -> _Rule:
    return _Rule(partial(_lamb_step, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         weight_decay=weight_decay), ("mw", "vw"), elementwise=False)


def _lars_rule(momentum: float, nesterov: bool, weight_decay: float,
               trust_coefficient: float, epsilon: float) -> _Rule:
    return _Rule(partial(_lars_step, momentum=momentum, nesterov=nesterov,
                         weight_decay=weight_decay, trust_coefficient=trust_coefficient,
                         epsilon=epsilon), ("momentum_buffer",) if momentum else (),
                 elementwise=False)


# ---- the one loop over leaves ----

def _matched(caller: str, what: str, flat_w: dict[str, Any], tree: Tree) -> dict[str, Any]:
    """`tree` flattened, after checking it has the weights' key chains."""
    flat = leaves_of(tree)
    if flat.keys() != flat_w.keys():
        odd = sorted(flat.keys() ^ flat_w.keys())
        shown = ", ".join(repr(k) for k in odd[:5]) + (" ..." if len(odd) > 5 else "")
        raise ValueError(f"{caller}: {what} does not have the structure of the weights; "
                         f"key chains only in one of them: {shown} ('' is a single array)")
    return flat


def _lr_at(lr: LearningRate, step: int) -> Any:
    return lr(step - 1) if callable(lr) else lr


def _apply_rule(rule: _Rule, flat_w: dict[str, Any], flat_g: dict[str, Any], lr: Any,
                states: Mapping[str, LeafState]) -> tuple[dict[str, Any],
                                                          dict[str, LeafState]]:
    """The new weights, and the new state of each leaf that had a gradient. The rule runs
    where the framework records nothing (torch's `no_grad`; outside any tape or traced
    transformation), else on weights and gradients cut from the graph, so neither the
    new weights nor the moments it keeps drag the autodiff history of past steps along
    (torch would record every update on a `requires_grad` weight)."""
    new_w: dict[str, Any] = {}
    new_states: dict[str, LeafState] = {}
    values = [*flat_w.values(), *flat_g.values()]
    runtime = autodiff_of(values, "optimizer steps")
    scope, cut = runtime.unrecorded(values)

    def seen(x: Any) -> Any:
        return runtime.stop_gradient(x) if cut else x

    with scope:
        counts = {kc: state[0] for kc, state in states.items()}
        joins = rule.elementwise and runtime.name in fused.JOINED_ON
        for kcs in fused.groups(flat_w, flat_g, counts) if joins else ():
            count = counts.get(kcs[0], 0)
            none = (None,) * len(rule.moments)
            news, parts = fused.update(
                rule.update, [seen(flat_w[kc]) for kc in kcs], [seen(flat_g[kc]) for kc in kcs],
                lr, count + 1, [states.get(kc, (0, none))[1] for kc in kcs])
            for kc, new, moments in zip(kcs, news, parts):
                new_w[kc] = updated(runtime, flat_w[kc], new, cut)
                new_states[kc] = (count + 1, moments)
        for kc, w in flat_w.items():
            g = flat_g[kc]
            if kc in new_w or g is None:
                continue
            count, moments = states.get(kc, (0, (None,) * len(rule.moments)))
            moments = tuple(ivy.zeros_like(w) if m is None else fused.plain(m)
                            for m in moments)
            out = rule.update(seen(w), seen(g), lr, count + 1, *moments)
            new_w[kc] = updated(runtime, w, out[0], cut)
            new_states[kc] = (count + 1, tuple(out[1:]))
    return {kc: new_w.get(kc, w) for kc, w in flat_w.items()}, new_states


def _functional(caller: str, rule: _Rule, ws: Tree, dcdws: Tree, lr: LearningRate,
                step: int, moments: tuple[Tree, ...] = ()) -> tuple[Tree, ...]:
    """A functional update: (new_ws, *new_moments), moments shaped like `ws`."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"{caller}: step is the 1-based index of this update, got {step!r}")
    flat_w = leaves_of(ws)
    flat_g = _matched(caller, "dcdws", flat_w, dcdws)
    flat_m = [{kc: None for kc in flat_w} if tree is None
              else _matched(caller, name, flat_w, tree)
              for name, tree in zip(rule.moments, moments)]
    states = {kc: (step - 1, tuple(m[kc] for m in flat_m)) for kc in flat_w}
    new_w, new_states = _apply_rule(rule, flat_w, flat_g, _lr_at(lr, step), states)
    out_m = [{kc: fused.plain(new_states.get(kc, states[kc])[1][i]) for kc in flat_w}
             for i in range(len(flat_m))]
    return (rebuilt(ws, new_w.values()), *(rebuilt(ws, m.values()) for m in out_m))


# ---- the functional updates (2021 Ivy API) ----

def gradient_descent_update(ws: Tree, dcdws: Tree, lr: LearningRate, *,
                            step: int = 1) -> Tree:
    """w <- w - lr * dc/dw for every leaf (the drone planner's update). `step` only
    matters to a learning-rate schedule."""
    return _functional("gradient_descent_update", _sgd_rule(0.0, False, 0.0), ws, dcdws, lr,
                       step)[0]


def adam_update(ws: Tree, dcdws: Tree, lr: LearningRate, mw_tm1: Tree | None,
                vw_tm1: Tree | None, step: int, beta1: float = 0.9, beta2: float = 0.999,
                epsilon: float = 1e-7) -> tuple[Tree, Tree, Tree]:
    """One Adam update (Kingma & Ba 2015; formula in `_adam_direction`):
    `(new_ws, mw, vw)`. `mw_tm1`/`vw_tm1` are the previous first and second moments
    (None, or None leaves, for zeros) and `step` the 1-based index t of this update,
    which the bias correction needs."""
    rule = _adam_rule(beta1, beta2, epsilon, 0.0)
    return _functional("adam_update", rule, ws, dcdws, lr, step, (mw_tm1, vw_tm1))


def lamb_update(ws: Tree, dcdws: Tree, lr: LearningRate, mw_tm1: Tree | None,
                vw_tm1: Tree | None, step: int, beta1: float = 0.9, beta2: float = 0.999,
                epsilon: float = 1e-7, decay_lambda: float = 0.0) -> tuple[Tree, Tree, Tree]:
    """One LAMB update (You et al. 2020; formula in `_lamb_step`): `(new_ws, mw, vw)`,
    with Adam's moments and step as in `adam_update` and `decay_lambda` the weight decay
    added to the Adam direction before the trust ratio."""
    rule = _lamb_rule(beta1, beta2, epsilon, decay_lambda)
    return _functional("lamb_update", rule, ws, dcdws, lr, step, (mw_tm1, vw_tm1))


def lars_update(ws: Tree, dcdws: Tree, lr: LearningRate, decay_lambda: float = 0.0, *,
                trust_coefficient: float = 1e-3, epsilon: float = 0.0,
                step: int = 1) -> Tree:
    """One LARS update with no momentum (You et al. 2017; formula in `_lars_step`):
    w <- w - lr * c * ||w|| / (||u|| + eps) * u, u = dc/dw + decay_lambda * w. The `LARS`
    class adds the momentum. `step` only matters to a learning-rate schedule."""
    rule = _lars_rule(0.0, False, decay_lambda, trust_coefficient, epsilon)
    return _functional("lars_update", rule, ws, dcdws, lr, step)[0]


# ---- the optimizers ----

def _checked(owner: str, **settings: Any) -> None:
    """Reject a setting out of range early, naming it, rather than train on NaNs: the
    betas lie in [0, 1), every other number in [0, inf); a schedule is not checked."""
    for name, value in settings.items():
        high = 1.0 if name in ("beta1", "beta2") else float("inf")
        if not callable(value) and not 0.0 <= value < high:
            raise ValueError(f"{owner}: {name} must be in [0.0, {high}), got {value!r}")


class Optimizer:
    """A stateful optimizer: `step(v, grads)` returns the new variables and keeps the
    moments of each key chain, with the number of updates that leaf has had (its
    bias-correction index, as torch.optim counts per parameter). A schedule `lr` is
    called with `step_count`, the number of steps taken before."""

    def __init__(self, lr: LearningRate, rule: _Rule):
        self._lr = lr
        self._rule = rule
        self._leaves: dict[str, LeafState] = {}
        self.step_count = 0

    def step(self, v: Tree, grads: Tree) -> Tree:
        """The variables after one update; `grads` has `v`'s structure (None leaves are
        not updated)."""
        caller = f"{type(self).__name__}.step"
        flat_w = leaves_of(v)
        flat_g = _matched(caller, "grads", flat_w, grads)
        new_w, states = _apply_rule(self._rule, flat_w, flat_g,
                                    _lr_at(self._lr, self.step_count + 1), self._leaves)
        self._leaves.update(states)
        self.step_count += 1
        return rebuilt(v, new_w.values())

    @property
    def state(self) -> Container:
        """`step_count`, each key chain's update count under `counts`, and each moment
        (e.g. `state.mw['linear0/w']`): what `set_state` restores."""
        out = Container(step_count=self.step_count,
                        counts=Container.unflatten({kc: s[0] for kc, s in self._leaves.items()}))
        for i, name in enumerate(self._rule.moments):
            out[name] = Container.unflatten({kc: fused.plain(s[1][i])
                                             for kc, s in self._leaves.items()})
        return out

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Resume from a `state` (a checkpoint), replacing the current one."""
        state = Container(state)
        counts = leaves_of(state["counts"])
        moments = [_matched(f"{type(self).__name__}.set_state", name, counts, state[name])
                   for name in self._rule.moments]
        self.step_count = int(state["step_count"])
        self._leaves = {kc: (int(n), tuple(m[kc] for m in moments))
                        for kc, n in counts.items()}


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov's look-ahead and L2
    weight decay, as torch.optim.SGD (dampening 0) and optax.sgd (formula in `_sgd_step`)."""

    def __init__(self, lr: LearningRate = 1e-4, momentum: float = 0.0, nesterov: bool = False,
                 weight_decay: float = 0.0):
        _checked("SGD", lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and not momentum:
            raise ValueError("SGD: Nesterov momentum needs a momentum > 0")
        super().__init__(lr, _sgd_rule(momentum, nesterov, weight_decay))


class Adam(Optimizer):
    """Adam (Kingma & Ba 2015). epsilon defaults to the 2021 Ivy API's 1e-7; pass 1e-8 to
    match torch.optim.Adam and optax.adam exactly."""

    def __init__(self, lr: LearningRate = 1e-4, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7):
        _checked("Adam", lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon)
        super().__init__(lr, _adam_rule(beta1, beta2, epsilon, 0.0))


class AdamW(Optimizer):
    """Adam with decoupled weight decay (Loshchilov & Hutter 2019), applied as
    torch.optim.AdamW does: w *= 1 - lr * wd before the Adam step. weight_decay defaults
    to torch's 0.01 (optax.adamw's is 1e-4), epsilon to Ivy's 1e-7 (both use 1e-8)."""

    def __init__(self, lr: LearningRate = 1e-4, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7, weight_decay: float = 0.01):
        _checked("AdamW", lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon,
                 weight_decay=weight_decay)
        super().__init__(lr, _adam_rule(beta1, beta2, epsilon, weight_decay))


class LAMB(Optimizer):
    """LAMB (You et al. 2020), as optax.lamb (formula in `_lamb_step`); epsilon defaults
    to Ivy's 1e-7 (optax's is 1e-6)."""

    def __init__(self, lr: LearningRate = 1e-4, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7, weight_decay: float = 0.0):
        _checked("LAMB", lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon,
                 weight_decay=weight_decay)
        super().__init__(lr, _lamb_rule(beta1, beta2, epsilon, weight_decay))


class LARS(Optimizer):
    """LARS (You et al. 2017) with momentum, as optax.lars (formula in `_lars_step`);
    the defaults are optax's."""

    def __init__(self, lr: LearningRate = 1e-4, momentum: float = 0.9, nesterov: bool = False,
                 weight_decay: float = 0.0, trust_coefficient: float = 1e-3,
                 epsilon: float = 0.0):
        _checked("LARS", lr=lr, momentum=momentum, weight_decay=weight_decay,
                 trust_coefficient=trust_coefficient, epsilon=epsilon)
        if nesterov and not momentum:
            raise ValueError("LARS: Nesterov momentum needs a momentum > 0")
        super().__init__(lr, _lars_rule(momentum, nesterov, weight_decay, trust_coefficient,
                                        epsilon))
