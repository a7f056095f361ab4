"""The `ivy` optimizers and functional updates, step by step against torch.optim and optax.

Every comparison starts from the same two float32 leaves (a matrix and a zero bias, so the
trust ratios meet a zero norm) and feeds the same five gradients (one of them zero for the
bias), and checks the weights after each step to float32 precision. The ivy side runs on
torch, JAX and TensorFlow as the backend (and NumPy for the functional updates); the
references run once each. torch has no LAMB or LARS, so those are checked against optax.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import jax.numpy as jnp
import numpy as np
import optax
import pytest
import torch

import ivy
from ivy.container import Container
from ivy.gradients import execute_with_gradients, is_variable, variable
from ivy.module import Module
from ivy.optimizers import (
    LAMB,
    LARS,
    SGD,
    Adam,
    AdamW,
    Optimizer,
    adam_update,
    gradient_descent_update,
    lamb_update,
    lars_update,
)

BACKENDS = ["torch", "jax", "tensorflow"]
RTOL, ATOL = 1e-6, 1e-6
"""Elementwise |got - want| <= ATOL + RTOL * |want|: float32 precision on weights of order
one. ATOL is not smaller because optax computes Adam's bias correction 1 - b2^t in
float32, where the cancellation costs ~1e-5 of it at t = 3 (~1e-7 of a 0.01 step), while
torch.optim and ivy use Python floats: the bias leaf, of order 0.01, would fail a purely
relative 1e-6 against optax and pass it against torch."""
STEPS = 5
Weights = dict[str, np.ndarray]


def _initial() -> Weights:
    rng = np.random.default_rng(0)
    return {"layer/w": rng.normal(size=(3, 4)).astype(np.float32),
            "b": np.zeros(4, np.float32)}


def _gradients() -> list[Weights]:
    rng = np.random.default_rng(1)
    steps = [{"layer/w": rng.normal(size=(3, 4)).astype(np.float32),
              "b": rng.normal(size=4).astype(np.float32)} for _ in range(STEPS)]
    steps[2]["b"] = np.zeros(4, np.float32)
    return steps


W0, GRADS = _initial(), _gradients()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    ivy.set_backend(request.param)
    yield request.param
    ivy.unset_backend()


def _native(flat: dict[str, Any], as_variables: bool = False) -> Container:
    return Container.unflatten({kc: None if x is None else
                                variable(ivy.asarray(x)) if as_variables else ivy.asarray(x)
                                for kc, x in flat.items()})


def _numpy(tree: Any) -> dict[str, np.ndarray]:
    flat = tree.flatten() if isinstance(tree, Container) else {"": tree}
    return {kc: np.asarray(ivy.to_numpy(x)) for kc, x in flat.items()}


def _assert_close(got: dict[str, np.ndarray], want: dict[str, np.ndarray], what: str) -> None:
    assert got.keys() == want.keys(), what
    for kc in want:
        np.testing.assert_allclose(got[kc], want[kc], rtol=RTOL, atol=ATOL,
                                   err_msg=f"{what}, leaf {kc}")


# ---- the references ----

def _torch_run(make: Callable[[list[torch.nn.Parameter]], torch.optim.Optimizer],
               grads: list[dict[str, Any]] = GRADS) -> tuple[list[Weights], Any]:
    """Weights after each step, and the optimizer (for its state)."""
    params = {kc: torch.nn.Parameter(torch.tensor(w)) for kc, w in W0.items()}
    opt = make(list(params.values()))
    out = []
    for g in grads:
        for kc, p in params.items():
            p.grad = None if g[kc] is None else torch.tensor(g[kc])
        opt.step()
        out.append({kc: p.detach().numpy().copy() for kc, p in params.items()})
    return out, (opt, params)


def _optax_run(tx: optax.GradientTransformation) -> list[Weights]:
    params = {kc: jnp.asarray(w) for kc, w in W0.items()}
    state = tx.init(params)
    out = []
    for g in GRADS:
        updates, state = tx.update({kc: jnp.asarray(x) for kc, x in g.items()}, state, params)
        params = optax.apply_updates(params, updates)
        out.append({kc: np.asarray(p) for kc, p in params.items()})
    return out


def _halving(n: Any) -> Any:
    return 0.05 * 0.5 ** n


CASES: dict[str, tuple[Callable[[], Optimizer], Callable[[], list[Weights]]]] = {
    "sgd/torch": (lambda: SGD(0.1),
                  lambda: _torch_run(lambda p: torch.optim.SGD(p, lr=0.1))[0]),
    "sgd-momentum-decay/torch": (
        lambda: SGD(0.1, momentum=0.9, weight_decay=0.05),
        lambda: _torch_run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9,
                                                     weight_decay=0.05))[0]),
    "sgd-nesterov-decay/torch": (
        lambda: SGD(0.1, momentum=0.8, nesterov=True, weight_decay=0.05),
        lambda: _torch_run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8, nesterov=True,
                                                     weight_decay=0.05))[0]),
    "adam/torch": (lambda: Adam(0.01, epsilon=1e-8),
                   lambda: _torch_run(lambda p: torch.optim.Adam(p, lr=0.01))[0]),
    "adam-betas/torch": (
        lambda: Adam(0.02, beta1=0.8, beta2=0.99, epsilon=1e-3),
        lambda: _torch_run(lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.99),
                                                      eps=1e-3))[0]),
    "adamw/torch": (lambda: AdamW(0.01, epsilon=1e-8, weight_decay=0.5),
                    lambda: _torch_run(lambda p: torch.optim.AdamW(p, lr=0.01,
                                                                   weight_decay=0.5))[0]),
    "sgd-nesterov/optax": (lambda: SGD(0.1, momentum=0.9, nesterov=True),
                           lambda: _optax_run(optax.sgd(0.1, momentum=0.9, nesterov=True))),
    "adam/optax": (lambda: Adam(0.01, epsilon=1e-8), lambda: _optax_run(optax.adam(0.01))),
    "adam-schedule/optax": (lambda: Adam(_halving, epsilon=1e-8),
                            lambda: _optax_run(optax.adam(_halving))),
    "adamw/optax": (lambda: AdamW(0.01, epsilon=1e-8, weight_decay=0.5),
                    lambda: _optax_run(optax.adamw(0.01, weight_decay=0.5))),
    "lamb/optax": (lambda: LAMB(0.01, epsilon=1e-6, weight_decay=0.1),
                   lambda: _optax_run(optax.lamb(0.01, weight_decay=0.1))),
    "lars-decay/optax": (
        lambda: LARS(0.5, momentum=0.9, weight_decay=0.05, trust_coefficient=0.02),
        lambda: _optax_run(optax.lars(0.5, weight_decay=0.05, trust_coefficient=0.02,
                                      momentum=0.9))),
    # no decay: the bias's zero gradient makes the update norm zero at step 3
    "lars-nesterov-eps/optax": (
        lambda: LARS(0.5, momentum=0.7, nesterov=True, trust_coefficient=0.1, epsilon=0.3),
        lambda: _optax_run(optax.lars(0.5, trust_coefficient=0.1, eps=0.3, momentum=0.7,
                                      nesterov=True))),
}


@functools.cache
def _reference(case: str) -> list[Weights]:
    return CASES[case][1]()


@pytest.mark.parametrize("case", list(CASES))
def test_optimizer_matches_reference_each_step(case: str, backend: str) -> None:
    opt = CASES[case][0]()
    v = _native(W0, as_variables=True)
    for i, g in enumerate(GRADS):
        v = opt.step(v, _native(g))
        _assert_close(_numpy(v), _reference(case)[i], f"{case} on {backend}, step {i + 1}")
    assert opt.step_count == STEPS


def test_moments_are_torchs_and_resume_from_state(backend: str) -> None:
    """`state` holds torch's exp_avg/exp_avg_sq per key chain, and an optimizer given
    that state by `set_state` continues exactly as the original one."""
    opt = Adam(0.01, epsilon=1e-8)
    v = _native(W0, as_variables=True)
    for g in GRADS[:3]:
        v = opt.step(v, _native(g))
    _, (torch_opt, params) = _torch_run(lambda p: torch.optim.Adam(p, lr=0.01), GRADS[:3])
    state = opt.state
    assert state.step_count == 3 and _numpy(state.counts) == {"layer/w": 3, "b": 3}
    for name, torch_name in (("mw", "exp_avg"), ("vw", "exp_avg_sq")):
        want = {kc: torch_opt.state[p][torch_name].numpy() for kc, p in params.items()}
        _assert_close(_numpy(state[name]), want, name)

    resumed = Adam(0.01, epsilon=1e-8)
    resumed.set_state(state)
    w_copy = _native(_numpy(v), as_variables=True)
    for g in GRADS[3:]:
        v, w_copy = opt.step(v, _native(g)), resumed.step(w_copy, _native(g))
    _assert_close(_numpy(w_copy), _numpy(v), "resumed")
    _assert_close(_numpy(v), _reference("adam/torch")[-1], "original")


def test_bias_correction_counts_each_leaf(backend: str) -> None:
    """A leaf with no gradient for a while starts its bias correction at its own first
    update, as torch.optim counts steps per parameter."""
    grads = [{**g, "layer/w": None} if i < 2 else g for i, g in enumerate(GRADS)]
    want, _ = _torch_run(lambda p: torch.optim.Adam(p, lr=0.01), grads)
    opt = Adam(0.01, epsilon=1e-8)
    v = _native(W0, as_variables=True)
    for i, g in enumerate(grads):
        v = opt.step(v, _native(g))
        _assert_close(_numpy(v), want[i], f"step {i + 1}")
    assert _numpy(opt.state.counts) == {"layer/w": 3, "b": 5}


def test_steps_keep_variables(backend: str) -> None:
    """The new leaves are variables cut from the graph; a tf.Variable is the same object,
    assigned in place. torch's momentum (made from the weights, with a decay) records no
    autograd history."""
    v = _native(W0, as_variables=True)
    opt = SGD(0.1, momentum=0.9, weight_decay=0.1)
    new = opt.step(v, _native(GRADS[0]))
    if backend == "torch":
        for kc, buffer in opt.state.momentum_buffer.flatten().items():
            assert not buffer.requires_grad, kc
    for kc, leaf in new.flatten().items():
        assert is_variable(leaf), kc
        if backend == "torch":
            assert leaf.is_leaf and leaf.grad_fn is None
        if backend == "tensorflow":
            assert leaf is v[kc]


def test_step_inside_a_recording_context_is_cut() -> None:
    """Where the framework records (an outer tf.GradientTape, a JAX transformation), the
    step still cuts its inputs, so nothing flows back through the update; outside one
    it dispatches no cut at all (`unrecorded`), which the other tests run."""
    import jax
    import tensorflow as tf

    def updated_sum(w: Any) -> Any:
        new = Adam(0.1).step(Container(w=w), Container(w=w * 2.0))
        return ivy.sum(new.w)
    w = np.array([1.0, -2.0], np.float32)
    with ivy.with_backend("jax"):
        np.testing.assert_array_equal(np.asarray(jax.grad(updated_sum)(jnp.asarray(w))), 0)
    with ivy.with_backend("tensorflow"):
        x = tf.constant(w)
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = updated_sum(x)
        assert tape.gradient(out, x) is None


def test_integer_leaves_without_gradient_are_unchanged(backend: str) -> None:
    v = Container(w=variable(ivy.asarray(W0["b"] + 1)),
                  n=ivy.asarray(np.array([1, 2], np.int32)))
    _, grads = execute_with_gradients(lambda v: ivy.sum(v.w * v.w), v)
    assert grads.n is None
    new = Adam(0.1).step(v, grads)
    assert new.n is v.n
    np.testing.assert_allclose(ivy.to_numpy(new.w), np.full(4, 0.9), rtol=1e-6)
    new_ws, mw, vw = adam_update(v, grads, 0.1, None, None, 1)
    assert new_ws.n is v.n and mw.n is None and vw.n is None
    np.testing.assert_allclose(ivy.to_numpy(mw.w), np.full(4, 0.2), rtol=1e-6)


# ---- the functional updates ----

@pytest.mark.parametrize("name", ["torch", "jax", "tensorflow", "numpy"])
def test_functional_updates_match_optax(name: str) -> None:
    """adam_update, lamb_update (with Ivy's default epsilon 1e-7) and lars_update (no
    momentum, no decay, no epsilon: the bias's update norm is zero at step 3, where the
    trust ratio must be 1 rather than inf) against optax, on every backend including
    NumPy, which has no autodiff."""
    ivy.set_backend(name)
    try:
        adam = _optax_run(optax.adam(0.01, eps=1e-7))
        lamb = _optax_run(optax.lamb(0.01, eps=1e-7, weight_decay=0.1))
        lars = _optax_run(optax.lars(0.5, momentum=0.0))
        ws_adam = ws_lamb = ws_lars = _native(W0)
        m_adam = v_adam = m_lamb = v_lamb = None
        for i, g in enumerate(GRADS):
            g = _native(g)
            ws_adam, m_adam, v_adam = adam_update(ws_adam, g, 0.01, m_adam, v_adam, i + 1)
            ws_lamb, m_lamb, v_lamb = lamb_update(ws_lamb, g, 0.01, m_lamb, v_lamb, i + 1,
                                                  decay_lambda=0.1)
            ws_lars = lars_update(ws_lars, g, 0.5)
            _assert_close(_numpy(ws_adam), adam[i], f"adam_update step {i + 1}")
            _assert_close(_numpy(ws_lamb), lamb[i], f"lamb_update step {i + 1}")
            _assert_close(_numpy(ws_lars), lars[i], f"lars_update step {i + 1}")
    finally:
        ivy.unset_backend()


def test_gradient_descent_update_is_v_minus_lr_g(backend: str) -> None:
    v, g = _native(W0, as_variables=True), _native(GRADS[0])
    want = {kc: W0[kc] - 0.3 * GRADS[0][kc] for kc in W0}
    _assert_close(_numpy(gradient_descent_update(v, g, 0.3)), want, "container")
    single = gradient_descent_update(ivy.asarray(W0["b"]), ivy.asarray(GRADS[0]["b"]),
                                     _halving, step=3)
    np.testing.assert_allclose(ivy.to_numpy(single), -0.0125 * GRADS[0]["b"], rtol=1e-6)


def test_gradient_descent_update_without_backend_on_numpy() -> None:
    ivy.unset_backend()
    ws = Container.unflatten(W0)
    new = gradient_descent_update(ws, Container.unflatten(GRADS[1]), 0.5)
    assert isinstance(new, Container) and isinstance(new.layer.w, np.ndarray)
    _assert_close(_numpy(new), {kc: W0[kc] - 0.5 * GRADS[1][kc] for kc in W0}, "numpy")


# ---- misuse ----

def test_mismatched_structures_raise() -> None:
    ws = Container.unflatten(W0)
    with pytest.raises(ValueError, match=r"SGD.step: grads does not have the structure of "
                                         r"the weights; key chains only in one of them: 'b'"):
        SGD(0.1).step(ws, Container(layer=Container(w=GRADS[0]["layer/w"])))
    with pytest.raises(ValueError, match=r"adam_update: vw does not have the structure.*'x'"):
        adam_update(ws, Container.unflatten(GRADS[0]), 0.1, None,
                    Container.unflatten({**GRADS[0], "x": W0["b"]}), 1)
    with pytest.raises(ValueError, match=r"gradient_descent_update: dcdws .*'', 'b', "
                                         r"'layer/w' \('' is a single array\)"):
        gradient_descent_update(W0["b"], Container.unflatten(GRADS[0]), 0.1)


def test_bad_settings_raise() -> None:
    with pytest.raises(ValueError, match=r"Adam: beta1 must be in \[0.0, 1.0\), got 1.0"):
        Adam(beta1=1.0)
    with pytest.raises(ValueError, match=r"AdamW: lr must be in \[0.0, inf\), got -0.1"):
        AdamW(-0.1)
    with pytest.raises(ValueError, match=r"LARS: trust_coefficient must be .*got -1"):
        LARS(trust_coefficient=-1)
    with pytest.raises(ValueError, match="SGD: Nesterov momentum needs a momentum > 0"):
        SGD(0.1, nesterov=True)
    with pytest.raises(ValueError, match=r"adam_update: step is the 1-based index .*got 0"):
        adam_update(W0["b"], GRADS[0]["b"], 0.1, None, None, 0)


# ---- the 2021 paper's training loop ----

class TinyFcModel(Module):
    """One weight matrix through ivy.matmul, in the backend's default float dtype."""

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        return {"w": ivy.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]])}

    def _forward(self, x: Any) -> Any:
        return ivy.tanh(ivy.matmul(x, self.v.w))


def _paper_loop(name: str) -> tuple[list[float], np.ndarray]:
    """The losses of 100 steps, and the weights after the first."""
    ivy.set_framework(name)
    try:
        model = TinyFcModel()
        optimizer = Adam(1e-4)
        x_in = ivy.array([1., 2., 3.])

        def loss_fn(v: Container) -> Any:
            return ivy.reduce_mean(model(x_in, v=v))

        losses, first = [], None
        for _ in range(100):
            loss, grads = execute_with_gradients(loss_fn, model.v)
            model.v = optimizer.step(model.v, grads)
            losses.append(float(ivy.to_numpy(loss)))
            first = ivy.to_numpy(model.v.w) if first is None else first
        return losses, np.asarray(first)
    finally:
        ivy.unset_backend()


def test_paper_training_loop_on_three_backends() -> None:
    runs = {name: _paper_loop(name) for name in BACKENDS}
    for name, (losses, _) in runs.items():
        assert all(np.diff(losses) < 0), name
        assert losses[-1] < losses[0] - 5e-3, name
    base_losses, base_w = runs["torch"]
    for name in ("jax", "tensorflow"):
        losses, w = runs[name]
        assert abs(losses[0] - base_losses[0]) < 1e-5, name
        np.testing.assert_allclose(w, base_w, atol=1e-5, err_msg=name)
