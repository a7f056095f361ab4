"""Python `while` loops over tensor data, which torch.export cannot capture, rewritten
as `torch.while_loop` while exporting (`importers/torch_loops`): kornia's Canny
hysteresis and a Newton iteration import as one `ivy.while_loop` and match eager torch
on every target; loops it cannot rewrite are refused naming their line, and the
rewritten functions are restored after the export."""

from __future__ import annotations

import inspect
import sys

import kornia
import numpy as np
import pytest
import torch
from zoo_common import TARGETS

import ivy_ir
from ivy_ir.core.errors import TraceError

CANNY = sys.modules["kornia.filters.canny"]


def _image() -> torch.Tensor:
    """A bright square with a faint bar touching it: the bar's weak edges are kept only
    through hysteresis, which takes several rounds to walk along them. A faint seeded
    noise breaks the image's symmetry: in exact arithmetic neighbours would tie in the
    non-maximum suppression, and a tie goes either way under float rounding (it went
    the other way on TF on one CPU)."""
    x = torch.zeros(1, 3, 16, 16)
    x[..., 4:12, 4:12] = 1.0
    x[..., 6:10, 12:16] = 0.12
    x[:, 1] *= 0.9
    return x + 0.01 * torch.rand(x.shape, generator=torch.Generator().manual_seed(0))


def _check(fn, args: tuple) -> ivy_ir.Module:
    """Trace once; every target's outputs match `fn` run eagerly within 1e-4."""
    want = [t.numpy() for t in fn(*args)]
    module = ivy_ir.trace(fn, args)
    inputs = [a.numpy() for a in args]
    for target in TARGETS:
        got = ivy_ir.compile(module, target=target)(*inputs)
        assert len(got) == len(want), target
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4, err_msg=target)
    assert str(module).count("ivy.while_loop") == 1
    return module


@pytest.mark.parametrize("python_loop", [False, True], ids=["as-shipped", "python-while"])
def test_kornia_canny_with_hysteresis(python_loop, monkeypatch):
    """As shipped, kornia writes its loop with torch.while_loop under torch.export;
    with that switch off, its eager `while` over the edge map is rewritten."""
    if python_loop:
        monkeypatch.setattr(CANNY, "is_exporting", lambda: False)
    code = kornia.filters.canny.__code__
    _check(lambda x: kornia.filters.canny(x, hysteresis=True), (_image(),))
    assert kornia.filters.canny.__code__ is code
    assert "__ivy_while_loop" not in vars(CANNY)


def newton_sqrt(a):
    x = a
    while ((x * x - a).abs() > 1e-5).any():
        step = (x * x - a) / (2 * x)  # first assigned in the loop, read after it
        x = x - step
    return x, step


def test_newton_iteration_is_rewritten_and_restored():
    code = newton_sqrt.__code__
    a = torch.tensor([2.0, 9.0, 0.5, 30.0])
    _check(newton_sqrt, (a,))
    assert newton_sqrt.__code__ is code and "__ivy_while_loop" not in globals()
    np.testing.assert_allclose(newton_sqrt(a)[0].numpy(), np.sqrt(a.numpy()), rtol=1e-6)


def halve(x):
    while (x > 1).any():
        x = x / 2
        if (x < 0).all():
            break
    return x


def count(x):
    i = 0
    while (x > 1).any():
        x = x / 2
        i += 1
    return x, i


def _line(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def test_loops_it_cannot_rewrite_are_refused_by_line():
    x = torch.tensor([5.0, 3.0])
    with pytest.raises(TraceError, match=rf"loop at \S*test_torch_loops.py:"
                       rf"{_line(halve, 'while')} .*`break` at line {_line(halve, 'break')}"):
        ivy_ir.trace(halve, (x,))
    with pytest.raises(TraceError, match=rf"py:{_line(count, 'while')} .*carries `i` of type int"):
        ivy_ir.trace(count, (x,))
    assert halve(x).tolist() == [0.625, 0.375]  # still the original Python loop
