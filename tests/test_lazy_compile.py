"""`ivy_ir.compile` without example arguments: compiled on the first call and per new
argument signature (shapes, dtypes, static values), like `jax.jit`, with one set of
parameters shared by every entry."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir


def scaled_sum(x, n):
    return ivy.sum(x * n, axis=0)


def test_compiles_on_first_call_and_per_signature():
    c = ivy_ir.compile(scaled_sum, target="numpy")
    assert isinstance(c, ivy_ir.LazyCompiled) and c.cache_info().entries == 0
    with pytest.raises(AttributeError, match="not compiled yet: call it once"):
        _ = c.ir
    x = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(c(x, 2), [6.0, 6.0])
    np.testing.assert_array_equal(c(x, 2), [6.0, 6.0])
    np.testing.assert_array_equal(c(x, 3), [9.0, 9.0])  # a static value is part of the key
    np.testing.assert_array_equal(c(np.ones((5, 2)), 2), [10.0, 10.0])  # float64 input
    assert c.cache_info() == (1, 3, 3)
    assert "ivy.sum" in c.ir  # the first entry's program


def test_example_arguments_still_compile_at_once():
    c = ivy_ir.compile(scaled_sum, target="numpy", args=(np.ones((2, 2)), 2))
    assert isinstance(c, ivy_ir.Compiled)
    no_arguments = ivy_ir.compile(lambda: ivy.ones((2,)), target="numpy")
    assert isinstance(no_arguments, ivy_ir.Compiled)  # nothing to wait for
    variadic = ivy_ir.compile(lambda *xs: ivy.ones((2,)), target="numpy")
    assert isinstance(variadic, ivy_ir.Compiled)  # `*xs` may well be empty


def test_a_torch_model_compiles_lazily_and_trains_through_every_batch_size():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    c = ivy_ir.compile(model, target="torch")
    small, big = torch.randn(2, 4), torch.randn(5, 4)
    torch.testing.assert_close(c(small), model(small))
    torch.testing.assert_close(c(big), model(big))
    assert c.cache_info().misses == 2
    optimizer = torch.optim.SGD(c.module.parameters(), lr=0.1)
    before = c.params["0.weight"].detach().clone()
    c(big).sum().backward()  # the second entry's gradients reach the one parameter set
    optimizer.step()
    assert not torch.equal(c.params["0.weight"], before)
