"""Symbolic dims of ONNX models: naming the `dim_param` dims of graph inputs, and the
shape values (`Sizes`) that shape arithmetic on them computes at import.

An ONNX model exported with dynamic axes says which input dims are free by giving
them a `dim_param` ("batch", "N", "unk__12") instead of a `dim_value`. Those dims stay
dynamic in the IR (`{ivy.dims}` on the inputs), each ONNX name becoming one IR dim
name (an identifier: `dim_names`), so one compiled program serves every size of them.
The model then computes shapes at run time (`Shape -> Gather -> Concat -> Reshape`):
where the static importer folds such chains into known arrays, a chain touching a
dynamic dim folds into a `Sizes`, a known array whose entries may be size expressions
(`ivy_ir.dialect.symbolic.SymDim`), which a `Reshape`, `Expand` or `ConstantOfShape`
takes as its registry op's `shape` attribute (`onnx_sizes.py` has the arithmetic).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ivy_ir.dialect.symbolic import SymDim, is_dim_name

from .common import Unmapped
from .dynamic import requested

Dim = int | SymDim | None
"""One dim of a value's symbolic shape: a static size, a size expression over the
input dims, or None (dynamic, with no expression the importer can name)."""

Declared = int | str | None
"""One dim of a graph input as the model declares it: a `dim_value`, a `dim_param`, or
None (neither)."""


def declared_dims(info: Any) -> list[Declared] | None:
    """An input's declared dims (None: no shape, the rank is unknown)."""
    tensor = info.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else
            d.dim_param if d.HasField("dim_param") and d.dim_param else None
            for d in tensor.shape.dim]


def _identifier(text: str) -> str:
    """`text` as a dim name: ASCII letters, digits and `_`, not starting with a digit,
    no Python keyword (a size expression is parsed as Python)."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", text) or "dim"
    if out[0].isdigit():
        out = f"d{out}"
    return out if is_dim_name(out) else f"{out}_"


def dim_names(inputs: Sequence[tuple[str, list[Declared] | None]], free_unnamed: bool
              ) -> dict[str, dict[int, str]]:
    """Input name -> axis -> IR dim name for the dims that stay symbolic: each
    `dim_param` (one IR name per distinct ONNX name, so inputs sharing one share the
    dim), and, with `free_unnamed`, each dim declaring neither a value nor a name (a
    generated `<input>_dim<axis>`). Two ONNX names that sanitize alike get distinct IR
    names: merging them would claim equal sizes the model never promised."""
    taken: set[str] = set()
    by_param: dict[str, str] = {}

    def fresh(base: str) -> str:
        name, n = base, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        return name

    for _, dims in inputs:
        for d in dims or ():
            if isinstance(d, str) and d not in by_param:
                by_param[d] = fresh(_identifier(d))
    out: dict[str, dict[int, str]] = {}
    for input_name, dims in inputs:
        named = {axis: by_param[d] if isinstance(d, str) else fresh(
            _identifier(f"{input_name}_dim{axis}"))
            for axis, d in enumerate(dims or ())
            if isinstance(d, str) or (d is None and free_unnamed)}
        if named:
            out[input_name] = named
    return out


def requested_dims(dynamic: Mapping[Any, Any], names: Sequence[str],
                   declared: Sequence[list[Declared] | None]) -> dict[str, dict[int, str]]:
    """`dynamic={input name or position: {axis: dim name}}` checked against the model:
    exactly these dims stay symbolic (a dim the model fixes with a `dim_value` cannot).
    An input of undeclared rank cannot be named here."""
    wanted = requested(dynamic, declared, names,
                       lambda dims: None if dims is None else len(dims))
    out: dict[str, dict[int, str]] = {}
    for (i, axis), name in sorted(wanted.items()):
        fixed = declared[i][axis]  # type: ignore[index]
        if isinstance(fixed, int):
            raise TypeError(f"dynamic=: the model fixes axis {axis} of {names[i]!r} to "
                            f"{fixed}")
        out.setdefault(names[i], {})[axis] = name
    return out


class Sizes:
    """A shape vector (or one size) known at import up to dynamic dims: `array` is a
    NumPy object array of Python ints and `SymDim`s, `dtype` the ONNX tensor's integer
    dtype. It exists only at import (sizes enter the IR as size attributes only):
    shape arithmetic computes on it and size attributes take it (shapes, `arange`
    bounds); any other use is reported (`onnx_ctx.Ctx.operand`)."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray, dtype: str):
        self.array = array
        self.dtype = dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    def entries(self) -> list[int | SymDim]:
        return list(self.array.ravel())

    def __repr__(self) -> str:
        text = ", ".join(map(str, self.entries()))
        return text if self.array.ndim == 0 else f"[{text}]"


def sizes(values: Any, dtype: str) -> Sizes | np.ndarray:
    """A shape value from ints and `SymDim`s: a plain known array when every entry is
    an int (so the static rules and folding see what they always saw), else `Sizes`."""
    array = np.empty(np.shape(values), object)
    flat = list(np.asarray(values, object).ravel())
    array.ravel()[:] = [v if isinstance(v, SymDim) else int(v) for v in flat] or []
    if all(not isinstance(v, SymDim) for v in flat):
        return np.asarray(array.astype(np.int64), dtype)
    return Sizes(array, dtype)


def objects(value: Any) -> np.ndarray:
    """A known integer array or `Sizes` as an object array of Python ints and
    `SymDim`s, which NumPy's indexing and arithmetic then work on."""
    if isinstance(value, Sizes):
        return value.array
    if isinstance(value, np.ndarray) and value.dtype.kind in "iub":
        out = np.empty(value.shape, object)
        out.ravel()[:] = [int(v) for v in value.ravel()]
        return out
    raise Unmapped("shape arithmetic on dynamic sizes takes shape values and known "
                   "integer arrays, not a tensor computed when the program runs")


def broadcast_dims(src: Sequence[Dim], target: Sequence[int | SymDim]) -> list[Dim]:
    """ONNX `Expand`'s two-way broadcast of `src` and `target`, per dim: a 1 yields to
    the other side, equal sizes stay, and a static size beats a symbolic one (the model
    is only valid where that one is 1 or equal). Two different symbolic sizes, or an
    unknown dim against a symbolic one, could resolve either way: `Unmapped`."""
    rank = max(len(src), len(target))
    s = [1] * (rank - len(src)) + list(src)
    t = [1] * (rank - len(target)) + list(target)
    out: list[Dim] = []
    for a, b in zip(s, t):
        if b == 1 or a == b:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif isinstance(a, int) and isinstance(b, int):
            raise Unmapped(f"shapes {list(src)} and {list(target)} do not broadcast")
        elif isinstance(b, int) or isinstance(a, int):
            out.append(b if isinstance(b, int) else a)
        else:
            shown = "an unknown dynamic dim" if a is None else str(a)
            raise Unmapped(f"whether {shown} or {b} is 1 decides the result's shape")
    return out


def infer_minus_one(src: Sequence[Dim], target: list[int | SymDim]) -> list[int | SymDim]:
    """`target` with its -1 replaced by the size it stands for, where the factors of
    `src`'s element count cancel against the other entries (`[batch, 16, 4, 4]` to
    `[batch, -1]`: 256), so a flatten keeps its static width; otherwise unchanged (the
    -1 stays, the registry resolves it when the program runs)."""
    if target.count(-1) != 1 or any(d is None for d in src):
        return target
    rest = [d for d in target if not (isinstance(d, int) and d == -1)]
    have = [d for d in src if isinstance(d, SymDim)]
    for d in (d for d in rest if isinstance(d, SymDim)):
        if d not in have:
            return target
        have.remove(d)
    numer = math.prod(d for d in src if isinstance(d, int))
    denom = math.prod(d for d in rest if isinstance(d, int))
    if denom <= 0 or numer % denom:
        return target
    size: int | SymDim = numer // denom
    for d in have:
        size = d * size
    return [size if isinstance(d, int) and d == -1 else d for d in target]
