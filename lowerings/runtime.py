"""How a target's generated function meets its user: parameters, inputs, wrapping.

The emitter writes `main(params, *inputs)`; a `Runtime` turns the module's parameter
arrays into the target's trainable objects, wraps `main` the framework's way (jit,
tf.function, torch.compile), converts NumPy inputs once at the call boundary, and, for
torch and TensorFlow, builds the `module` that owns the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect import TensorSpec, dtype_name
from ivy_ir.dialect.types import numpy_dtype


class Runtime:
    """The NumPy behaviour; other targets override what differs."""

    name = "numpy"
    options: frozenset[str] = frozenset()
    """Keyword options `ivy_ir.compile`/`lower` accept for this target."""

    def check_options(self, options: dict[str, Any]) -> None:
        unknown = set(options) - self.options
        if unknown:
            accepted = ", ".join(sorted(self.options)) or "none"
            raise TypeError(f"target '{self.name}' takes no option(s) "
                            f"{', '.join(sorted(unknown))}; it accepts: {accepted}")

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        """Target-native parameters keyed by dotted name."""
        return dict(values)

    def wrap(self, raw: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """The framework's own wrapping of `raw(params, *inputs)`."""
        return raw

    def native_dtype(self, name: str) -> Any:
        """What `.dtype` of a native input equals for the IR dtype `name`."""
        return numpy_dtype(name)

    def to_native(self, value: Any) -> Any:
        """Convert a non-native input (NumPy array, scalar, list) at the boundary."""
        return np.asarray(value)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def spec(self, value: Any) -> TensorSpec:
        """IR type of a native input (for retracing with other shapes)."""
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype))

    def module(self, params: dict[str, Any], call: Callable[..., Any]) -> Any:
        """A framework module owning `params` whose forward is `call`; None if none."""
        return None


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """{"a.b": v} -> {"a": {"b": v}}: the tree that module-building targets mirror."""
    tree: dict[str, Any] = {}
    for name, value in flat.items():
        node = tree
        *path, leaf = name.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return tree
