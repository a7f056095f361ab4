"""KV caches of `transformers` as inputs and outputs of a compiled decoder step.

torch.export takes tensors and registered containers; an HF cache object
(`DynamicCache`, `StaticCache`) is neither, and a decoder returns one by default. So a
call that involves a cache is exported through `CacheStep`, a module whose inputs are
the call's tensors, flat: it rebuilds the user's call (each cache a fresh object of the
user's kind holding the traced tensors), calls the model, and returns the tensors of
its result, flat. `CallTree` records both structures, and the compiled call uses it to
take and give back the user's objects (`ivy_ir.compiled`):

- a cache argument is a `DynamicCache` or `StaticCache` of full-attention layers, or
  the legacy tuple `((key, value), ...)` one pair per layer (any framework's arrays:
  the form a JAX loop carries). Its kind (dynamic or static) is the program's: a
  legacy tuple of a static program's arrays runs as that static cache.
- a cache in the result comes back as the object passed for it, updated in place (as
  the model itself does), or, where the argument was a tuple, as a new tuple; a cache
  the model made itself (no `past_key_values` given) is a `DynamicCache` where its
  arrays are torch tensors and a legacy tuple elsewhere.
- the model's `ModelOutput` comes back as its tuple (`return_dict=False`'s form), so a
  step reads `logits, cache = c(ids, past_key_values=cache)` on every target.

Another structure than the traced one (a cache of another length or layer count, the
first step's empty cache) is a new program, traced on demand as other shapes are.
Cache kinds whose update is not a plain concatenation or slot write (sliding windows,
quantized, offloaded, encoder-decoder caches) are refused by name.
"""

from __future__ import annotations

import copy
import inspect
import sys
from dataclasses import dataclass
from typing import Any

import torch

from ivy_ir.core.errors import TraceError

from .torch_capture import FunctionModule, to_torch

CACHE_ARGUMENT = "past_key_values"
"""The parameter by which every `transformers` decoder takes its cache; a tuple passed
by this name is read as the legacy cache form."""


@dataclass(frozen=True)
class Node:
    """One place of a call's or result's structure, by `kind`: `leaf` (a tensor),
    `none`, `tuple`, `list`, `dict` (`keys`), or `cache`: `layers` (key, value) pairs,
    `cache` the cache class (None: the legacy tuple), `source` the argument slot a
    result's cache came in by."""

    kind: str
    children: tuple[Node, ...] = ()
    keys: tuple[Any, ...] = ()
    cache: Any = None
    layers: int = 0
    source: int | None = None


LEAF = Node("leaf")


def _caches() -> dict[type, type]:
    """Supported cache class -> its one layer class (transformers is imported already
    when a cache object exists)."""
    from transformers import cache_utils as cu  # loaded already: a cache object exists
    return {cu.DynamicCache: cu.DynamicLayer, cu.StaticCache: cu.StaticLayer}


def _is_cache(value: Any) -> bool:
    utils = sys.modules.get("transformers.cache_utils")
    return utils is not None and isinstance(value, utils.Cache)


def _checked(cache: Any) -> Any:
    layer = _caches().get(type(cache))
    odd = [] if layer is None else [type(x).__name__ for x in cache.layers if type(x) is not layer]
    if layer is None or odd or getattr(cache, "offloading", False):
        what = f" with {', '.join(sorted(set(odd)))} layers" if odd else \
            " with offloading" if layer is not None else ""
        raise TraceError(
            f"{CACHE_ARGUMENT}: {type(cache).__name__}{what} is not supported as an input or "
            "output of a compiled program; pass a DynamicCache or a StaticCache of full-attention "
            "layers, or the legacy tuple ((key, value) per layer), or compile without the "
            "cache: kwargs={'use_cache': False}")
    if len({x.is_initialized for x in cache.layers}) > 1:
        raise TraceError(f"{CACHE_ARGUMENT}: the {type(cache).__name__} has both filled and "
                         "unfilled layers; pass it empty or filled")
    return cache


def _pairs(value: Any) -> list[tuple[Any, Any]]:
    """The (key, value) pair of each filled layer (an empty cache has none: the model
    fills it in its first step)."""
    if _is_cache(value):
        return [(x.keys, x.values) for x in value.layers if x.is_initialized]
    return [tuple(p) for p in value]


def _legacy(name: str, value: Any) -> bool:
    return name == CACHE_ARGUMENT and isinstance(value, (tuple, list))


def structure(value: Any, name: str = "") -> Node:
    """The node of an example argument (`past_key_values` tuples are caches)."""
    if _is_cache(value):
        return Node("cache", cache=type(_checked(value)), layers=len(_pairs(value)))
    if _legacy(name, value):
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 and
                   all(isinstance(t, torch.Tensor) for t in p) for p in value):
            raise TraceError(f"{CACHE_ARGUMENT}: a legacy cache is a tuple of (key, value) "
                             "tensor pairs, one per layer")
        return Node("cache", layers=len(value))
    if isinstance(value, (tuple, list)):
        return Node(type(value).__name__, tuple(structure(v, name) for v in value))
    if isinstance(value, dict):
        return Node("dict", tuple(structure(v, name) for v in value.values()), tuple(value))
    if isinstance(value, torch.Tensor):
        return LEAF
    if value is None:
        return Node("none")
    raise TraceError(f"argument '{name}' holds a {type(value).__name__} beside tensors; a "
                     "structured argument holds tensors (or None) only")


def flatten(node: Node, value: Any) -> list[Any] | None:
    """The tensors of `value` in `node`'s order; None where `value` has another
    structure (a new program)."""
    if node.kind == "leaf":
        return None if value is None or isinstance(value, (tuple, list, dict)) else [value]
    if node.kind == "none":
        return [] if value is None else None
    if node.kind == "cache":
        if _is_cache(value) and type(value) is not node.cache:
            return None
        pairs = [] if value is None else _pairs(value) if _is_cache(value) or \
            isinstance(value, (tuple, list)) else None
        if pairs is None or len(pairs) != node.layers or any(len(p) != 2 for p in pairs):
            return None
        return [t for p in pairs for t in p]
    if node.kind == "dict":
        items = list(value.values()) if isinstance(value, dict) and \
            tuple(value) == node.keys else None
    else:
        items = list(value) if isinstance(value, (tuple, list)) else None
    if items is None or len(items) != len(node.children):
        return None
    out: list[Any] = []
    for child, item in zip(node.children, items):
        leaves = flatten(child, item)
        if leaves is None:
            return None
        out += leaves
    return out


def _fill(cache: Any, pairs: list[tuple[Any, Any]]) -> Any:
    """`cache` holding `pairs`, one per layer (layers added as the model adds them)."""
    while len(cache.layers) < len(pairs):
        cache.layers.append(cache.layer_class_to_replicate())
    for layer, (k, v) in zip(cache.layers, pairs):
        if not layer.is_initialized:
            layer.lazy_initialization(k)
        layer.keys, layer.values = k, v
    return cache


def _like(example: Any, pairs: list[tuple[Any, Any]]) -> Any:
    """A new cache of `example`'s kind and layer kinds (a StaticCache's length) holding
    `pairs`; with none it is empty, for the model's first step to fill."""
    cache = copy.copy(example)
    cache.layers = []
    for layer in example.layers:
        fresh = copy.copy(layer)
        fresh.keys = fresh.values = None
        fresh.is_initialized = False
        cache.layers.append(fresh)
    return _fill(cache, pairs)


@dataclass
class Slot:
    """An argument holding tensors: its parameter name, its place in the traced call
    (position or keyword) and its structure."""

    name: str
    place: int | str
    node: Node
    example: Any
    optional: bool = False
    """The cache a model makes itself when given none: the call may leave it out."""


@dataclass
class CallTree:
    """How a call's arguments become the program's flat inputs and its flat results the
    user's structure (see the module docstring). Static arguments stay the traced ones."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    slots: list[Slot]
    output: Node = LEAF

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """One value per slot: positional arguments in slot order, then by name."""
        if len(args) > len(self.slots):
            raise TypeError(f"the compiled program takes {len(self.slots)} inputs "
                            f"({', '.join(s.name for s in self.slots)}), got {len(args)}")
        values = dict(zip((s.name for s in self.slots), args))
        for key, value in kwargs.items():
            if key in values or key not in {s.name for s in self.slots}:
                raise TypeError(f"unexpected keyword argument '{key}'; the compiled program's "
                                f"inputs are ({', '.join(s.name for s in self.slots)})")
            values[key] = value
        missing = [s.name for s in self.slots if s.name not in values and not s.optional]
        if missing:
            raise TypeError(f"missing input(s) {', '.join(missing)}")
        return [values.get(s.name) for s in self.slots]

    def flatten(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The program's inputs for this call, or None for another structure."""
        out: list[Any] = []
        for slot, value in zip(self.slots, self.bind(args, kwargs)):
            leaves = flatten(slot.node, value)
            if leaves is None:
                return None
            out += leaves
        return out

    def examples(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The traced call with this call's values in the slots (torch tensors), to
        trace a program for a new structure or shape."""
        values = [to_torch(v) for v in self.bind(args, kwargs)]
        for i, slot in enumerate(self.slots):
            if slot.node.cache is not None and isinstance(values[i], (tuple, list)):
                # a legacy tuple for a cache traced as an object keeps that kind (the
                # arrays of a JAX loop over a StaticCache program)
                values[i] = _like(slot.example, [tuple(p) for p in values[i]])
        return self._placed(values)

    def _placed(self, values: list[Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = list(self.args), dict(self.kwargs)
        for slot, value in zip(self.slots, values):
            if isinstance(slot.place, int):
                args[slot.place] = value
            else:
                kwargs[slot.place] = value
        return tuple(args), kwargs

    def unflatten(self, outs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The result in the user's structure; caches as passed (see the docstring)."""
        given = self.bind(args, kwargs)
        leaves = iter(outs if isinstance(outs, (tuple, list)) else (outs,))
        return self._build(self.output, leaves, given)

    def _build(self, node: Node, leaves: Any, given: list[Any]) -> Any:
        if node.kind == "leaf":
            return next(leaves)
        if node.kind == "none":
            return None
        if node.kind == "cache":
            pairs = [(next(leaves), next(leaves)) for _ in range(node.layers)]
            user = given[node.source] if node.source is not None else None
            if _is_cache(user):
                return _fill(user, pairs)
            if user is None and pairs and isinstance(pairs[0][0], torch.Tensor) and \
                    node.cache is not None:
                return _fill(node.cache(), pairs)
            return tuple(pairs)
        items = [self._build(c, leaves, given) for c in node.children]
        if node.kind == "dict":
            return dict(zip(node.keys, items))
        return items if node.kind == "list" else tuple(items)

    def rebuild(self, leaves: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any],
                                                         dict[int, int]]:
        """Inside the trace: the call with fresh caches around the traced tensors, and
        which slot each cache object came by (`id` -> slot)."""
        it = iter(leaves)
        values, sources = [], {}
        for i, slot in enumerate(self.slots):
            value = self._fresh(slot.node, slot.example, it)
            if slot.node.kind == "cache":
                sources[id(value)] = i
            values.append(value)
        args, kwargs = self._placed(values)
        return args, kwargs, sources

    def _fresh(self, node: Node, example: Any, it: Any) -> Any:
        if node.kind == "leaf":
            return next(it)
        if node.kind == "none":
            return None
        if node.kind == "cache":
            # clones: a StaticCache writes its slots in place, which must not reach
            # the program's inputs
            pairs = [(next(it).clone(), next(it).clone()) for _ in range(node.layers)]
            return _like(example if _is_cache(example) else _new_dynamic_cache(), pairs)
        items = [self._fresh(c, e, it) for c, e in
                 zip(node.children, example.values() if node.kind == "dict" else example)]
        if node.kind == "dict":
            return dict(zip(node.keys, items))
        return items if node.kind == "list" else tuple(items)


def _new_dynamic_cache(config: Any = None) -> Any:
    from transformers.cache_utils import DynamicCache  # the model is a transformers one
    return DynamicCache(config=config)


def _result(value: Any, sources: dict[int, int]) -> tuple[Node, list[Any]]:
    """A model's result as (structure, tensors): a `ModelOutput` as its tuple, a cache
    as its pairs, naming the argument slot it came in by."""
    if _is_cache(value):
        pairs = _pairs(_checked(value))
        return Node("cache", cache=type(value), layers=len(pairs),
                    source=sources.get(id(value))), [t for p in pairs for t in p]
    if isinstance(value, torch.Tensor):
        return LEAF, [value]
    if value is None:
        return Node("none"), []
    to_tuple = getattr(value, "to_tuple", None)
    if callable(to_tuple) and type(value).__module__.startswith("transformers."):
        value = to_tuple()
    if isinstance(value, (tuple, list, dict)):
        items = list(value.values()) if isinstance(value, dict) else list(value)
        parts = [_result(v, sources) for v in items]
        kind = "dict" if isinstance(value, dict) else type(value).__name__
        if kind not in ("dict", "list"):
            kind = "tuple"
        return Node(kind, tuple(p[0] for p in parts),
                    tuple(value) if isinstance(value, dict) else ()), \
            [t for p in parts for t in p[1]]
    raise TraceError(f"the model returned a {type(value).__name__}, which a compiled "
                     "program cannot return")


class CacheStep(torch.nn.Module):
    """The model called with its caches rebuilt from flat tensors and its result
    returned as flat tensors (the module docstring says why). The model is the child
    `model`: its state names lose that prefix again on import."""

    def __init__(self, model: torch.nn.Module, tree: CallTree):
        super().__init__()
        self.model = model
        self.tree = tree

    def forward(self, *leaves: Any) -> tuple[Any, ...]:
        args, kwargs, sources = self.tree.rebuild(leaves)
        node, flat = _result(self.model(*args, **kwargs), sources)
        self.tree.output = node
        return tuple(flat)


def cache_step(module: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[CacheStep, tuple[Any, ...], list[str]] | None:
    """`(step, flat inputs, their names)` where the call involves a KV cache: a cache
    argument, or a `transformers` model that makes one (generation with its cache on).
    None otherwise (the call is exported as it is)."""
    forward = module.fn if isinstance(module, FunctionModule) else module.forward
    try:
        params = list(inspect.signature(forward).parameters)
    except (TypeError, ValueError):
        params = []
    named = [(params[i] if i < len(params) else f"arg{i}", i, a) for i, a in enumerate(args)]
    named += [(k, k, v) for k, v in kwargs.items()]
    given = any(_is_cache(v) or _legacy(n, v) for n, _, v in named)
    makes = CACHE_ARGUMENT in params and kwargs.get("use_cache") is not False and \
        getattr(getattr(module, "config", None), "use_cache", False) and \
        callable(getattr(module, "can_generate", None)) and module.can_generate()
    if not (given or makes):
        return None
    slots = [Slot(n, p, structure(v, n), v) for n, p, v in named
             if _is_cache(v) or _legacy(n, v) or any(isinstance(t, torch.Tensor)
                                                    for t in torch.utils._pytree.tree_leaves(v))]
    if makes and not any(s.name == CACHE_ARGUMENT for s in slots):
        place = next((p for n, p, _ in named if n == CACHE_ARGUMENT), CACHE_ARGUMENT)
        empty = _new_dynamic_cache(getattr(module, "config", None))  # as the model makes it
        slots.append(Slot(CACHE_ARGUMENT, place, Node("cache", cache=type(empty)), empty, True))
    tree = CallTree(tuple(args), dict(kwargs), slots)
    leaves, names = [], []
    for slot in slots:
        flat = flatten(slot.node, slot.example)
        assert flat is not None  # the structure was read off this very value
        leaves += flat
        names += _leaf_names(slot.node, slot.name)
    return CacheStep(module, tree), tuple(leaves), names


def _leaf_names(node: Node, name: str) -> list[str]:
    if node.kind == "leaf":
        return [name]
    if node.kind == "cache":
        return [f"{name}.{i}.{part}" for i in range(node.layers) for part in ("key", "value")]
    labels = node.keys if node.kind == "dict" else range(len(node.children))
    return [n for c, k in zip(node.children, labels) for n in _leaf_names(c, f"{name}.{k}")]
