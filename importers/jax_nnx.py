"""Flax NNX modules: the module's state becomes the program's parameters and buffers.

An `nnx.Module` keeps its state in Python objects (parameters, batch statistics, the
counters and keys of its `nnx.Rngs`) and mutates it when called, so tracing the module
itself would bake the state in and trip over the mutation (a raw `TraceContextError`).
NNX's own functional form splits it instead: `nnx.split(module)` gives a graph
definition and a state; the program is `merge(graphdef, state)(*args)` as a function of
the state, which returns the call's result and whichever state leaves the call changed
(an `nnx.Dropout` advances its stream's counter, a training-mode `nnx.BatchNorm` its
statistics). `nnx.Param` leaves train; the others are buffers, and the changed ones
become the program's buffer updates (`{ivy.update}`), so the compiled program advances
its own copy of the state call by call as the module would (the module passed in is
never changed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax


def is_nnx_module(obj: Any) -> bool:
    """Whether `obj` is a Flax NNX module (told without importing Flax)."""
    nnx = sys.modules.get("flax.nnx")
    return nnx is not None and isinstance(obj, nnx.Module)


@dataclass
class NnxProgram:
    """`call(state, *args, **kwargs) -> (result, [changed leaves])` on the pure state
    `tree`; `changed` (filled while tracing) holds the leaf indices of the changed
    leaves, in flattening order."""

    call: Callable[..., Any]
    tree: dict[str, Any]
    trainable: frozenset[tuple[Any, ...]]
    changed: list[int] = field(default_factory=list)


def split(module: Any) -> NnxProgram:
    from flax import nnx  # only NNX modules need Flax (found in sys.modules already)

    graphdef, state = nnx.split(module)
    tree = nnx.to_pure_dict(state)
    trainable = frozenset(path for path, _ in jax.tree_util.tree_flatten_with_path(
        nnx.to_pure_dict(nnx.state(module, nnx.Param)))[0])
    program = NnxProgram(lambda *a, **k: None, tree, trainable)

    def call(pure: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        template = jax.tree_util.tree_map(lambda v: v, state)
        nnx.replace_by_pure_dict(template, pure)
        model = nnx.merge(graphdef, template)
        out = model(*args, **kwargs)
        before = jax.tree_util.tree_leaves(pure)
        after = jax.tree_util.tree_leaves(nnx.to_pure_dict(nnx.state(model)))
        if len(after) != len(before):
            raise TypeError("the NNX module created or dropped state while called; only "
                            "modules whose state keeps its structure import")
        # an untouched leaf is the very value passed in (identity, not equality: a
        # counter advanced by 0 is still an update)
        program.changed[:] = [i for i, (a, b) in enumerate(zip(before, after)) if a is not b]
        return out, [_data(after[i]) for i in program.changed]

    program.call = call
    return program


def _data(leaf: Any) -> Any:
    """A changed leaf as the program returns it (a typed key as its key data)."""
    if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(leaf)
    return leaf
