"""The torch importer's table: ATen op -> rule, joined from the family modules, and
the normalization that decomposes exactly the ops the table lacks (`torch.export`'s
own decompositions, restricted to them)."""

from __future__ import annotations

from typing import Any

import torch

from .common import Rule, merge_tables
from .torch_capture import quiet
from .torch_fft import FFT
from .torch_grad import GRAD
from .torch_index import INDEX
from .torch_linalg import LINALG
from .torch_math import ACTIVATIONS, BINARY, LOGICAL, MATH, ROUNDING, UNARY
from .torch_nn import NN
from .torch_random import RANDOM
from .torch_recurrent import RECURRENT
from .torch_reduce import REDUCE
from .torch_segment import SEGMENT
from .torch_shape import SHAPE

TABLE = merge_tables(MATH, REDUCE, SHAPE, INDEX, NN, RECURRENT, SEGMENT, GRAD, RANDOM, LINALG,
                     FFT)
"""ATen op (packet name, or `packet.overload` where overloads differ) -> rule."""
ONE_TO_ONE: dict[str, str] = {**UNARY, **ACTIVATIONS, **ROUNDING, **BINARY, **LOGICAL}
"""The ATen ops with one registry op of the same meaning (ATen name -> registry op),
built from the registry's op sets with `importers.common.one_to_one`; their rules are
in `torch_math`."""
SKIPPED = frozenset({"_assert_scalar", "_assert_async", "_assert_tensor_metadata",
                     "sym_constrain_range", "sym_constrain_range_for_size",
                     "_functional_assert_async"})
"""Runtime assertions torch adds about sizes and dtypes; the IR's types are static."""
HARMLESS_INPLACE = frozenset({"detach_"})
"""In-place ops that change no values (the walker maps them as the identity)."""


def packet(target: Any) -> tuple[str, str]:
    name = target._schema.name.split("::")[-1]
    return name, f"{name}.{target._overloadname}"


def lookup(target: Any) -> Rule | None:
    """The table entry of an ATen op overload: overload-specific first, then packet."""
    name, overload = packet(target)
    return TABLE.get(overload) or TABLE.get(name)


def _needs_decomposition(target: Any) -> bool:
    if not isinstance(target, torch._ops.OpOverload):
        return False
    name = packet(target)[0]
    if name in SKIPPED:
        return False
    mutates = target._schema.is_mutable and name not in HARMLESS_INPLACE
    return mutates or lookup(target) is None


EXTRA_DECOMPOSITIONS = (torch.ops.aten.grid_sampler_2d.default,)
"""Ops torch.export keeps whole that decompose into mapped ones (`F.grid_sample`,
kornia's warps: gathers and arithmetic)."""


def normalize(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """Functionalize in-place ops and decompose ops without a table entry (only those:
    mapped ops such as linear or layer_norm stay whole), in the top-level graph and in
    the bodies of higher-order ops alike."""
    graphs = [g for g in ep.graph_module.modules() if isinstance(g, torch.fx.GraphModule)]
    targets = {n.target for g in graphs for n in g.graph.nodes if n.op == "call_function"}
    if not any(_needs_decomposition(t) for t in targets):
        return ep
    table = torch.export.default_decompositions()
    for op in list(table.keys()):
        if lookup(op) is not None:
            del table[op]
    for op in EXTRA_DECOMPOSITIONS:  # core ATen keeps these whole (no setdefault there)
        table[op] = torch._decomp.decomposition_table[op]
    with quiet():
        return ep.run_decompositions(table)


# ---- the walk ----
