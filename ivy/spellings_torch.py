"""PyTorch's spellings of the standard functions its lowering rules do not give (see
`spellings.py`): expressions over the function's parameter names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TORCH_SPELLINGS: dict[str, str] = {
    "asarray": "torch.asarray(obj, dtype=_dt(dtype), copy=copy)",
}

TORCH_SKIP_RULES: frozenset[str] = frozenset()

TORCH_KERNELS: dict[str, Callable[..., Any]] = {}
