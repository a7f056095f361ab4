"""The standard's linear-algebra functions without a registry op, traced as the
compositions of `ivy_ir.core.linalg_compositions` (which the importers share); eagerly
each backend runs its own function (`linalg.pinv`, ...), which the tests compare
against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.core.linalg_compositions import (
    cross,
    eigvalsh,
    matrix_power,
    matrix_rank,
    pinv,
    svdvals,
)

LINALG_COMPOSITES: dict[str, Callable[..., Any]] = {
    "linalg.svdvals": svdvals, "linalg.eigvalsh": eigvalsh,
    "linalg.matrix_rank": matrix_rank, "linalg.pinv": pinv,
    "linalg.matrix_power": matrix_power, "linalg.cross": cross,
}
"""Facade name -> its composition (called with the bound arguments by name)."""
