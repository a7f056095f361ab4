"""The any-to-any matrix: every zoo program of every source framework, imported once
and lowered to every target, matches the source framework's own output."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from zoo_common import (
    SOURCES,
    TARGETS,
    assert_matches,
    import_program,
    run_target,
    zoo,
)

import ivy_ir

CASES = [(src, i, p.name) for src in SOURCES for i, p in enumerate(zoo(src))]


@functools.cache
def _imported(source: str, index: int) -> tuple[ivy_ir.Module, list[np.ndarray]]:
    return import_program(source, zoo(source)[index])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source,index,name", CASES, ids=[f"{s}-{n}" for s, _, n in CASES])
def test_zoo_program_on_every_target(source, index, name, target):
    program = zoo(source)[index]
    module, want = _imported(source, index)
    got = run_target(module, target, program, source)
    assert_matches(got, want, program, f"{source}->{target} {name}")


@pytest.mark.parametrize("source", SOURCES)
def test_zoo_is_large_enough(source):
    assert len(zoo(source)) >= 40
