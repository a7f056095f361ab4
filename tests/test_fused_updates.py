"""Small leaves updated together (`ivy/fused_updates.py`): the same numbers, bit for
bit, as each leaf updated on its own, on NumPy and torch (JAX and TF update leaf by
leaf: the comparison then checks that nothing was joined), for every elementwise rule;
moments kept joined between steps and cut out per leaf where they are read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ivy
from ivy import fused_updates
from ivy.container import Container
from ivy.gradients import variable
from ivy.optimizers import SGD, Adam, AdamW, adam_update

BACKENDS = ["numpy", "torch", "jax", "tensorflow"]
SHAPES = {"a/w": (64, 64), "a/b": (64,), "scale": (), "big": (150, 120), "c/w": (3, 5)}
"""Small leaves of one dtype (joined), a 0-d one, one too large to join (18,000
elements) and, added below, a float64 leaf (its own group dtype) and an int leaf."""
STEPS = 4


def _tree(seed: int, as_variables: bool = False) -> Container:
    rng = np.random.default_rng(seed)
    flat: dict[str, Any] = {k: rng.normal(size=s).astype(np.float32) for k, s in SHAPES.items()}
    flat["d/w"] = rng.normal(size=(4, 4))
    flat["d/b"] = rng.normal(size=(4,))
    native = {k: ivy.asarray(x) for k, x in flat.items()}
    if as_variables:
        native = {k: variable(x) for k, x in native.items()}
    native["n"] = ivy.asarray(np.arange(3))
    return Container.unflatten(native)


def _grads(step: int) -> Container:
    g = _tree(100 + step)
    g["n"] = None
    if step == 1:  # a leaf without gradient for one step leaves its group, then rejoins
        g["a"]["b"] = None
    return g


def _numpy(tree: Container) -> dict[str, np.ndarray]:
    return {kc: np.asarray(ivy.to_numpy(x)) for kc, x in tree.flatten().items()}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    ivy.set_backend(request.param)
    yield request.param
    ivy.unset_backend()


def _run(make: Any) -> tuple[list[dict[str, np.ndarray]], Any]:
    opt = make()
    v = _tree(0, as_variables=True)
    out = []
    for step in range(STEPS):
        v = opt.step(v, _grads(step))
        out.append(_numpy(v))
    return out, opt


OPTIMIZERS = {"adam": lambda: Adam(0.01),
              "adamw": lambda: AdamW(0.01, weight_decay=0.1),
              "sgd-nesterov": lambda: SGD(0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
              "sgd": lambda: SGD(0.05)}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_joined_update_is_each_leafs_update_bit_for_bit(name: str, backend: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    groups: list[list[str]] = []
    real_groups = fused_updates.groups

    def spy(*args: Any) -> list[list[str]]:
        found = real_groups(*args)
        groups.append(sorted(kc for kcs in found for kc in kcs))
        return found

    monkeypatch.setattr(fused_updates, "groups", spy)
    joined, opt = _run(OPTIMIZERS[name])
    monkeypatch.setattr(fused_updates, "FUSED_BELOW", 0)  # every leaf on its own
    alone, opt_alone = _run(OPTIMIZERS[name])
    for step, (got, want) in enumerate(zip(joined, alone)):
        assert got.keys() == want.keys()
        for kc in want:
            np.testing.assert_array_equal(got[kc], want[kc], err_msg=f"step {step}, {kc}")
    if backend in fused_updates.JOINED_ON:
        # the float32 small leaves were joined, the float64 pair too; `big`, `n` never
        assert groups[0] == ["a/b", "a/w", "c/w", "d/b", "d/w", "scale"]
        assert "a/b" not in groups[1] and "a/w" in groups[1]
    else:  # reshapes and slices cost more than they save there
        assert groups == []
    state, state_alone = opt.state, opt_alone.state
    for moment in ({"adam": ("mw", "vw"), "adamw": ("mw", "vw"),
                    "sgd-nesterov": ("momentum_buffer",)}.get(name, ())):
        got, want = _numpy(state[moment]), _numpy(state_alone[moment])
        assert got.keys() == want.keys()
        for kc in want:
            np.testing.assert_array_equal(got[kc], want[kc], err_msg=f"{moment} {kc}")


def test_moments_stay_joined_between_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """From the second step on, a group's moments are last step's flat arrays, not
    joined again; a leaf's moment read from `state` is its own array of its shape."""
    joins: list[int] = []
    real = fused_updates._joined
    monkeypatch.setattr(fused_updates, "_joined",
                        lambda xs: joins.append(len(xs)) or real(xs))
    ivy.set_backend("numpy")
    try:
        opt, v = Adam(0.01), _tree(0)
        for step in (0, 2, 3):  # no leaf drops out
            joins.clear()
            v = opt.step(v, _grads(step))
            assert joins == [4, 4, 2, 2], joins  # weights and gradients of each group only
        mw = opt.state.mw.flatten()
        assert mw["a/w"].shape == (64, 64) and mw["scale"].shape == ()
    finally:
        ivy.unset_backend()


def test_functional_adam_update_returns_plain_moments() -> None:
    ws, gs = _tree(0), _grads(0)
    new_ws, mw, vw = adam_update(ws, gs, 0.01, None, None, step=1)
    for tree in (mw, vw):
        for kc, m in tree.flatten().items():  # the int leaf had no gradient: no moment
            assert m is None if kc == "n" else isinstance(m, np.ndarray), kc
    again = adam_update(new_ws, gs, 0.01, mw, vw, step=2)
    assert again[0].flatten()["a/w"].shape == (64, 64)
