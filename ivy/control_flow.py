"""The facade's functional control flow: `ivy.cond`, `ivy.while_loop`, `ivy.scan` and
`ivy.fori_loop`, with JAX's signatures.

Python's own `if` and `while` cannot branch on a traced array (its truth value is not
known while tracing), so a branch or loop whose course depends on data is written as
functions, which the facade can run in whichever way the arguments call for:
- eagerly on NumPy, torch or TensorFlow arrays, each is the Python statement it stands
  for (only the branch taken runs, so only tracing checks the other one);
- on JAX (JAX arrays, or the JAX backend set), each is `jax.lax`'s own, so it keeps
  working under `jax.jit`, where Python could not branch either;
- traced (`ivy_ir.trace`/`ivy_ir.compile`), each function is recorded once into a
  region of an `ivy.cond`/`ivy.while_loop`/`ivy.scan` op (`ivy_ir.core.control`),
  called on tracers of the region's arguments; a predicate known while tracing (a
  Python bool) just picks its branch, as Python would.

A loop whose carry holds no tracer but whose body reads traced values from outside (a
closure's weights) runs eagerly until its carry becomes traced, then records the rest
as one op: at most one step is unrolled, and the results are the same.

Operands, carries, slices and outputs may be arrays or nested tuples, lists and dicts
of arrays (None holds no array), as JAX's pytrees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

import lowerings
from ivy_ir.core.control import emit_cond, emit_scan, emit_while
from ivy_ir.core.graph import Graph
from ivy_ir.core.tracer import Tracer, scalar_dtype
from ivy_ir.dialect import TensorSpec

from .agnostic import FUNCTIONS as AGNOSTIC
from .backend import selected

LEAF = "array"
"""The structure of a single array (see `flatten`)."""


# ---- nested structures of arrays ----

def flatten(tree: Any) -> tuple[list[Any], Any]:
    """The arrays of `tree`, in order, and its structure (what `unflatten` rebuilds)."""
    if tree is None:
        return [], None
    if isinstance(tree, (tuple, list, Mapping)):
        leaves, kids = [], []
        for item in (tree.values() if isinstance(tree, Mapping) else tree):
            sub, kid = flatten(item)
            leaves += sub
            kids.append(kid)
        keys = tuple(tree) if isinstance(tree, Mapping) else None
        return leaves, (type(tree), keys, tuple(kids))
    return [tree], LEAF


def unflatten(structure: Any, leaves: list[Any]) -> Any:
    return _rebuild(structure, iter(leaves))


def _rebuild(structure: Any, leaves: Iterator[Any]) -> Any:
    if structure is None:
        return None
    if structure == LEAF:
        return next(leaves)
    cls, keys, kids = structure
    items = [_rebuild(kid, leaves) for kid in kids]
    if keys is not None:
        return cls(dict(zip(keys, items)))
    return cls(*items) if hasattr(cls, "_fields") else cls(items)  # a namedtuple's fields


def show(structure: Any) -> str:
    """A structure as errors name it: `(array, [array, None])`."""
    if structure is None or structure == LEAF:
        return str(structure)
    cls, keys, kids = structure
    inner = [show(k) if keys is None else f"{key!r}: {show(k)}"
             for key, k in zip(keys or kids, kids)]
    if keys is not None:
        return "{" + ", ".join(inner) + "}"
    if issubclass(cls, list):
        return "[" + ", ".join(inner) + "]"
    return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


# ---- which way a call runs ----

def _graph_of(*trees: Any) -> Graph | None:
    """The graph being traced into, if any array of `trees` is a tracer."""
    for tree in trees:
        for leaf in flatten(tree)[0]:
            if isinstance(leaf, Tracer):
                return leaf.graph
    return None


def _on_jax(*trees: Any) -> bool:
    """Whether to use `jax.lax`: the JAX backend is set or an array is JAX's (perhaps
    a `jax.jit` tracer, on which Python control flow would fail)."""
    return selected() == "jax" or any(type(leaf).__module__.partition(".")[0] in (
        "jax", "jaxlib") for tree in trees for leaf in flatten(tree)[0])


def _lax() -> Any:
    """`jax.lax`, reached through the JAX runtime (the facade touches frameworks only
    through the lowerings; JAX is already loaded here: a JAX array or the JAX backend
    brought the call)."""
    return lowerings.get_runtime("jax").lax


def _truth(pred: Any, fn: str) -> bool:
    """An eager predicate's truth value, which must be a scalar's."""
    shape = tuple(getattr(pred, "shape", ()))
    if shape:
        raise TypeError(f"ivy.{fn}: the predicate must be a scalar, got shape {shape}")
    return bool(pred)


# ---- recording regions ----

def _lift(graph: Graph, v: Any, dtype: str | None = None) -> SSAValue:
    """The SSA value of a tracer, or of an array or Python scalar (which takes `dtype`,
    where given, else its default) met while recording."""
    if isinstance(v, Tracer):
        return v.value
    if isinstance(v, (bool, int, float, complex)):
        return graph.lift(v, dtype or scalar_dtype(v))
    return graph.lift(v)


def _spec(value: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(value.type)


def _tracers(graph: Graph, structure: Any, values: list[SSAValue]) -> Any:
    return unflatten(structure, [Tracer(v, graph) for v in values])


def _matching(graph: Graph, out: Any, structure: Any, specs: list[TensorSpec], who: str,
              what: str) -> list[SSAValue]:
    """What a region yields for `out`, which must have `structure` and `specs` (`who`
    returns it where `what` ... does: the two halves of the error message)."""
    leaves, got = flatten(out)
    if got != structure:
        raise TypeError(f"{who} returns {show(got)} where {what} {show(structure)}")
    values = [_lift(graph, v, s.dtype) for v, s in zip(leaves, specs)]
    for i, (v, want) in enumerate(zip(values, specs)):
        if _spec(v) != want:
            raise TypeError(f"{who} returns {_spec(v)} as array {i} where {what} {want}")
    return values


def _traced_cond(pred: Tracer, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
                 operands: tuple[Any, ...]) -> Any:
    graph = pred.graph
    if pred.ndim != 0:
        raise TypeError(f"ivy.cond: the predicate must be a scalar, got {pred.spec}")
    if pred.dtype.startswith(("int", "uint")):
        pred = pred != 0
    elif pred.dtype != "bool":
        raise TypeError(f"ivy.cond: the predicate must be a bool or an integer, got {pred.spec}")
    leaves, structure = flatten(operands)
    first: dict[str, Any] = {}

    def branch(fn: Callable[..., Any]) -> Callable[[list[SSAValue]], list[SSAValue]]:
        def body(args: list[SSAValue]) -> list[SSAValue]:
            out = fn(*_tracers(graph, structure, args))
            if first:
                return _matching(graph, out, first["structure"], first["specs"],
                                 "ivy.cond: false_fn", "true_fn returns")
            got, first["structure"] = flatten(out)
            values = [_lift(graph, v) for v in got]
            first["specs"] = [_spec(v) for v in values]
            return values
        return body

    results = emit_cond(graph, pred.value, [_lift(graph, v) for v in leaves], branch(true_fn),
                        branch(false_fn))
    return _tracers(graph, first["structure"], results)


def _traced_while(graph: Graph, cond_fn: Callable[[Any], Any], body_fn: Callable[[Any], Any],
                  init_val: Any) -> Any:
    leaves, structure = flatten(init_val)
    inputs = [_lift(graph, v) for v in leaves]
    specs = [_spec(v) for v in inputs]

    def cond(args: list[SSAValue]) -> list[SSAValue]:
        keep = _lift(graph, cond_fn(_tracers(graph, structure, args)))
        if _spec(keep) != TensorSpec((), "bool"):
            raise TypeError(f"ivy.while_loop: cond_fn must return a bool scalar, returns "
                            f"{_spec(keep)}")
        return [keep]

    def body(args: list[SSAValue]) -> list[SSAValue]:
        return _matching(graph, body_fn(_tracers(graph, structure, args)), structure, specs,
                         "ivy.while_loop: body_fn", "the carry is")

    return _tracers(graph, structure, emit_while(graph, inputs, cond, body))


def _traced_scan(graph: Graph, f: Callable[[Any, Any], Any], init: Any, xs: Any,
                 length: int, reverse: bool, unroll: int) -> tuple[Any, Any]:
    carry_leaves, carry_tree = flatten(init)
    x_leaves, x_tree = flatten(xs)
    carry = [_lift(graph, v) for v in carry_leaves]
    specs = [_spec(v) for v in carry]
    n = len(carry)
    ys: dict[str, Any] = {}

    def body(args: list[SSAValue]) -> list[SSAValue]:
        new, y = _pair(f(_tracers(graph, carry_tree, args[:n]),
                         _tracers(graph, x_tree, args[n:])))
        values = _matching(graph, new, carry_tree, specs, "ivy.scan: f", "the carry is")
        y_leaves, ys["structure"] = flatten(y)
        return values + [_lift(graph, v) for v in y_leaves]

    out = emit_scan(graph, carry, [_lift(graph, x) for x in x_leaves], body, length, reverse,
                    unroll)
    return _tracers(graph, carry_tree, out[:n]), _tracers(graph, ys["structure"], out[n:])


def _pair(out: Any) -> tuple[Any, Any]:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"ivy.scan: f must return a pair (carry, y), returns "
                        f"{show(flatten(out)[1])}")
    return out[0], out[1]


# ---- eager scans ----

def _length(xs: list[Any], length: int | None) -> int:
    """The scan's length: `length`, which every leading axis of `xs` must match."""
    sizes = set()
    for x in xs:
        shape = tuple(getattr(x, "shape", ()))
        if not shape:
            raise ValueError("ivy.scan: every array of xs needs a leading axis to scan along")
        sizes.add(shape[0])
    known = sizes - {None}
    if length is None:
        if len(known) != 1 or None in sizes:
            raise ValueError("ivy.scan: give the length, or xs with one static leading "
                             f"axis length (got {sorted(sizes, key=str) or 'no xs'})")
        return int(known.pop())
    if known - {length}:
        raise ValueError(f"ivy.scan: length={length} but xs have leading axes of "
                         f"{sorted(known)}")
    return int(length)


def _stacked(ys: list[Any], reverse: bool) -> Any:
    """The per-step outputs `ys` (in the order the steps ran), each array stacked along
    a new leading axis in the order of xs."""
    if not ys:
        raise ValueError("ivy.scan: a scan of length 0 runs f on nothing, so eagerly its ys "
                         "have no known shape; trace or compile it, or run it on JAX")
    structure = flatten(ys[0])[1]
    columns: list[list[Any]] = [[] for _ in flatten(ys[0])[0]]
    for y in ys[::-1] if reverse else ys:
        leaves, got = flatten(y)
        if got != structure:
            raise TypeError(f"ivy.scan: f returns y as {show(structure)} at one step and "
                            f"as {show(got)} at another")
        for column, leaf in zip(columns, leaves):
            column.append(leaf)
    on = None if _graph_of(columns) else selected()  # tracers pick the tracing functions
    return unflatten(structure, [AGNOSTIC["stack"](c, axis=0, f=on) for c in columns])


def _eager_scan(f: Callable[[Any, Any], Any], init: Any, xs: Any, length: int, reverse: bool,
                unroll: int) -> tuple[Any, Any]:
    x_leaves, x_tree = flatten(xs)
    carry, ys = init, []
    for done, i in enumerate(range(length - 1, -1, -1) if reverse else range(length)):
        graph = _graph_of(carry)
        if graph is not None:  # f read traced values: record the steps left as one scan
            rest = unflatten(x_tree, [x[:i + 1] if reverse else x[i:] for x in x_leaves])
            carry, tail = _traced_scan(graph, f, carry, rest, length - done, reverse, unroll)
            if not ys:
                return carry, tail
            parts = (tail, _stacked(ys, reverse)) if reverse else (_stacked(ys, reverse), tail)
            joined = [AGNOSTIC["concat"](list(p), axis=0)
                      for p in zip(*(flatten(part)[0] for part in parts))]
            return carry, unflatten(flatten(tail)[1], joined)
        carry, y = _pair(f(carry, unflatten(x_tree, [x[i, ...] for x in x_leaves])))
        ys.append(y)
    return carry, _stacked(ys, reverse)


# ---- the facade functions ----

def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         *operands: Any) -> Any:
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`; both must return the
    same structure of arrays of the same types (checked where both are traced)."""
    if isinstance(pred, Tracer):
        return _traced_cond(pred, true_fn, false_fn, operands)
    if _graph_of(operands) is None and _on_jax(pred, operands):
        return _lax().cond(pred, true_fn, false_fn, *operands)
    return true_fn(*operands) if _truth(pred, "cond") else false_fn(*operands)


def while_loop(cond_fn: Callable[[Any], Any], body_fn: Callable[[Any], Any],
               init_val: Any) -> Any:
    """`val = body_fn(val)` from `init_val` while `cond_fn(val)`; returns the last `val`.
    `body_fn` must keep the carry's structure and types."""
    if _graph_of(init_val) is None and _on_jax(init_val):
        return _lax().while_loop(cond_fn, body_fn, init_val)
    val = init_val
    while True:
        graph = _graph_of(val)
        keep = cond_fn(val) if graph is None else None
        if isinstance(keep, Tracer):
            graph = keep.graph  # cond_fn read traced values: the loop's course is traced
        if graph is not None:
            return _traced_while(graph, cond_fn, body_fn, val)
        if not _truth(keep, "while_loop"):
            return val
        val = body_fn(val)


def scan(f: Callable[[Any, Any], Any], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int = 1) -> tuple[Any, Any]:
    """`(carry, y) = f(carry, x)` for each slice `x` of `xs` along its leading axis (from
    the last with `reverse`); returns the final carry and the `y`s stacked along a new
    leading axis in the order of `xs`. With `xs=None`, `f` gets None `length` times."""
    n = _length(flatten(xs)[0], length)
    graph = _graph_of(init, xs)
    if graph is not None:
        return _traced_scan(graph, f, init, xs, n, reverse, unroll)
    if _on_jax(init, xs):
        return _lax().scan(f, init, xs, n, reverse, unroll)
    return _eager_scan(f, init, xs, n, reverse, unroll)


def fori_loop(lower: Any, upper: Any, body_fn: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """`val = body_fn(i, val)` for `i` in `range(lower, upper)`; returns the last `val`.
    Traced, static bounds make a scan with no xs and traced ones a while loop."""
    graph = _graph_of(lower, upper)
    if graph is not None:
        bound = lower if isinstance(lower, Tracer) else upper
        start = lower if bound is lower else np.asarray(lower, dtype=bound.dtype)
        return _traced_while(graph, lambda c: c[0] < upper,
                             lambda c: (c[0] + 1, body_fn(*c)), (start, init_val))[1]
    if _on_jax(lower, upper, init_val):
        return _lax().fori_loop(lower, upper, body_fn, init_val)
    val, stop = init_val, int(upper)
    for i in range(int(lower), stop):
        graph = _graph_of(val)
        if graph is not None:  # body_fn read traced values: record the steps left
            return _traced_scan(graph, _counting(body_fn), (i, val), None, stop - i, False,
                                1)[0][1]
        val = body_fn(i, val)
    return val


def _counting(body_fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`fori_loop`'s body as a scan's: the counter goes in the carry."""
    def step(carry: Any, _: Any) -> tuple[Any, None]:
        i, val = carry
        return (i + 1, body_fn(i, val)), None
    return step


EXPORTS = {"cond": cond, "while_loop": while_loop, "scan": scan, "fori_loop": fori_loop}
"""What the `ivy` module holds of this module, whatever backend is set."""
