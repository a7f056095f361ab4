"""TensorFlow's spellings of the standard functions its lowering rules do not give (see
`spellings.py`): expressions over the function's parameter names; `tnp` is
`tensorflow.experimental.numpy`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TENSORFLOW_SPELLINGS: dict[str, str] = {
    "asarray": "tnp.asarray(obj, dtype=_dt(dtype))",
}

TENSORFLOW_SKIP_RULES: frozenset[str] = frozenset()

TENSORFLOW_KERNELS: dict[str, Callable[..., Any]] = {}
