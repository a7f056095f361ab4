"""The backend-agnostic functions: what `ivy.<fn>` is while no backend is set.

Each does what the 2021 paper's two lines do: pick the backend (`f=`/`backend=`, else
the arguments' framework by type name, tracers selecting the tracing functions, else
NumPy), then call that backend's function. Generated once from the catalogue, with the
standard's signature plus `f` and `backend`. Since the pick depends on the argument
types alone, each function keeps a small table from those types to the function
picked (`backend.dispatch` fills it; arguments of one type are keyed by that type
alone, which spares building and hashing a tuple): a repeated call is one subscript
(in a `try`, free unless it misses; ~40 ns under `dict.get`) and one call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .backend import dispatch, element_type, pick
from .catalogue import CATALOGUE, FacadeFn
from .native import _call_args, _py_name


def _source(fn: FacadeFn, cache: str) -> str:
    P = inspect.Parameter
    sig = fn.signature.replace(parameters=[
        *fn.params, P("f", P.KEYWORD_ONLY, default=None),
        P("backend", P.KEYWORD_ONLY, default=None)])
    params = fn.signature.parameters
    star = any(params[p].kind is P.VAR_POSITIONAL for p in fn.arrays)
    arrays = [f"*{p}" if params[p].kind is P.VAR_POSITIONAL else p for p in fn.arrays]
    values = f"({', '.join(arrays)},)" if arrays else "()"
    call = _call_args(fn)
    head = f"def {_py_name(fn.name)}{sig}:\n"
    if not arrays or star:
        return (head + f"    return _pick(backend if f is None else f, {values})"
                f"[{fn.name!r}]({call})\n")
    key, first, known = "_t", f"type({arrays[0]})", ""
    if fn.sequences == (arrays[0],) and len(arrays) == 1:  # keyed by the items' type
        first, known = f"_element_type({arrays[0]})", ", _t"
    elif len(arrays) > 1:
        rest = [f"type({a})" for a in arrays[1:]]
        key = f"_t if {' is '.join(['_t', *rest])} else (_t, {', '.join(rest)})"
    return (head + "    if f is backend is None:\n"
            f"        _t = {first}\n"
            "        try:\n"
            f"            g = {cache}[{key}]\n"
            "        except KeyError:\n"
            "            pass\n"
            "        else:\n"
            f"            return g({call})\n"
            f"        return _dispatch({cache}, {fn.name!r}, None, {values}{known})({call})\n"
            f"    return _dispatch({cache}, {fn.name!r}, backend if f is None else f, "
            f"{values})({call})\n")


def _build() -> dict[str, Callable[..., Any]]:
    env: dict[str, Any] = {"_pick": pick, "_dispatch": dispatch, "_element_type": element_type}
    caches = {fn.name: f"_types_{i}" for i, fn in enumerate(CATALOGUE.values())}
    env.update({c: {} for c in caches.values()})
    source = "\n".join(_source(fn, caches[fn.name]) for fn in CATALOGUE.values())
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
