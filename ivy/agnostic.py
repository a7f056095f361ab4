"""The backend-agnostic functions: what `ivy.<fn>` is while no backend is set.

Each is two lines, as in the 2021 paper: pick the backend (`f=`/`backend=`, else the
arguments' framework by type name, tracers selecting the tracing functions, else
NumPy), then call that backend's function. Generated once from the catalogue, with the
standard's signature plus `f` and `backend`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .backend import pick
from .catalogue import CATALOGUE, FacadeFn
from .native import _call_args, _py_name


def _source(fn: FacadeFn) -> str:
    P = inspect.Parameter
    sig = fn.signature.replace(parameters=[
        *fn.params, P("f", P.KEYWORD_ONLY, default=None),
        P("backend", P.KEYWORD_ONLY, default=None)])
    arrays = [f"*{p}" if fn.signature.parameters[p].kind is P.VAR_POSITIONAL else p
              for p in fn.arrays]
    values = f"({', '.join(arrays)},)" if arrays else "()"
    return (f"def {_py_name(fn.name)}{sig}:\n"
            f"    return _pick(backend if f is None else f, {values})"
            f"[{fn.name!r}]({_call_args(fn)})\n")


def _build() -> dict[str, Callable[..., Any]]:
    env: dict[str, Any] = {"_pick": pick}
    source = "\n".join(_source(fn) for fn in CATALOGUE.values())
    exec(compile(source, "<ivy agnostic functions>", "exec"), env)  # noqa: S102 (ours)
    out = {}
    for name in CATALOGUE:
        f = env[_py_name(name)]
        f.__name__ = f.__qualname__ = name.rpartition(".")[2]
        f.__module__ = "ivy"
        f.__doc__ = CATALOGUE[name].doc
        out[name] = f
    return out


FUNCTIONS = _build()
