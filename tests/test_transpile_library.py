"""A whole library transpiled lazily (`ivy.library.transpile_library`): kornia's
filters, color, enhance and geometry functions, from torch to JAX, against kornia on
torch, eagerly, under `jax.jit` and through `jax.vjp`; the per-signature cache; and what
the proxy says about attributes it does not transpile.

CI checks every other function of the sweep (each of the four modules keeps several; the
whole sweep took ~75 of CI's seconds); `pytest -m heavy` checks the rest."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import kornia
import numpy as np
import pytest
import torch
from kornia_cases import CASES, IMAGE, Case

import ivy
from ivy.library import LibraryProxy, TranspiledFunction, transpile_library

KJ = transpile_library(kornia, source="torch", to="jax")
"""One proxy for the case sweep: each case's function is traced once for `IMAGE`."""


def _reference(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """kornia's output on torch and torch autograd's gradient of its sum."""
    x = torch.from_numpy(IMAGE).requires_grad_()
    out = case.call(kornia, x, torch.from_numpy)
    out.sum().backward()
    return out.detach().numpy(), x.grad.numpy()


def _check(got: object, want: np.ndarray, tolerance: tuple[float, float]) -> None:
    rtol, atol = tolerance
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", [c if i % 2 == 0 else pytest.param(c, marks=pytest.mark.heavy)
                                  for i, c in enumerate(CASES)], ids=[c.name for c in CASES])
def test_kornia_function_matches_torch_eager_jitted_and_differentiated(case: Case):
    want, want_grad = _reference(case)
    x = jnp.asarray(IMAGE)

    def fn(image):
        return case.call(KJ, image, jnp.asarray)

    out = fn(x)
    assert isinstance(out, jax.Array)
    _check(out, want, case.tolerance)

    @jax.jit
    def value_and_grad_of_sum(image):
        # one XLA compile for both: the output under jit and d(sum)/d(image)
        value, vjp = jax.vjp(fn, image)
        return value, vjp(jnp.ones_like(value))[0]

    value, grad = value_and_grad_of_sum(x)
    _check(value, want, case.tolerance)
    _check(grad, want_grad, case.tolerance)


def test_at_least_twenty_functions_across_the_four_modules():
    modules = {c.name.split(".")[0] for c in CASES}
    assert len({c.name for c in CASES}) == len(CASES) >= 20
    assert modules == {"filters", "color", "enhance", "geometry"}


def _pipeline(k, image, to_array):
    """Seven transpiled functions in a row, as a user's preprocessing would chain them."""
    blurred = k.filters.gaussian_blur2d(image, (3, 3), (1.0, 1.0))
    hsv = k.color.rgb_to_hsv(k.enhance.adjust_saturation(blurred, 1.4))
    gray = k.color.rgb_to_grayscale(k.color.hsv_to_rgb(hsv))
    mean, std = to_array(np.array([0.5], np.float32)), to_array(np.array([0.2], np.float32))
    return k.geometry.transform.resize(k.enhance.normalize(gray, mean, std), (8, 8))


def test_jitted_and_differentiated_pipeline_of_transpiled_functions():
    x = torch.from_numpy(IMAGE).requires_grad_()
    want = _pipeline(kornia, x, torch.from_numpy)
    (want ** 2).sum().backward()
    kj = transpile_library(kornia, source="torch", to="jax")
    _pipeline(kj, jnp.asarray(IMAGE), jnp.asarray)  # traced eagerly: see the test below

    @jax.jit
    def value_and_grad(image):
        value, vjp = jax.vjp(lambda a: _pipeline(kj, a, jnp.asarray), image)
        return value, vjp(2 * value)[0]  # d(sum(value ** 2))/d(image)

    value, grad = value_and_grad(jnp.asarray(IMAGE))
    np.testing.assert_allclose(value, want.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, x.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert kj.filters.gaussian_blur2d.cache_info() == (1, 1, 1)  # jit's tracers hit


def test_traced_on_its_first_call_under_jit():
    """The program's hoisted constants are made concrete (`JaxRuntime.scope`), so a
    first call inside `jax.jit` leaves no tracer in the cached entry."""
    blur = transpile_library(kornia, source="torch", to="jax").filters.gaussian_blur2d
    want = kornia.filters.gaussian_blur2d(torch.from_numpy(IMAGE), (3, 3), (1.0, 1.0)).numpy()
    # the first call's arguments are tracers: the torch importer traces zeros of their type
    first = jax.jit(lambda a: blur(a, (3, 3), (1.0, 1.0)))(IMAGE)
    np.testing.assert_allclose(first, want, rtol=1e-5, atol=1e-5)
    again = jax.jit(lambda a: 2 * blur(a, (3, 3), (1.0, 1.0)))(IMAGE)  # the cached entry
    np.testing.assert_allclose(again, 2 * want, rtol=1e-5, atol=1e-5)


def test_cache_is_per_signature_with_defaults_bound():
    box_blur = transpile_library(kornia, source="torch", to="jax").filters.box_blur
    small = jnp.asarray(IMAGE)
    first = box_blur(small, (3, 3))
    assert box_blur.cache_info() == (0, 1, 1)
    # the same call spelled with a keyword and the default written out: one entry
    np.testing.assert_array_equal(box_blur(small, kernel_size=(3, 3), border_type="reflect"),
                                  first)
    assert box_blur.cache_info() == (1, 1, 1)
    big = np.random.default_rng(1).random((2, 3, 12, 20), dtype=np.float32)
    np.testing.assert_allclose(box_blur(jnp.asarray(big), (3, 3)),
                               kornia.filters.box_blur(torch.from_numpy(big), (3, 3)),
                               rtol=1e-5, atol=1e-5)
    assert box_blur.cache_info() == (1, 2, 2)  # a new shape
    np.testing.assert_allclose(box_blur(small, (5, 5)),
                               kornia.filters.box_blur(torch.from_numpy(IMAGE), (5, 5)),
                               rtol=1e-5, atol=1e-5)
    assert box_blur.cache_info() == (1, 3, 3)  # a new static kernel_size
    box_blur(small, (5, 5), "reflect")
    assert box_blur.cache_info() == (2, 3, 3)


def test_keyword_only_parameters_take_part_too():
    """kornia's kernel factories take `device`/`dtype` by keyword only (left at their
    None defaults: torch.export takes no torch.dtype argument)."""
    kj = transpile_library(kornia.filters, source="torch", to="jax")
    kernel = kj.get_gaussian_kernel1d(5, jnp.asarray([[1.5], [0.8]]), device=None)
    want = kornia.filters.get_gaussian_kernel1d(5, torch.tensor([[1.5], [0.8]]))
    np.testing.assert_allclose(kernel, want.numpy(), rtol=1e-5, atol=1e-7)


def test_proxy_namespace():
    kj = transpile_library(kornia, source="torch", to="jax")
    assert isinstance(kj.filters, LibraryProxy) and kj.filters is kj.filters
    assert repr(kj.color) == "<transpiled library kornia.color source=torch to=jax>"
    blur = kj.filters.box_blur
    assert isinstance(blur, TranspiledFunction) and blur is kj.filters.blur.box_blur
    assert kj.geometry.resize is kj.geometry.transform.resize  # one function, two paths
    assert blur.__name__ == "box_blur" and blur.__doc__ == kornia.filters.box_blur.__doc__
    assert blur.__wrapped__ is kornia.filters.box_blur
    assert inspect.signature(blur) == inspect.signature(kornia.filters.box_blur)
    assert repr(blur) == "<transpiled function kornia.filters.blur.box_blur entries=0>"
    names = dir(kj.filters)
    assert {"gaussian_blur2d", "box_blur", "blur", "median"} <= set(names)
    assert "GaussianBlur2d" not in names and not any(n.startswith("_") for n in names)
    assert kj.geometry.transform.resize.__module__ == "kornia.geometry.transform.affwarp"
    # the facade's entry point, with kornia's framework found from its name
    assert repr(ivy.transpile(kornia, to="jax")) == repr(kj)


def test_attributes_that_are_not_transpiled_say_why():
    kj = transpile_library(kornia, source="torch", to="jax")
    with pytest.raises(AttributeError, match=r"kornia\.filters\.GaussianBlur2d is a class.*"
                       r"ivy\.transpile\(kornia\.filters\.GaussianBlur2d\(\.\.\.\), "
                       r"source='torch', to='jax'\)"):
        _ = kj.filters.GaussianBlur2d
    assert not hasattr(kj.filters, "GaussianBlur2d")
    with pytest.raises(AttributeError, match=r"kornia\.pi is a torch\.Tensor, neither a "
                       "function nor a submodule of kornia"):
        _ = kj.pi
    with pytest.raises(AttributeError, match=r"load_state_dict_from_url takes \*kwargs"):
        _ = kj.core.load_state_dict_from_url
    with pytest.raises(AttributeError, match="module 'kornia.filters' has no attribute 'nope'"):
        _ = kj.filters.nope
    with pytest.raises(TypeError, match="box_blur\\(\\): missing a required argument: "
                       "'kernel_size'"):
        kj.filters.box_blur(jnp.asarray(IMAGE))
    with pytest.raises(TypeError, match="takes a module, not a function"):
        transpile_library(kornia.filters.box_blur, source="torch", to="jax")
