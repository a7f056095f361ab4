"""Backend selection, the facade's only global state (as in the Ivy papers).

The backend names the framework that eager facade calls execute on and that
`ivy.compile` targets by default. Until the other lowerings land, only "numpy"
executes eagerly; naming another known framework raises a clear error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

KNOWN = ("numpy", "jax", "torch", "tensorflow")
_stack: list[str] = []


def available_backends() -> tuple[str, ...]:
    from lowerings import TARGETS

    return TARGETS


def set_backend(name: str) -> None:
    if name not in KNOWN:
        raise ValueError(f"unknown backend '{name}'; choose one of {', '.join(KNOWN)}")
    if name not in available_backends():
        raise NotImplementedError(f"the {name} backend has no lowering yet; available: "
                                  f"{', '.join(available_backends())}")
    _stack.append(name)


def unset_backend() -> None:
    if _stack:
        _stack.pop()


def current_backend() -> str:
    return _stack[-1] if _stack else "numpy"


@contextmanager
def with_backend(name: str) -> Iterator[None]:
    set_backend(name)
    try:
        yield
    finally:
        unset_backend()
