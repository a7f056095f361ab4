"""Backend selection, the facade's only global state (as in the Ivy papers).

The backend names the framework `ivy.compile` targets by default. Eager facade calls
run on NumPy (through the NumPy lowering) whatever the backend; eager execution on the
other frameworks' own arrays is not built yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lowerings import TARGETS

_stack: list[str] = []


def available_backends() -> tuple[str, ...]:
    return TARGETS


def set_backend(name: str) -> None:
    if name not in available_backends():
        raise ValueError(f"unknown backend '{name}'; choose one of "
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
