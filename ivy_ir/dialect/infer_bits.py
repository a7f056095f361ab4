"""Result-type rules of the ops that work on raw bits: reinterpreting a dtype's bits
(`bitcast`), JAX's counter-based generator (`threefry2x32`) and the keyed samplers.

They live apart from `infer.py` because their checks are about bit widths and key
words, which no arithmetic rule needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import numpy_dtype
from .infer import Rule, broadcast, check, registrar, shape_dims
from .types import CLASS_MEMBERS, FLOATS, TensorSpec

BITS_RULES: dict[str, Rule] = {}
rule = registrar(BITS_RULES)


@rule("random")
def _random(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    check(ins[0].rank == 0, f"key must be a 0-d integer tensor, got shape {ins[0].shape}")
    check(a["dtype"] in FLOATS, f"random values need a float dtype, got {a['dtype']}")
    # the frameworks' samplers refuse an empty interval or a negative spread
    check(a.get("low", 0.0) <= a.get("high", 1.0),
          f"low {a.get('low')} must not exceed high {a.get('high')}")
    check(a.get("std", 0.0) >= 0, f"std must be >= 0, got {a.get('std')}")
    return [TensorSpec(shape_dims(a["shape"]), a["dtype"])]


@rule("threefry")
def _threefry(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    # Threefry-2x32 is defined on 32-bit words: any other width changes every number
    check(ins[0].dtype == "uint32", f"threefry2x32 works on uint32 words, got {ins[0].dtype}")
    shape = broadcast(*(t.shape for t in ins))
    return [TensorSpec(shape, "uint32")] * 2


@rule("bitcast")
def _bitcast(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    check(a["dtype"] in CLASS_MEMBERS["real"], f"bitcast gives a real dtype, not {a['dtype']}")
    # same width only: a change of width would also change the shape
    src, dst = (np.dtype(numpy_dtype(d)).itemsize for d in (ins[0].dtype, a["dtype"]))
    check(src == dst, f"bitcast keeps the bit width: {ins[0].dtype} has {8 * src} bits, "
                      f"{a['dtype']} {8 * dst}")
    return [ins[0].with_(dtype=a["dtype"])]
