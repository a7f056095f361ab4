"""The 2021 Ivy paper's training code (section 5 and appendix A.2) as written: only the
imports and the data are adapted (the three backends start from the same weights, so
that they can be compared)."""

from __future__ import annotations

import numpy as np
import pytest

import ivy


class IvyFcModel(ivy.Module):

    def __init__(self):
        self.linear0 = ivy.Linear(3, 64)
        self.linear2 = ivy.Linear(64, 1)
        ivy.Module.__init__(self)

    def _forward(self, x):
        x = ivy.relu(self.linear0(x))
        return ivy.sigmoid(self.linear2(x))


WEIGHTS = IvyFcModel().v.to_numpy()  # one draw, given to every backend's model


def _train(framework: str, steps: int = 100) -> list[float]:
    ivy.set_framework(framework)
    try:
        model = IvyFcModel()
        model.v = WEIGHTS.map(lambda w, kc: ivy.variable(ivy.array(w)))
        optimizer = ivy.Adam(1e-4)
        x_in = ivy.array([1., 2., 3.])

        def loss_fn(v):
            return ivy.reduce_mean(model(x_in, v=v))

        losses = []
        for step in range(steps):  # noqa: B007 (as the paper writes it)
            loss, grads = ivy.execute_with_gradients(loss_fn, model.v)
            model.v = optimizer.step(model.v, grads)
            losses.append(float(ivy.to_numpy(loss)))
        return losses
    finally:
        ivy.unset_framework()


@pytest.fixture(scope="module")
def losses():
    return {fw: _train(fw) for fw in ("torch", "jax", "tensorflow")}


@pytest.mark.parametrize("framework", ["torch", "jax", "tensorflow"])
def test_ivy_fc_model_trains_with_ivy_adam(losses, framework):
    curve = losses[framework]
    assert all(np.isfinite(curve))
    assert curve[-1] < curve[0] - 1e-3
    assert all(b <= a + 1e-7 for a, b in zip(curve, curve[1:]))  # Adam at 1e-4: monotone


def test_frameworks_agree_on_the_first_steps(losses):
    for framework in ("jax", "tensorflow"):
        np.testing.assert_allclose(losses[framework][:2], losses["torch"][:2], rtol=0,
                                   atol=1e-5)


def test_torch_fc_model_trains_with_torch_adam():
    import torch

    class TorchFcModel(torch.nn.Module, IvyFcModel):

        def __init__(self):
            torch.nn.Module.__init__(self)
            IvyFcModel.__init__(self)
            self._assign_variables()

        def _assign_variables(self):
            self.v.map(
                lambda x, kc: self.register_parameter(name=kc, param=torch.nn.Parameter(x)))
            self.v = self.v.map(lambda x, kc: self._parameters[kc])

        def forward(self, x):
            return self._forward(x)

    ivy.set_framework('torch')
    try:
        model = TorchFcModel()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        x_in = torch.tensor([1., 2., 3.])

        def loss_fn():
            return torch.mean(model(x_in))

        curve = []
        for step in range(100):  # noqa: B007 (as the paper writes it)
            optimizer.zero_grad()  # (the appendix leaves this line out)
            loss = loss_fn()
            loss.backward()
            optimizer.step()
            curve.append(loss.item())
        model.eval()  # torch's own eval() reaches the ivy layers too
        assert not model.training and not model.linear0.training
    finally:
        ivy.unset_framework()
    assert len(list(model.parameters())) == 4
    assert model.linear0.v.w is model._parameters["linear0/w"]  # one source of truth
    assert curve[-1] < curve[0] - 1e-3
