"""`ivy.Container`: the nested dict of arrays that modules, gradients and optimizers pass.

A model's variables, their gradients and an optimizer's moments share one tree shape,
so one type carries all three and does leaf-wise arithmetic between them
(`v - lr * grads`). Key chains (`'linear0/w'`) name a leaf the way the 2021 paper's
`map(lambda x, kc: ...)` hands them out; they contain no '.', so they are also legal
`torch.nn.Module.register_parameter` names.

It is a `dict` subclass so that the frameworks' own tree utilities take it as they
are: `tf.nest` and `torch.utils._pytree` treat any mapping as a node, and JAX learns
it as a pytree node the first time a Container is built after JAX was imported
(`register_with_jax`), so `jax.grad` and `jax.tree_util` accept it too.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any

import lowerings

from .agnostic import FUNCTIONS

SEPARATOR = "/"


class Container(dict):
    """A nested dict with attribute access (`c.anchors`), key chains (`c['a/b']`),
    `map(fn)` with the key chain passed, and leaf-wise arithmetic."""

    def __init__(self, data: Any = None, /, **entries: Any):
        super().__init__()
        if "jax" in sys.modules:
            register_with_jax()
        items = dict(data or {}, **entries)
        for key, value in items.items():
            self[key] = value

    # ---- access ----
    def __getattribute__(self, name: str) -> Any:
        """Keys first, except the names of Container's own attributes (a key `map` does
        not hide the method). A `__getattr__` alone finds a key only after Python has
        raised and caught an AttributeError: ~0.6 us a read, 4x this, and a module's
        forward reads every weight so (`self.v.w`)."""
        if name not in _OWN:
            try:
                return dict.__getitem__(self, name)
            except KeyError:
                pass
        return object.__getattribute__(self, name)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"Container has no key '{name}' (keys: "
                             f"{', '.join(map(str, self)) or 'none'})")

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str) and SEPARATOR in key:
            node: Any = self
            for part in key.split(SEPARATOR):
                if not isinstance(node, Mapping) or part not in node:
                    raise KeyError(f"no key chain '{key}' (missing '{part}')")
                node = node[part]
            return node
        return dict.__getitem__(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, Mapping) and not isinstance(value, Container):
            value = Container(value)
        if isinstance(key, str) and SEPARATOR in key:
            head, _, rest = key.partition(SEPARATOR)
            child = self.get(head)
            if child is None:
                child = Container()
                dict.__setitem__(self, head, child)
            elif not isinstance(child, Container):
                raise KeyError(f"key chain '{key}': '{head}' is a leaf, not a container")
            child[rest] = value
            return
        dict.__setitem__(self, key, value)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and SEPARATOR in key:
            try:
                self[key]
            except KeyError:
                return False
            return True
        return dict.__contains__(self, key)

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *(k for k in self if isinstance(k, str))]

    def __repr__(self) -> str:
        return f"Container({dict.__repr__(self)})"

    def __reduce__(self) -> Any:
        return (Container, (self.to_dict(),))

    def copy(self) -> Container:
        """A new tree of containers holding the same leaves."""
        return self.map(lambda x, kc: x)

    # ---- traversal ----
    def map(self, fn: Callable[[Any, str], Any], key_chain: str = "") -> Container:
        """A container of the same shape with `fn(leaf, key_chain)` at every leaf."""
        out = Container()
        for key, value in self.items():
            chain = f"{key_chain}{SEPARATOR}{key}" if key_chain else str(key)
            dict.__setitem__(out, key, value.map(fn, chain) if isinstance(value, Container)
                             else fn(value, chain))
        return out

    def key_chains(self) -> list[str]:
        return list(self.flatten())

    def leaves(self) -> list[Any]:
        return list(self.flatten().values())

    def flatten(self) -> dict[str, Any]:
        """{key chain: leaf}, depth first in insertion order."""
        flat: dict[str, Any] = {}
        _flatten_into(flat, self, "")
        return flat

    @classmethod
    def unflatten(cls, flat: Mapping[str, Any]) -> Container:
        """The container whose `flatten()` is `flat`."""
        out = cls()
        for chain, leaf in flat.items():
            out[chain] = leaf
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain nested dicts: the tree torch's `load_state_dict`-style code and
        serializers expect."""
        return {k: v.to_dict() if isinstance(v, Container) else v for k, v in self.items()}

    def to_numpy(self) -> Container:
        return self.map(lambda x, kc: FUNCTIONS["to_numpy"](x))

    # ---- leaf-wise arithmetic ----
    def _leafwise(self, other: Any, op: Callable[[Any, Any], Any]) -> Container:
        if not isinstance(other, Mapping):
            return self.map(lambda x, kc: op(x, other))
        theirs, mine = leaves_of(other), self.flatten()
        if mine.keys() != theirs.keys():
            missing = sorted(mine.keys() ^ theirs.keys())
            raise ValueError("Containers of different structure in a leaf-wise operation: "
                             f"key chains {', '.join(missing[:5])} are in only one of them")
        return self.map(lambda x, kc: op(x, theirs[kc]))

    def __neg__(self) -> Container:
        return self.map(lambda x, kc: -x)

    def __abs__(self) -> Container:
        return self.map(lambda x, kc: abs(x))


def leaves_of(tree: Any) -> dict[str, Any]:
    """{key chain: leaf} of a container (or any mapping), {'': tree} for one array: the
    flat form in which gradients and optimizers go over the leaves."""
    if isinstance(tree, Container):  # before the slower test against the Mapping ABC
        return tree.flatten()
    return Container(tree).flatten() if isinstance(tree, Mapping) else {"": tree}


def leaf_values(tree: Any) -> list[Any]:
    """`leaves_of(tree)`'s values without joining their key chains (a gradient call
    needs only the arrays)."""
    if not isinstance(tree, Container):
        if not isinstance(tree, Mapping):
            return [tree]
        tree = Container(tree)
    out: list[Any] = []
    _values_into(out, tree)
    return out


def _values_into(out: list[Any], tree: Container) -> None:
    for value in dict.values(tree):
        if isinstance(value, Container):
            _values_into(out, value)
        else:
            out.append(value)


def rebuilt(like: Any, leaves: Iterable[Any]) -> Any:
    """`like`'s structure (empty sub-containers included, which `unflatten` would lose)
    holding `leaves`, given in `leaves_of(like)`'s order; the single leaf for one array.
    Filling by position, not by key chain, keeps a training step from re-joining every
    chain each time it rebuilds the weights and the gradients."""
    values = iter(leaves)
    if "jax" in sys.modules:  # what Container() does; _refilled builds them bare
        register_with_jax()
    if isinstance(like, Container):
        return _refilled(like, values)
    return _refilled(Container(like), values) if isinstance(like, Mapping) else next(values)


def _flatten_into(flat: dict[str, Any], tree: Container, prefix: str) -> None:
    for key, value in tree.items():
        chain = f"{prefix}{key}"
        if isinstance(value, Container):
            _flatten_into(flat, value, chain + SEPARATOR)
        else:
            flat[chain] = value


def _refilled(tree: Container, values: Iterator[Any]) -> Container:
    out = dict.__new__(Container)  # keys and values already checked: no __init__
    dict.update(out, {key: _refilled(value, values) if isinstance(value, Container)
                      else next(values) for key, value in dict.items(tree)})
    return out


def _binary(op: Callable[[Any, Any], Any], reflected: bool) -> Callable[[Container, Any], Any]:
    if reflected:
        return lambda self, other: self._leafwise(other, lambda a, b: op(b, a))
    return lambda self, other: self._leafwise(other, op)


for _name, _op in {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                   "truediv": operator.truediv, "floordiv": operator.floordiv,
                   "pow": operator.pow, "mod": operator.mod}.items():
    setattr(Container, f"__{_name}__", _binary(_op, False))
    setattr(Container, f"__r{_name}__", _binary(_op, True))


_OWN = frozenset(dir(Container))
"""The attribute names Container's class defines (its methods, dict's, the operators)."""


@cache
def register_with_jax() -> None:
    """Make Container a JAX pytree node (once per process; JAX keeps the registry).
    Leaves flatten in key order; the key chain parts are the pytree keys."""
    lowerings.get_runtime("jax").register_mapping(Container)
