"""How the JAX target has XLA compile a program (`lowerings/jax.py`,
`CONVOLUTION_XLA_OPTIONS`): a network with convolutions keeps its convolutions and the
work around its products out of YNNPACK on CPU (much faster on CNNs, benchmarks in
docs/benchmarks.md); other programs compile with XLA's defaults. The options are the
program's own `jax.jit`'s, never the process's flags."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import ivy_ir

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")

from lowerings.jax import CONVOLUTION_XLA_OPTIONS, RUNTIME  # noqa: E402

X = np.random.default_rng(0).standard_normal((2, 32, 16, 16)).astype(np.float32)


def _cnn():
    """Big enough that XLA's defaults hand its convolution to YNNPACK."""
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                               torch.nn.Linear(32, 4)).eval()


def _hlo(c, options):
    jitted = jax.jit(c.apply, **options)  # the parameter work and the program
    return jitted.lower(c.params, X).compile().as_text()


def _ynn_convolutions(hlo: str) -> int:
    """Convolutions inside the YNNPACK fusions of an optimized HLO module."""
    bodies = {m[1]: m[2] for m in re.finditer(r"^%([\w.-]+) \(.*?\n(.*?)^}", hlo, re.M | re.S)}
    fused = re.findall(r"calls=%([\w.-]+)[^\n]*__ynn_fusion", hlo)
    return sum("convolution(" in bodies.get(name, "") for name in fused)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the options are XLA:CPU's")
def test_a_network_with_convolutions_compiles_without_ynnpack_convolutions():
    net = _cnn()
    c = ivy_ir.compile(net, target="jax", args=(X,))
    options = RUNTIME.program_options(c.ir_module)
    assert options == {"compiler_options": CONVOLUTION_XLA_OPTIONS}  # this jaxlib knows it
    assert _ynn_convolutions(_hlo(c, {})) > 0  # XLA's default: YNNPACK's convolution
    assert _ynn_convolutions(_hlo(c, options)) == 0
    with torch.no_grad():
        want = net(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(np.asarray(c(X)), want, rtol=1e-5, atol=1e-5)
    assert "ynn" not in os.environ.get("XLA_FLAGS", "")  # nothing set for the process


def test_a_program_without_convolutions_keeps_xla_defaults():
    c = ivy_ir.compile(torch.nn.Linear(8, 4), target="jax",
                       args=(np.ones((2, 8), np.float32),))
    assert RUNTIME.program_options(c.ir_module) == {}


class _PatchEmbedding(torch.nn.Module):
    """A ViT's front: one convolution that tiles the image into 4x4 patches, then a
    transformer layer over the tokens."""

    def __init__(self, stride: int = 4, padding: int = 0) -> None:
        super().__init__()
        self.patch = torch.nn.Conv2d(32, 16, 4, stride=stride, padding=padding)
        self.layer = torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)

    def forward(self, x):
        return self.layer(self.patch(x).flatten(2).transpose(1, 2))


@pytest.mark.parametrize("stride, padding, convolves", [(4, 0, False), (2, 0, True),
                                                        (4, 1, True)])
def test_a_patch_embedding_is_no_convolution(stride, padding, convolves):
    """A convolution whose kernel tiles its input (stride = kernel, no padding) is a
    product per patch: the program keeps XLA's defaults, which fuse a transformer's
    products faster; overlapping or padded windows are a convolution."""
    torch.manual_seed(0)
    net = _PatchEmbedding(stride, padding).eval()
    c = ivy_ir.compile(net, target="jax", args=(X,))
    want = {"compiler_options": CONVOLUTION_XLA_OPTIONS} if convolves else {}
    assert RUNTIME.program_options(c.ir_module) == want
    with torch.no_grad():
        np.testing.assert_allclose(np.asarray(c(X)), net(torch.from_numpy(X)).numpy(),
                                   rtol=1e-4, atol=1e-5)


def test_the_program_runs_inside_the_callers_own_jit_grad_and_vmap():
    """There the caller's compilation holds the program, and JAX refuses options on an
    inner `jax.jit`: the program then runs without its own."""
    net = _cnn()
    c = ivy_ir.compile(net, target="jax", args=(X,))
    loss = jax.jit(lambda p, x: (c.apply(p, x) ** 2).sum())
    grads = jax.jit(jax.grad(lambda p, x: (c.apply(p, x) ** 2).sum()))(c.trainable_params, X)
    eager_grads = jax.grad(lambda p: (c.apply(p, X) ** 2).sum())(c.trainable_params)
    batched = jax.vmap(lambda x: c(x[None])[0])(X)
    out = net(torch.from_numpy(X))
    (out ** 2).sum().backward()
    np.testing.assert_allclose(float(loss(c.params, X)), float((out ** 2).sum()), rtol=1e-5)
    for got in (jax.jit(lambda x: c(x))(X), batched):
        np.testing.assert_allclose(np.asarray(got), out.detach().numpy(), rtol=1e-5, atol=1e-5)
    for name, p in net.named_parameters():
        for got in (grads, eager_grads):
            np.testing.assert_allclose(np.asarray(got[name]), p.grad.numpy(), rtol=1e-4,
                                       atol=1e-5, err_msg=name)
