"""One training step of a small MLP with Adam, written in ivy and natively, for
`applied_overhead.py`.

The model is 3 -> 64 -> 64 -> 1 with ReLUs on a batch of 160 (hidden activations of
~1e4 elements), the loss the mean squared error, the update one Adam step with the
`ivy.optimizers.Adam` defaults of the 2021 API (epsilon 1e-7). The ivy step is what
the paper's users write: an `ivy.Module`, `ivy.execute_with_gradients`, `Adam.step`.
Each native step does the same math with its framework's own autodiff and no
optimizer library (torch.optim and optax would compute Adam differently to rounding
and hide their own Python overhead): torch autograd, `jax.value_and_grad`,
`tf.GradientTape`, then the Adam formulas in that framework's ops. Every step object
is called with no arguments, does one step, and returns what to wait for (loss and
new weights), so that JAX's asynchronous dispatch is timed to the end; its
`gradients()` is the first half alone (loss and gradients, no update), timed apart to
tell the autodiff wrapper's cost from the optimizer's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ivy
from ivy.optimizers import Adam

Array = Any
LAYERS = (3, 64, 64, 1)
BATCH = 160
LR, BETA1, BETA2, EPSILON = 1e-3, 0.9, 0.999, 1e-7


def initial_weights() -> dict[str, np.ndarray]:
    """He-initialised float32 weights `w0..w2` and zero biases `b0..b2`."""
    rng = np.random.default_rng(0)
    out = {}
    for i, (n_in, n_out) in enumerate(zip(LAYERS[:-1], LAYERS[1:])):
        out[f"w{i}"] = (rng.normal(size=(n_in, n_out)) * np.sqrt(2 / n_in)).astype(np.float32)
        out[f"b{i}"] = np.zeros(n_out, np.float32)
    return out


def batch() -> tuple[np.ndarray, np.ndarray]:
    """Inputs [BATCH, 3] and a smooth target [BATCH, 1] to regress."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (BATCH, LAYERS[0])).astype(np.float32)
    return x, np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)


def _adam(w: Array, g: Array, m: Array, v: Array, t: int, sqrt: Any) -> tuple[Array, ...]:
    """The update of `ivy.optimizers._adam_step`, in whatever ops `w` brings along."""
    m = BETA1 * m + (1 - BETA1) * g
    v = BETA2 * v + (1 - BETA2) * (g * g)
    m_hat = m / (1 - BETA1 ** t)
    v_hat = v / (1 - BETA2 ** t)
    return w - LR * (m_hat / (sqrt(v_hat) + EPSILON)), m, v


# ---- ivy ----

class IvyMLP(ivy.Module):
    """The MLP as an `ivy.Module`: its variables are the given arrays (made variables
    of their framework by `ivy.Module`)."""

    def __init__(self, weights: dict[str, Array]) -> None:
        self._initial = weights
        ivy.Module.__init__(self)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        return dict(self._initial)

    def _forward(self, x: Array) -> Array:
        v = self.v
        h = ivy.relu(ivy.matmul(x, v.w0) + v.b0)
        h = ivy.relu(ivy.matmul(h, v.w1) + v.b1)
        return ivy.matmul(h, v.w2) + v.b2


class IvyStep:
    """`execute_with_gradients` of the loss, then `model.v = Adam.step(model.v, grads)`."""

    def __init__(self, weights: dict[str, Array], x: Array, y: Array) -> None:
        self.model = IvyMLP(weights)
        self.optimizer = Adam(LR, BETA1, BETA2, EPSILON)
        self.x, self.y = x, y

    def _loss(self, v: Any) -> Array:
        return ivy.mean((self.model(self.x, v=v) - self.y) ** 2)

    def gradients(self) -> tuple[Array, Any]:
        return ivy.execute_with_gradients(self._loss, self.model.v)

    def __call__(self) -> tuple[Array, Any]:
        loss, grads = self.gradients()
        self.model.v = self.optimizer.step(self.model.v, grads)
        return loss, self.model.v

    def weights(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(_host(w)) for k, w in self.model.v.flatten().items()}


def _host(x: Any) -> Any:
    """A framework array as something `np.asarray` reads (torch's leaves need detaching)."""
    return x.detach() if hasattr(x, "detach") else x


# ---- native ----

class TorchStep:
    """torch autograd on `requires_grad` weights, the update under `no_grad`."""

    def __init__(self, weights: dict[str, np.ndarray], x: Array, y: Array) -> None:
        import torch
        self._torch = torch
        self.params = {k: torch.as_tensor(w).clone().requires_grad_() for k, w in weights.items()}
        self.m = {k: torch.zeros_like(p) for k, p in self.params.items()}
        self.v = {k: torch.zeros_like(p) for k, p in self.params.items()}
        self.t = 0
        self.x, self.y = x, y

    def _loss(self, p: dict[str, Array]) -> Array:
        torch = self._torch
        h = torch.relu(torch.matmul(self.x, p["w0"]) + p["b0"])
        h = torch.relu(torch.matmul(h, p["w1"]) + p["b1"])
        return torch.mean((torch.matmul(h, p["w2"]) + p["b2"] - self.y) ** 2)

    def gradients(self) -> tuple[Array, Any]:
        loss = self._loss(self.params)
        return loss, self._torch.autograd.grad(loss, list(self.params.values()))

    def __call__(self) -> tuple[Array, Any]:
        torch = self._torch
        loss, grads = self.gradients()
        self.t += 1
        with torch.no_grad():
            for (k, w), g in zip(list(self.params.items()), grads):
                new, self.m[k], self.v[k] = _adam(w, g, self.m[k], self.v[k], self.t,
                                                  torch.sqrt)
                self.params[k] = new.requires_grad_()
        return loss.detach(), self.params

    def weights(self) -> dict[str, np.ndarray]:
        return {k: w.detach().numpy() for k, w in self.params.items()}


class JaxStep:
    """`jax.value_and_grad` of the loss over a dict of weights, the update in jnp."""

    def __init__(self, weights: dict[str, np.ndarray], x: Array, y: Array) -> None:
        import jax
        import jax.numpy as jnp
        self._jnp, self._nn = jnp, jax.nn
        self.params = {k: jnp.asarray(w) for k, w in weights.items()}
        self.m = {k: jnp.zeros_like(p) for k, p in self.params.items()}
        self.v = {k: jnp.zeros_like(p) for k, p in self.params.items()}
        self.t = 0
        self.x, self.y = x, y
        self._value_and_grad = jax.value_and_grad(self._loss)

    def _loss(self, p: dict[str, Array]) -> Array:
        jnp, relu = self._jnp, self._nn.relu
        h = relu(jnp.matmul(self.x, p["w0"]) + p["b0"])
        h = relu(jnp.matmul(h, p["w1"]) + p["b1"])
        return jnp.mean((jnp.matmul(h, p["w2"]) + p["b2"] - self.y) ** 2)

    def gradients(self) -> tuple[Array, Any]:
        return self._value_and_grad(self.params)

    def __call__(self) -> tuple[Array, Any]:
        loss, grads = self.gradients()
        self.t += 1
        for k, w in list(self.params.items()):
            self.params[k], self.m[k], self.v[k] = _adam(w, grads[k], self.m[k], self.v[k],
                                                         self.t, self._jnp.sqrt)
        return loss, self.params

    def weights(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(w) for k, w in self.params.items()}


class TfStep:
    """`tf.GradientTape` over `tf.Variable` weights, assigned in place."""

    def __init__(self, weights: dict[str, np.ndarray], x: Array, y: Array) -> None:
        import tensorflow as tf
        self._tf = tf
        self.params = {k: tf.Variable(w) for k, w in weights.items()}
        self.m = {k: tf.zeros_like(p) for k, p in self.params.items()}
        self.v = {k: tf.zeros_like(p) for k, p in self.params.items()}
        self.t = 0
        self.x, self.y = x, y

    def _loss(self, p: dict[str, Array]) -> Array:
        tf = self._tf
        h = tf.nn.relu(tf.linalg.matmul(self.x, p["w0"]) + p["b0"])
        h = tf.nn.relu(tf.linalg.matmul(h, p["w1"]) + p["b1"])
        return tf.reduce_mean((tf.linalg.matmul(h, p["w2"]) + p["b2"] - self.y) ** 2)

    def gradients(self) -> tuple[Array, Any]:
        with self._tf.GradientTape() as tape:
            loss = self._loss(self.params)
        return loss, tape.gradient(loss, list(self.params.values()))

    def __call__(self) -> tuple[Array, Any]:
        loss, grads = self.gradients()
        self.t += 1
        for (k, w), g in zip(self.params.items(), grads):
            new, self.m[k], self.v[k] = _adam(w, g, self.m[k], self.v[k], self.t,
                                              self._tf.sqrt)
            w.assign(new)
        return loss, self.params

    def weights(self) -> dict[str, np.ndarray]:
        return {k: w.numpy() for k, w in self.params.items()}


NATIVE_STEPS = {"torch": TorchStep, "jax": JaxStep, "tensorflow": TfStep}
"""The backends with autodiff; NumPy has none, so it has no training step."""
