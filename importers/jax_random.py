"""JAX's PRNG primitives: typed threefry keys and the draws, splits and fold-ins on them.

A key array (`key<fry>[shape]`, made by `random_wrap` of a legacy uint32 pair or by
`random_seed`) is carried through the import as `KeyWords`: its two uint32 words, each
an array of the key array's own shape. Threefry takes its key as exactly those words,
and a structural primitive on keys (slice, squeeze, select, concatenate) applies to
both words alike, so the walker runs such an equation once per word
(`JaxprWalker._by_word`) and needs no key-aware rule for it.

Every primitive is JAX's partitionable threefry (the default since JAX 0.5): the
counters of a draw of shape `s` are the row-major indices of `s` as 64-bit numbers,
hashed under the key by `ivy.threefry2x32`; random bits are the two result words
xor-ed, a split keeps both words as the new key, a fold-in hashes (0, data). So the
imported program gives JAX's bits exactly, on every target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ivy_ir.dialect.types import numpy_dtype

from .common import Rule, Unmapped
from .jax_ctx import FOLD_LIMIT, Ctx, Value

THREEFRY = "threefry2x32"
"""The one PRNG implementation that imports (`jax.random.key_impl` names it so)."""
_COUNTER_LIMIT = 2**32
"""Draws of more numbers than this need the counters' high words too."""


@dataclass(frozen=True)
class KeyWords:
    """A typed key array as its first and second uint32 words (`key_data[..., 0]`,
    `key_data[..., 1]`)."""

    first: Value
    second: Value

    @property
    def words(self) -> tuple[Value, Value]:
        return self.first, self.second


def flat_words(values: list[Any]) -> list[Any]:
    """`values` with each key array replaced by its two words (for a region boundary)."""
    return [w for v in values for w in (v.words if isinstance(v, KeyWords) else (v,))]


def pack_words(values: list[Any], outvars: list[Any]) -> list[Any]:
    """`flat_words` undone for the results `outvars` (a key-typed one takes two)."""
    it = iter(values)
    return [KeyWords(next(it), next(it)) if is_key_aval(v.aval) else next(it) for v in outvars]


def is_key_aval(aval: Any) -> bool:
    """Whether a JAX abstract value is a typed PRNG key array."""
    dtype = getattr(aval, "dtype", None)
    try:
        return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    except TypeError:
        return False


def is_typed_key(value: Any) -> bool:
    """Whether a concrete value is a typed key array (`jax.random.key(0)`)."""
    return hasattr(value, "shape") and is_key_aval(value)


def _keys(keys: Any) -> KeyWords:
    """The key words of an operand (keys of a PRNG that did not import have none)."""
    if not isinstance(keys, KeyWords):
        raise Unmapped("keys of a PRNG other than threefry2x32")
    return keys


def _check(impl: Any) -> None:
    name = getattr(impl, "name", str(impl))
    if name != THREEFRY:
        raise Unmapped(f"the {name} PRNG (only {THREEFRY} keys import)")


def _word(ctx: Ctx, data: Value, i: int) -> Value:
    """`data[..., i]`: one word of key data."""
    if isinstance(data, np.ndarray):
        return np.asarray(data[..., i])
    shape = ctx.spec(data).shape
    part = ctx.emit("slice", data, start=[0] * (len(shape) - 1) + [i],
                    stop=[*shape[:-1], i + 1], step=[1] * len(shape))
    return ctx.emit("squeeze", part, axis=[len(shape) - 1])


def _wrap(ctx: Ctx, data: Value, *, impl: Any, **_: Any) -> KeyWords:
    _check(impl)
    return KeyWords(_word(ctx, data, 0), _word(ctx, data, 1))


def key_data(ctx: Ctx, value: Value | KeyWords) -> Value:
    """A program result as the targets return it: a key array as its key data."""
    return _unwrap(ctx, value) if isinstance(value, KeyWords) else value


def _unwrap(ctx: Ctx, keys: KeyWords, **_: Any) -> Value:
    keys = _keys(keys)
    return ctx.emit("stack", [*keys.words], axis=ctx.spec(keys.first).rank)


def _seed(ctx: Ctx, seeds: Value, *, impl: Any, **_: Any) -> KeyWords:
    """A 32-bit seed is the key (0, seed); a 64-bit one its high and low words."""
    _check(impl)
    dtype = ctx.spec(seeds).dtype
    low = ctx.cast(seeds, "uint32")  # the low 32 bits, as JAX's conversion wraps
    if dtype.endswith("64"):
        high = ctx.cast(ctx.emit("bitwise_right_shift", seeds, ctx.const(32, dtype)), "uint32")
    else:
        high = ctx.emit("zeros_like", low)
    return KeyWords(high, low)


def _counters(ctx: Ctx, shape: tuple[int, ...]) -> tuple[Value, Value]:
    """The high and low words of the row-major indices of `shape`."""
    n = math.prod(shape)
    if n > _COUNTER_LIMIT:
        raise Unmapped(f"a draw of {n} numbers (more than 2**32 in one call)")
    high = ctx.const(0, "uint32")
    if n <= FOLD_LIMIT:  # small counters are known, as small iotas are (jax_shape.iota)
        return high, ctx.const(np.arange(n, dtype=np.uint32).reshape(shape), "uint32")
    low = ctx.emit("arange", start=0.0, stop=float(n), dtype="uint32")
    return high, ctx.emit("reshape", low, shape=list(shape))


def _hash(ctx: Ctx, keys: KeyWords, shape: tuple[int, ...]) -> list[Value]:
    """threefry2x32 of each key (broadcast over `shape`) on the counters of `shape`:
    the draw for a key array of shape `b` has shape `b + shape`."""
    keys, (high, low) = _keys(keys), _counters(ctx, shape)
    rank = ctx.spec(keys.first).rank
    words = [w if not shape or not rank else
             ctx.emit("reshape", w, shape=[*ctx.spec(w).shape, *[1] * len(shape)])
             for w in keys.words]
    return ctx.emit_all("threefry2x32", *words, high, low)


def _bits(ctx: Ctx, keys: KeyWords, *, bit_width: int, shape: tuple[int, ...],
          **_: Any) -> Value:
    first, second = _hash(ctx, keys, tuple(shape))
    if bit_width == 64:
        high = ctx.emit("bitwise_left_shift", ctx.cast(first, "uint64"), ctx.const(32, "uint64"))
        return ctx.emit("bitwise_or", high, ctx.cast(second, "uint64"))
    bits = ctx.emit("bitwise_xor", first, second)
    return bits if bit_width == 32 else ctx.cast(bits, f"uint{bit_width}")


def _split(ctx: Ctx, keys: KeyWords, *, shape: tuple[int, ...], **_: Any) -> KeyWords:
    return KeyWords(*_hash(ctx, keys, tuple(shape)))


def _fold_in(ctx: Ctx, keys: KeyWords, data: Value, **_: Any) -> KeyWords:
    """The key hashed on the counter (0, data)."""
    data = ctx.cast(data, "uint32")
    return KeyWords(*ctx.emit_all("threefry2x32", *_keys(keys).words, ctx.const(0, "uint32"), data))


def _bitcast(ctx: Ctx, x: Value, **_: Any) -> Value:
    src, dst = ctx.spec(x).dtype, ctx.out.dtype
    if numpy_dtype(src).itemsize != numpy_dtype(dst).itemsize:
        raise Unmapped("bitcast_convert_type between dtypes of different widths")
    return ctx.emit("bitcast", x, dtype=dst)


RANDOM: dict[str, Rule] = {
    "random_wrap": _wrap,
    "random_unwrap": _unwrap,
    "random_seed": _seed,
    "random_bits": _bits,
    "random_split": _split,
    "random_fold_in": _fold_in,
    "random_clone": lambda ctx, keys, **_: keys,  # legacy key data or KeyWords alike
    "threefry2x32": lambda ctx, *words, **_: ctx.emit_all("threefry2x32", *words),
    "bitcast_convert_type": _bitcast,
    "erf_inv": lambda ctx, x, **_: ctx.emit("erfinv", x),
}
"""The PRNG's primitives, and the bit-level ones its samplers are written with."""
KEY_PRIMITIVES = frozenset({"random_wrap", "random_unwrap", "random_seed", "random_bits",
                            "random_split", "random_fold_in", "random_clone"})
"""The primitives that take or make `KeyWords` themselves (others run word by word)."""
