"""`LazyCompiled`: what `ivy_ir.compile` returns without example arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .compiled import Compiled
from .core.graph import is_array


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    entries: int


class LazyCompiled:
    """What `ivy_ir.compile` returns when given no example arguments: like `jax.jit`,
    it compiles on the first call and again for each new argument signature (array
    shapes and dtypes, and the values of the static arguments), then calls the cached
    program. Every entry shares the first one's parameters, so training through any
    signature updates one set (`params`, `module`, read from that first entry). Dims the
    first program keeps symbolic (`dynamic=`) are no part of the signature: one entry
    serves all their sizes."""

    def __init__(self, build: Callable[[tuple[Any, ...], dict[str, Any]], Compiled],
                 name: str):
        self._build = build
        self._name = name
        self._entries: dict[tuple[Any, ...], Compiled] = {}
        self._first: Compiled | None = None
        self._dynamic: list[frozenset[int]] = []
        """Per array input, the axes the first program keeps symbolic."""
        self._hits = self._misses = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self.entry(*args, **kwargs)
        kept = _structured if compiled.ir_module.tree is not None else is_array
        return compiled(*(a for a in args if kept(a)),
                        **{k: v for k, v in kwargs.items() if kept(v)})

    def entry(self, *args: Any, **kwargs: Any) -> Compiled:
        """The program compiled for this argument signature (compiled now if new), not
        run: what the target's idioms that separate building from calling need (a JAX
        `init`, a Keras layer creating its weights)."""
        compiled = self._entries.get(self._key(args, kwargs))
        if compiled is None:
            self._misses += 1
            compiled = self._build(args, kwargs)
            if self._first is None:
                self._first = compiled
                self._dynamic = [frozenset(i for i, d in enumerate(s.shape) if d is None)
                                 for s in compiled.ir_module.inputs]
            else:
                compiled._adopt(self._first)
            self._entries[self._key(args, kwargs)] = compiled
        else:
            self._hits += 1
        return compiled

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        arrays = iter(self._dynamic)
        key = tuple(signature_of(a, next(arrays, frozenset()) if is_array(a) else frozenset())
                    for a in args)
        if kwargs:
            key += tuple((k, signature_of(v, next(arrays, frozenset()) if is_array(v)
                                           else frozenset())) for k, v in kwargs.items())
        return key

    def cache_info(self) -> CacheInfo:
        return CacheInfo(self._hits, self._misses, len(self._entries))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._first is None:
            raise AttributeError(f"{self._name} is not compiled yet: call it once (or pass "
                                 f"example args= to ivy_ir.compile) before .{name}")
        return getattr(self._first, name)

    def __repr__(self) -> str:
        info = self.cache_info()
        return f"<ivy_ir.LazyCompiled {self._name} entries={info.entries}>"


def _structured(value: Any) -> bool:
    """What a program with a call structure (`Module.tree`: ONNX sequences and
    optionals, KV caches) takes besides arrays: lists and tuples of them, an empty one
    too, and None (an empty ONNX optional)."""
    return value is None or is_array(value) or (
        isinstance(value, (list, tuple)) and all(_structured(v) for v in value))


def signature_of(value: Any, dynamic: frozenset[int] = frozenset()) -> Any:
    """The cache key of one argument (here and in the ONNX backend's per-signature
    programs): shape (less its `dynamic` axes) and dtype for an array, each array's for
    a non-empty list or tuple of them (an ONNX sequence: one program per length), else
    the value (its repr when it cannot be hashed: a list of numbers)."""
    if is_array(value):
        shape = tuple(None if i in dynamic else d for i, d in enumerate(value.shape))
        return ("array", shape, str(value.dtype))
    if value and isinstance(value, (list, tuple)) and all(is_array(v) for v in value):
        return ("arrays", tuple(signature_of(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("static", type(value).__name__, repr(value))
    return ("static", type(value).__name__, value)
