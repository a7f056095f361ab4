"""The any-to-any matrix: every zoo program of every source framework, imported once
and lowered to every target, matches the source framework's own output."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from zoo_common import SOURCES, TARGETS, assert_matches, native_args, run_native, zoo

import ivy_ir

CASES = [(src, i, p.name) for src in SOURCES for i, p in enumerate(zoo(src))]


@functools.cache
def _imported(source: str, index: int) -> tuple[ivy_ir.Module, list[np.ndarray]]:
    program = zoo(source)[index]
    args, params = native_args(source, program)
    module = ivy_ir.trace(program.fn, args, program.kwargs, params=params)
    return module, run_native(source, program)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source,index,name", CASES, ids=[f"{s}-{n}" for s, _, n in CASES])
def test_zoo_program_on_every_target(source, index, name, target):
    program = zoo(source)[index]
    module, want = _imported(source, index)
    compiled = ivy_ir.compile(module, target=target)
    out = compiled(*program.args)
    got = [_numpy(o) for o in (out if isinstance(out, (tuple, list)) else [out])]
    assert_matches(got, want, program, f"{source}->{target} {name}")


def _numpy(x):
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


@pytest.mark.parametrize("source", SOURCES)
def test_zoo_is_large_enough(source):
    assert len(zoo(source)) >= 40
