"""How a target's generated function meets its user: parameters, inputs, wrapping.

The emitter writes `main(params, *inputs)`; a `Runtime` turns the module's parameter
arrays into the target's trainable objects, wraps `main` the framework's way (jit,
tf.function, torch.compile), converts NumPy inputs once at the call boundary, and, for
torch and TensorFlow, builds the `module` that owns the parameters.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np
from xdsl.ir import BlockArgument, SSAValue

from ivy_ir.core.module import Module
from ivy_ir.dialect import IvyOp, TensorSpec, dtype_name
from ivy_ir.dialect.types import STORAGE, numpy_dtype

from .autodiff import NoAutodiff


class Runtime(NoAutodiff):
    """The NumPy behaviour; other targets override what differs (autodiff included)."""

    name = "numpy"
    options: frozenset[str] = frozenset()
    """Keyword options `ivy_ir.compile`/`lower` accept for this target."""
    fast_types: tuple[type, ...] | None = None
    """The input types the compiled call passes on without converting, when an equal
    `.dtype` does not already tell them (JAX and TF dtypes both equal NumPy's, yet
    `jax.jit` refuses a TF tensor); None: the dtype check is enough."""

    stages_data_shaped = False
    """Whether a program with ops whose sizes depend on the data runs in stages
    (`staged.py`): for a framework whose compiler needs every size before it runs."""

    def check_options(self, options: dict[str, Any]) -> None:
        unknown = set(options) - self.options
        if unknown:
            accepted = ", ".join(sorted(self.options)) or "none"
            raise TypeError(f"target '{self.name}' takes no option(s) "
                            f"{', '.join(sorted(unknown))}; it accepts: {accepted}")

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        """Target-native parameters keyed by dotted name: copies, so neither the
        traced module's arrays nor the user's own change with the program's buffers."""
        return {k: np.array(v) for k, v in values.items()}

    def wrap(self, raw: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """The framework's own wrapping of `raw(params, *inputs)`."""
        return raw

    def program_options(self, module: Module) -> dict[str, Any]:
        """Options of `wrap` chosen from the program itself (how XLA compiles a network
        with convolutions on JAX), passed beside the user's."""
        return {}

    def scope(self, wide: bool) -> AbstractContextManager[Any]:
        """Where the generated module runs its top level (hoisted constants) and makes
        its parameters: JAX's scoped x64 for programs with 64-bit values."""
        return nullcontext()

    def native_dtype(self, name: str) -> Any:
        """What `.dtype` of a native input equals for the IR dtype `name`."""
        return numpy_dtype(name)

    def to_native(self, value: Any) -> Any:
        """Convert a non-native input (NumPy array, scalar, list, another framework's
        tensor) at the boundary."""
        return host_array(value)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def spec(self, value: Any) -> TensorSpec:
        """IR type of a native input (for retracing with other shapes)."""
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype))

    def module(self, params: dict[str, Any], call: Callable[..., Any],
               aliases: dict[str, tuple[str, ...]] | None = None) -> Any:
        """A framework module owning `params` whose forward is `call`; None if none.
        `aliases`: other names of a parameter in the source's state (tied weights)."""
        return None

    def own_outputs(self, fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
        """`fn`, changed where its results could share memory that outlives the call
        (NumPy: parameters and hoisted constants returned as they are), or where
        values cross the call in another form than the program holds them (TF: the
        storage dtypes it carries as bytes)."""
        return fn

    def lazy_module(self, lazy: Callable[..., Any]) -> Any:
        """The target's trainable object over a program compiled on its first call (a
        `LazyCompiled`): torch's lazy-module idiom; the call itself elsewhere."""
        return lazy

    def arrange(self, params: dict[str, Any], module: Module) -> dict[str, Any]:
        """The parameters in the memory layout the program's kernels run fastest on."""
        return params

    def hoisted(self, prepare: Callable[..., Any], main: Callable[..., Any],
                names: list[str], reads: tuple[str, ...]
                ) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """`(fn, call)` of a program split by `hoist.split`, whose `prepare` returns the
        buffers `names` of `main`: `fn(params, *inputs)` runs both parts (pure: what
        autodiff and `apply` see), `call` keeps `prepare`'s results while the
        parameters it reads are the same (`version`) and no autodiff records the call
        (`recording`)."""

        def fn(params: dict[str, Any], *inputs: Any) -> Any:
            return main({**params, **dict(zip(names, prepare(params)))}, *inputs)
        kept: list[Any] = [None, None]

        def call(params: dict[str, Any], *inputs: Any) -> Any:
            read = [params[n] for n in reads]
            if self.recording(read):
                return fn(params, *inputs)
            key = [self.version(v) for v in read]
            if key != kept[0]:
                with self.concrete():
                    kept[:] = [key, dict(zip(names, prepare(params)))]
            return main({**params, **kept[1]}, *inputs)
        return fn, call

    def concrete(self) -> AbstractContextManager[Any]:
        """Where kept values are computed: concrete values even when the first call is
        inside the caller's own compiled function (a JAX tracer kept would leak)."""
        return nullcontext()

    def version(self, value: Any) -> Any:
        """What changes when a parameter does: its identity (immutable arrays)."""
        return id(value)

    def recording(self, values: list[Any]) -> bool:
        """Whether autodiff records a call on these parameters (then nothing is kept)."""
        return False

    def fresh_key(self) -> Any:
        """A random key for a program that draws (dropout in training mode), from the
        target's own global RNG, so the framework's seeding decides it (NumPy's for
        NumPy and JAX, which has none)."""
        return np.asarray(np.random.randint(0, 2**31 - 1), np.int32)

    def key_of(self, rng: Any) -> Any:
        """The program's integer key from a key of the target's own RNG idiom."""
        return rng

    def save(self, model: Any, path: Any) -> None:
        """Write the compiled program's model file (targets that build one: ONNX)."""
        raise TypeError(f"the {self.name} target builds Python source, not a model file; "
                        "compile with target='onnx' to save one")

    def assign(self, params: dict[str, Any], name: str, value: Any) -> None:
        """Store a buffer's new value (running statistics) where the next call reads it."""
        params[name] = value


def host_array(value: Any) -> np.ndarray:
    """Any framework's array as a NumPy array: a torch tensor leaves autograd and its
    device first (`np.asarray` refuses both); the others convert through `__array__`,
    TF's text decoded from UTF-8 bytes into `str`."""
    if isinstance(value, np.ndarray):
        return value
    if type(getattr(value, "dtype", None)).__name__ == "KeyTy":
        # a JAX typed key array (`jax.random.key(0)`) crosses as its uint32 key data,
        # the form the programs take keys in (under `jax.jit`, as a traced array)
        jax = sys.modules["jax"]
        data = jax.random.key_data(value)
        return data if isinstance(data, jax.core.Tracer) else np.asarray(data)
    detach = getattr(value, "detach", None)
    if callable(detach) and callable(getattr(value, "cpu", None)):
        # a lazy conjugate or negation (`torch.conj(z)`) is a bit NumPy cannot read
        value = detach().cpu().resolve_conj().resolve_neg()
        name = str(value.dtype).removeprefix("torch.")
        if name == "bfloat16" or name in STORAGE:  # NumPy knows them through ml_dtypes
            bits = value.view(getattr(sys.modules["torch"], f"uint{value.itemsize * 8}"))
            return bits.numpy().view(numpy_dtype(name))
    try:
        array = np.asarray(value)
    except ValueError:  # a 0-d TF tensor of an ml_dtypes dtype: `__array__` gives a scalar
        numpy = getattr(value, "numpy", None)
        if not callable(numpy):  # symbolic (a Keras functional input): no values at all
            raise
        array = np.asarray(numpy())
    if array.dtype == object and array.size and isinstance(array.flat[0], bytes):
        # TF's text is UTF-8 bytes; the IR's `string` elements are `str` (as NumPy's)
        return np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(array)
    return array


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """{"a.b": v} -> {"a": {"b": v}}: the tree that module-building targets mirror."""
    tree: dict[str, Any] = {}
    for name, value in sorted(flat.items(), key=lambda item: item[0].count(".")):
        node = tree
        *path, leaf = name.split(".")
        for i, part in enumerate(path):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"parameters '{'.'.join(path[:i + 1])}' and '{name}': a "
                                 "module cannot hold both a parameter and a submodule of "
                                 "one name; rename one of them")
        if leaf in node:
            raise ValueError(f"parameters '{name}' and '{name}.*': a module cannot hold "
                             "both a parameter and a submodule of one name; rename one")
        node[leaf] = value
    return tree


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": v}} -> {"a.b": v}: `nest` undone (a JAX pair's params to the
    program's dotted names)."""
    if not isinstance(tree, dict):
        return {prefix[:-1]: tree}
    out: dict[str, Any] = {}
    for k, v in tree.items():
        out.update(flatten(v, f"{prefix}{k}."))
    return out


def copy_shared(fn: Callable[..., Any], module: Module, view_ops: frozenset[str],
                copy: Callable[[Any], Any]) -> Callable[..., Any]:
    """`fn` copying each result that can be a parameter, a hoisted constant or a view of
    one (through `view_ops`): for eager targets whose arrays are mutable. Decided from
    the IR once, so programs returning only fresh values run `fn` itself."""
    params = {i for i, a in enumerate(module.args()) if a.param is not None}
    results = list(module.entry.body.block.last_op.operands)
    shared = [i for i, v in enumerate(results) if _shares_memory(v, params, view_ops)]
    if not shared:
        return fn
    if not module.returns_sequence and len(results) == 1:
        return lambda params, *inputs: copy(fn(params, *inputs))

    def call(params: dict[str, Any], *inputs: Any) -> Any:
        out = list(fn(params, *inputs))
        for i in shared:
            out[i] = copy(out[i])
        return tuple(out)
    return call


def _shares_memory(value: SSAValue, params: set[int], view_ops: frozenset[str]) -> bool:
    if isinstance(value, BlockArgument):
        return value.index in params
    op = value.owner
    if not isinstance(op, IvyOp):
        return False
    name = op.SPEC.name
    if name == "constant":
        return True
    return name in view_ops and _shares_memory(op.operands[0], params, view_ops)
