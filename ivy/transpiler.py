"""`ivy.transpile`, `ivy.unify`, `ivy.trace_graph`: the 2023 paper's entry points.

Each traces the object once into the ivy IR (`ivy_ir.compile`) and hands back what a
user of the target framework would write by hand: an `nn.Module` for torch, a
`(params, apply)` pair for JAX, a Keras layer for TensorFlow, a plain callable for
NumPy, and for `to="ivy"` a function of the facade that follows `ivy.set_backend`.
Parameters keep their source names throughout, so a source checkpoint loads into the
result and the result's gradients line up with the source's.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import importers
import ivy_ir
import lowerings

from .backend import current_backend, infer, selected
from .library import transpile_library

TARGETS = ("jax", "torch", "tensorflow", "numpy", "ivy")


def transpile(obj: Any, source: str | None = None, to: str | None = None,
              args: tuple[Any, ...] | None = None, kwargs: dict[str, Any] | None = None,
              params_v: Any = None, training: bool | None = None, **options: Any) -> Any:
    """`obj` (a torch `nn.Module`, a Keras model or layer, a Flax module or Haiku
    `hk.Transformed` with its variables in `params_v`, a JAX `apply(params, x)`, an ivy
    `Module`, a plain function, or a whole library module) as the `to` framework's own
    trainable object.

    With example `args`/`kwargs` it compiles at once; without them the result
    compiles on its first call and again per new argument signature. `options` go to
    `ivy_ir.compile` (`passes=`, `torch_compile=True`, `jit_compile=True`).

    `training` (torch, Keras and ivy models; default: the model's own mode) traces
    the source in training mode: dropout draws (a fresh key per call from the
    target's RNG, or the `rng=` key JAX's `apply` takes) and batch norm normalizes with
    the batch's statistics and updates its running ones as the source does.
    """
    to = to or current_backend()
    if to not in TARGETS:
        raise ValueError(f"ivy.transpile: to={to!r} is not one of {', '.join(TARGETS)}")
    if isinstance(obj, types.ModuleType):
        return transpile_library(obj, source or _library_source(obj), to, **options)
    if to == "ivy":
        return unify(obj, source=source, args=args, kwargs=kwargs, params_v=params_v,
                     **options)
    fn, params = _program(obj, params_v)
    if training is not None and args is None and kwargs is None:
        raise ValueError("ivy.transpile: training= sets the mode for the trace, which "
                         "without example args= would happen later; pass args=")
    with _mode(obj, training, kwargs) as kwargs:
        compiled = ivy_ir.compile(fn, target=to, args=tuple(args or ()), kwargs=kwargs,
                                  params=params, source=source, **options)
    name = getattr(obj, "__name__", type(obj).__name__)
    if isinstance(compiled, ivy_ir.LazyCompiled):
        return lazy_idiomatic(compiled, to, name, _has_weights(obj, params))
    result = idiomatic(compiled, name)
    if to == "torch" and result is compiled.module:
        _keep_unsaved(result, obj)
    return result


def _program(obj: Any, params_v: Any) -> tuple[Any, Any]:
    """What to trace: a Haiku `Transformed` is applied without an RNG (inference);
    anything else is traced as it is, with `params_v` as its parameter tree."""
    if params_v is not None and _is_haiku(obj):
        apply = obj.apply
        first, _rng, *rest = inspect.signature(apply).parameters.values()

        def haiku_apply(params: Any, *args: Any, **kwargs: Any) -> Any:
            return apply(params, None, *args, **kwargs)
        haiku_apply.__signature__ = inspect.Signature([first, *rest])  # type: ignore[attr-defined]
        return haiku_apply, params_v
    return obj, params_v


@contextmanager
def _mode(obj: Any, training: bool | None, kwargs: dict[str, Any] | None
          ) -> Iterator[dict[str, Any] | None]:
    """Trace in the requested mode: a torch (or ivy) module's `train()` for the
    duration, the `training` argument of a Keras call; other sources have their own
    flags."""
    if training is None:
        yield kwargs
    elif callable(getattr(obj, "train", None)) and hasattr(obj, "training"):
        was = obj.training
        obj.train(training)
        try:
            yield kwargs
        finally:
            obj.train(was)
    elif hasattr(obj, "call") and hasattr(obj, "trainable_weights"):
        yield {**(kwargs or {}), "training": training}
    else:
        raise ValueError(f"ivy.transpile: training= applies to torch, Keras and ivy "
                         f"models; pass {type(obj).__name__}'s own flags (Flax: "
                         "deterministic=, use_running_average=) in kwargs=")


def _keep_unsaved(module: Any, source: Any) -> None:
    """A torch source's non-persistent buffers (`persistent=False`: BERT's position
    ids, GPT-2's causal mask, Llama's rotary frequencies) stay out of the result's
    `state_dict()` too, so the source's checkpoint loads with `strict=True`."""
    if not callable(getattr(source, "named_buffers", None)):
        return
    unsaved = {n for n, _ in source.named_buffers()} - set(source.state_dict())
    for name, _ in list(module.named_buffers()):
        if name in unsaved:
            *path, leaf = name.split(".")
            holder = module
            for part in path:
                holder = holder._modules[part]
            holder._non_persistent_buffers_set.add(leaf)


def _is_haiku(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "haiku" and hasattr(obj, "apply")


def _library_source(module: types.ModuleType) -> str:
    """The framework a library is written in, from its root package's name (kornia
    and timm are torch libraries, flax and optax JAX ones, keras TensorFlow here)."""
    root = module.__name__.split(".")[0]
    known = {"torch": "torch", "kornia": "torch", "timm": "torch", "torchvision": "torch",
             "jax": "jax", "flax": "jax", "optax": "jax", "haiku": "jax",
             "tensorflow": "tensorflow", "keras": "tensorflow", "numpy": "numpy",
             "scipy": "numpy"}
    if root not in known:
        raise ValueError(f"ivy.transpile: cannot tell which framework the library "
                         f"'{root}' is written in; pass source='torch' (or 'jax', "
                         "'tensorflow', 'numpy')")
    return known[root]


def idiomatic(compiled: ivy_ir.Compiled, name: str) -> Any:
    """The target's own trainable object around a compiled program."""
    if compiled.target == "torch" and compiled.module is not None:
        return compiled.module
    if compiled.target == "jax" and compiled.params:
        return JaxPair(compiled)
    if compiled.target == "tensorflow" and compiled.trainable_params:
        return keras_layer(compiled, name)
    return compiled


def lazy_idiomatic(lazy: ivy_ir.LazyCompiled, target: str, name: str,
                   has_weights: bool) -> Any:
    """The target's own object over a program compiled on its first call: torch's lazy
    module; for a model with weights, Flax's `init`/`apply` for JAX and a Keras layer
    that creates its weights on its first call (as Keras layers do in `build`); a
    function without weights stays a plain callable there, as it would compiled now."""
    if target == "jax" and has_weights:
        return LazyJaxPair(lazy)
    if target == "tensorflow" and has_weights:
        return lazy_keras_layer(lazy, name)
    return lowerings.get_runtime(target).lazy_module(lazy)


def _has_weights(obj: Any, params: Any) -> bool:
    """Whether the source holds weights (a torch module, a Keras layer, an ivy Module,
    or a function given its parameter tree), told without running it."""
    return params is not None or any(callable(getattr(obj, attr, None)) for attr in
                                     ("parameters", "named_buffers")) or \
        hasattr(obj, "trainable_weights") or hasattr(obj, "__ivy_program__")


def _example(value: Any) -> Any:
    """An input as something to trace with: itself when concrete, zeros of its shape
    (unknown dimensions: 1) and dtype when symbolic (a JAX tracer under `jax.jit`, a
    Keras functional-API input), since tracing reads only shapes and dtypes."""
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        return value
    try:
        return lowerings.runtime.host_array(value)
    except (TypeError, ValueError):
        shape = tuple(1 if d is None else int(d) for d in value.shape)
        return np.zeros(shape, np.dtype(getattr(value.dtype, "as_numpy_dtype", value.dtype)))


class LazyJaxPair:
    """Flax's idiom for a model whose parameters exist only once it sees an input
    (`ivy.transpile(model, to="jax")` without example args): `params = pair.init(*x)`
    compiles for x's signature and returns the trainable tree, `pair.apply(params, *x)`
    runs the program compiled for x's signature. Shapes are static under `jax.jit`, so a
    traced `apply` finds (or compiles) its entry as an eager call does; every entry
    shares the first one's parameters."""

    def __init__(self, lazy: ivy_ir.LazyCompiled):
        self.lazy = lazy
        self._pairs: dict[int, JaxPair] = {}

    def init(self, *inputs: Any, **keyword_inputs: Any) -> dict[str, Any]:
        return self._pair(inputs, keyword_inputs)[0]

    def apply(self, params: dict[str, Any], *inputs: Any, **options: Any) -> Any:
        """`apply` of the `(params, apply)` pair: `rng=`, `buffers=`, `mutable=` as
        there."""
        keyword_inputs = {k: v for k, v in options.items()
                          if k not in ("rng", "buffers", "mutable")}
        return self._pair(inputs, keyword_inputs)[1](params, *inputs, **options)

    @property
    def buffers(self) -> dict[str, Any]:
        return self._first().buffers

    def _first(self) -> JaxPair:
        if not self._pairs:
            raise AttributeError("the model is not compiled yet: call init(*example_inputs)")
        return next(iter(self._pairs.values()))

    def _pair(self, inputs: tuple[Any, ...], keyword_inputs: dict[str, Any]) -> JaxPair:
        compiled = self.lazy.entry(*map(_example, inputs),
                                   **{k: _example(v) for k, v in keyword_inputs.items()})
        if id(compiled) not in self._pairs:
            self._pairs[id(compiled)] = JaxPair(compiled)
        return self._pairs[id(compiled)]


class JaxPair(tuple):
    """`(params, apply)`: the trainable parameters as a nested dict shaped like the
    source's tree, and `apply(params, *inputs, **keyword_inputs)`, a pure function for
    `jax.jit`, `jax.grad`, `jax.vmap` and optax. Buffers (batch-norm statistics,
    integer counters) are closed over, so the tree holds only what a gradient is taken
    for. Unpack it: `params, apply = ivy.transpile(model, to="jax", args=(x,))`."""

    def __new__(cls, compiled: ivy_ir.Compiled) -> JaxPair:
        params = lowerings.runtime.nest(compiled.trainable_params)

        def apply(params: dict[str, Any], *inputs: Any, rng: Any = None,
                  buffers: dict[str, Any] | None = None, mutable: bool = False,
                  **keyword_inputs: Any) -> Any:
            """`rng`: a JAX key, required when the program draws (dropout in training
            mode: a key drawn here would be baked into a `jax.jit` trace). `buffers`:
            values replacing the closed-over ones; `mutable=True` returns
            `(outputs, new buffers)` (batch-norm statistics in training mode)."""
            if rng is None and compiled.ir_module.draws:
                raise TypeError("this program draws random numbers (dropout in training "
                                "mode): pass rng=jax.random.key(...), split per step")
            flat = {**lowerings.runtime.flatten(buffers or {}),
                    **lowerings.runtime.flatten(params)}
            out, updates = compiled.apply_updates(flat, *inputs, rng=rng, **keyword_inputs)
            return (out, lowerings.runtime.nest(updates)) if mutable else out
        apply.__name__ = "apply"
        pair = super().__new__(cls, (params, apply))
        pair.compiled = compiled
        pair.buffers = lowerings.runtime.nest(compiled.buffers)
        return pair

    def __call__(self, *inputs: Any, **keyword_inputs: Any) -> Any:
        """Run with the parameters as transpiled."""
        return self[1](self[0], *inputs, **keyword_inputs)


def keras_layer(compiled: ivy_ir.Compiled, name: str) -> Any:
    """A Keras layer whose weights are the trainable parameters (source names, dots
    kept) and which closes over the buffers; `model.fit` and `tf.GradientTape` train
    it."""
    values = {k: lowerings.runtime.host_array(v)
              for k, v in compiled.trainable_params.items()}
    layer = lowerings.get_runtime("tensorflow").keras_layer(values, _keras_call(compiled),
                                                            name=name)
    layer.compiled = compiled  # its buffers (`compiled.params`) and IR
    return layer


def _keras_call(compiled: ivy_ir.Compiled) -> Any:
    """A Keras layer's call of the program on its weights (source names -> values)."""
    def call(weights: dict[str, Any], *inputs: Any, **keyword_inputs: Any) -> Any:
        keyword_inputs.pop("training", None)
        out, updates = compiled.apply_updates(weights, *inputs, **keyword_inputs)
        for name, value in updates.items():  # training mode: the buffers' variables
            compiled.runtime.assign(compiled.params, name, value)
        return out
    return call


def lazy_keras_layer(lazy: ivy_ir.LazyCompiled, name: str) -> Any:
    """A Keras layer whose weights appear on its first call, compiled for that call's
    inputs (symbolic ones too, as in a functional `keras.Model`); later calls run that
    program, which retraces for other input shapes as any compiled program does."""
    def materialize(inputs: tuple[Any, ...], keyword_inputs: dict[str, Any]
                    ) -> tuple[dict[str, Any], Any]:
        keyword_inputs = {k: v for k, v in keyword_inputs.items() if k != "training"}
        compiled = lazy.entry(*map(_example, inputs),
                              **{k: _example(v) for k, v in keyword_inputs.items()})
        values = {k: lowerings.runtime.host_array(v)
                  for k, v in compiled.trainable_params.items()}
        return values, _keras_call(compiled)
    return lowerings.get_runtime("tensorflow").lazy_keras_layer(materialize, name=name)


class Unified:
    """A program as an `ivy` function: called under `ivy.set_backend("x")` (or with x's
    arrays and no backend set) it runs compiled for x, once per backend, and retraced
    there for other shapes, as any compiled program is. `str()` is its IR."""

    def __init__(self, program: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None,
                 params: Any, source: str | None, passes: str, name: str):
        self._trace = dict(fn=program, args=args, kwargs=kwargs, params=params, source=source)
        self._passes = passes
        self.__name__ = name
        self._compiled: dict[str, ivy_ir.Compiled] = {}
        self.ir_module = ivy_ir.trace(program, args, kwargs, params=params, source=source)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = selected() or infer((*args, *kwargs.values())) or "numpy"
        compiled = self._compiled.get(target)
        if compiled is None:
            compiled = ivy_ir.compile(**self._trace, target=target, passes=self._passes)
            self._compiled[target] = compiled
        return compiled(*args, **kwargs)

    def to_text(self) -> str:
        return str(self.ir_module)

    __str__ = to_text

    def __repr__(self) -> str:
        return f"<ivy.Unified {self.__name__} ops={self.ir_module.op_count()}>"


def unify(fn: Any, source: str | None = None, args: tuple[Any, ...] | None = None,
          kwargs: dict[str, Any] | None = None, params_v: Any = None,
          passes: str = "default") -> Unified:
    """`fn` (any framework's function or model) as `ivy` code: it then runs under any
    `ivy.set_backend`, on that backend's arrays. Needs example `args`/`kwargs`."""
    if args is None and kwargs is None:
        raise TypeError("ivy.unify needs example args= (or kwargs=) to trace the function")
    program, params = _program(fn, params_v)
    return Unified(program, tuple(args or ()), kwargs, params, source, passes,
                   getattr(fn, "__name__", type(fn).__name__))


def trace_graph(fn: Any, *, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None,
                source: str | None = None, params_v: Any = None,
                passes: str = "default") -> Any:
    """The function as a callable graph of its own framework (`Compiled`, lowered back
    to the source; `.ir` prints it). A facade function's graph is a `Unified`, which
    runs on whichever backend is set."""
    program, params = _program(fn, params_v)
    own = source or importers.detect_source(program, tuple(args), params)
    if own == "ivy":
        return Unified(program, tuple(args), kwargs, params, own, passes,
                       getattr(fn, "__name__", type(fn).__name__))
    return ivy_ir.compile(program, target=own, args=tuple(args), kwargs=kwargs,
                          params=params, source=own, passes=passes)
