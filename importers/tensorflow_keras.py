"""How a Keras functional model of several inputs is given its example inputs.

Keras calls such a model on one structure: a list (or tuple) in the order of
`model.inputs`, or a dict keyed by the input names (the keys of a dict-built model,
else the input tensors' names). `ivy_ir.compile(model, args=...)` takes that structure
as Keras does (`args=([a, b],)`, `args=({"a": a, "b": b},)`) and, as every other
source does, the inputs as positional arguments (`args=(a, b)`, which Keras itself
refuses). Each form imports as the same program: one IR input per model input, in
`model.inputs` order and named after it, so the compiled program is called as
`c(a, b)` or `c(a=..., b=...)`. Anything else is a `TypeError` naming the inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ivy_ir.core.graph import is_array


class ModelInputs:
    """A Keras model called with its inputs as positional arrays (in `names` order),
    in inference mode unless `training` is given."""

    def __init__(self, model: Any, names: list[str]):
        self.model = model
        self.names = names
        self.keyed = isinstance(model.input, Mapping)

    @property
    def variables(self) -> Any:
        return self.model.variables

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("training", False)
        structure = dict(zip(self.names, inputs)) if self.keyed else list(inputs)
        return self.model(structure, **kwargs)


def model_inputs(fn: Any, args: tuple[Any, ...]) -> tuple[ModelInputs, tuple[Any, ...]] | None:
    """For a Keras functional model of several inputs: the model as a function of
    positional arrays and the example arrays in its input order; None for any other
    callable (or a model of one input), which imports as it is."""
    try:  # `inputs` only on functional models; `input` raises on a model never built
        struct = fn.input if hasattr(fn, "inputs") else None
    except (AttributeError, ValueError):
        return None
    if not isinstance(struct, (Mapping, Sequence)) or len(struct) < 2:
        return None
    names = sorted(struct) if isinstance(struct, Mapping) else [t.name for t in struct]
    given: Any = args[0] if len(args) == 1 else list(args)
    if isinstance(given, Mapping) and set(given) >= set(names):
        flat = [given[n] for n in names]
    elif isinstance(given, Sequence) and not isinstance(given, str):
        flat = list(given)
    else:
        flat = []
    if len(flat) != len(names) or not all(is_array(a) for a in flat):
        raise TypeError(
            f"the Keras model '{fn.name}' takes {len(names)} inputs ({', '.join(names)}): "
            f"pass them as args=({', '.join(names)}), as one list args=([{', '.join(names)}],)"
            f" or as one dict keyed by those names; got {_describe(args)}")
    return ModelInputs(fn, names), tuple(flat)


def _describe(args: tuple[Any, ...]) -> str:
    def one(a: Any) -> str:
        if isinstance(a, Mapping):
            return "a dict with keys " + ", ".join(map(repr, a))
        if isinstance(a, (list, tuple)):
            return f"a {type(a).__name__} of {len(a)}"
        return "an array" if is_array(a) else type(a).__name__
    return f"{len(args)} argument(s): " + "; ".join(one(a) for a in args)
