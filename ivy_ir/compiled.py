"""`Compiled`: what `ivy_ir.compile` and `ivy_ir.lower` return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import lowerings

from . import structured
from .core.module import Module
from .dialect import TensorSpec
from .dialect.types import COMPLEX, FLOATS, numpy_dtype


class Compiled:
    """A lowered program: call it like the original function.

    `ir` is the optimized IR text, `source` the generated target code, `params` the
    target-native parameters keyed by their dotted source names, `apply(params, *x)` the
    wrapped function as a pure function of the parameters, and `module` the framework
    module owning the parameters (torch and TensorFlow targets).

    A call costs one dtype and one shape comparison per input on top of the wrapped
    function: the check is generated per program with the expected values bound once.
    Inputs that fail it take the slow path, which converts NumPy arrays, lists, Python
    numbers and other frameworks' tensors to the target's arrays (once, at the
    boundary) and, when the program came from a Python function, retraces for other
    shapes/dtypes (cached); otherwise it raises a TypeError naming the argument. A
    retraced variant runs on this object's parameters (`_adopt`), so training through
    any input shape updates `params` and `module`.
    """

    def __init__(self, ir_module: Module, lowered: lowerings.Lowered,
                 retrace: Callable[[tuple[Any, ...]], Compiled] | None = None):
        self.ir_module = ir_module
        self.target = lowered.target
        self.source = lowered.source
        self.model = lowered.model
        """The target's program object where it builds one (ONNX: the `ModelProto`)."""
        self.raw = lowered.raw
        self.runtime = lowered.runtime
        raw = self.runtime.own_outputs(lowered.fn, ir_module)
        self._updates = ir_module.updates
        self._draws = ir_module.draws
        self._run = self._split(raw, ir_module) if self._updates or self._draws else None
        self._apply = raw if self._run is None else \
            lambda params, *inputs: self._run(params, *inputs)[0]
        self._step = self._stateful if self._run is not None else raw \
            if lowered.call is None else self.runtime.own_outputs(lowered.call, ir_module)
        """The call: `_apply` keeping the parameter work's results while the parameters
        are unchanged (`lowerings/hoist.py`), or storing the buffers' new values
        (training mode)."""
        self._inputs = ir_module.inputs
        self._same = _shared_dims(ir_module)
        """(input, axis, input, axis, name): dims of two inputs named alike, one size."""
        self._retrace = retrace
        self._variants: dict[tuple[Any, ...], Compiled] = {}
        self._own: dict[str, Any] = {}
        """A variant's parameters that are not its parent's (see `_adopt`)."""
        self._trainable = {a.param for a in ir_module.args()
                           if a.param is not None and a.trainable}
        params = lowered.params
        self._missing = [a.param for a in ir_module.args()
                         if a.param is not None and a.param not in params]
        self.params = params
        aliases = {a.param: a.aliases for a in ir_module.args() if a.aliases}
        self.module = self.runtime.module(params, self, aliases) if not self._missing else None

    @property
    def params(self) -> dict[str, Any]:
        return self._params

    @params.setter
    def params(self, value: dict[str, Any]) -> None:
        self._params = value
        self._call = self._fast_call()

    @property
    def trainable_params(self) -> dict[str, Any]:
        """The parameters a gradient is taken for: trainable and of a float or complex
        dtype (`jax.grad` refuses a tree holding an integer buffer such as batch norm's
        `num_batches_tracked`)."""
        return {k: v for k, v in self._params.items() if k in self._trainable
                and self.runtime.spec(v).dtype in FLOATS | COMPLEX}

    @property
    def buffers(self) -> dict[str, Any]:
        """The other parameters (running statistics, integer counters)."""
        trainable = self.trainable_params
        return {k: v for k, v in self._params.items() if k not in trainable}

    def apply(self, params: dict[str, Any], *inputs: Any, rng: Any = None,
              **keyword_inputs: Any) -> Any:
        """The program as a pure function of the parameters. `params` may hold only some
        of them (`trainable_params`, for `jax.grad`): the others are this object's. A
        program that draws (dropout in training mode) takes `rng`, a key of the
        target's idiom (`jax.random.key(0)` on JAX); without one it draws a fresh key
        from the target's global RNG. Buffer updates are dropped: see `apply_updates`."""
        return self.apply_updates(params, *inputs, rng=rng, **keyword_inputs)[0]

    def apply_updates(self, params: dict[str, Any], *inputs: Any, rng: Any = None,
                      **keyword_inputs: Any) -> tuple[Any, dict[str, Any]]:
        """`(outputs, {buffer name: new value})`: `apply` plus the buffers a training-mode
        program updates (batch-norm running statistics), for functional training loops
        (Flax's `mutable=` idiom)."""
        if self.ir_module.tree is not None:  # structured (a KV cache): see `structured`
            return structured.call(self, inputs, keyword_inputs, lambda c, flat: c._applied(
                params, tuple(flat), rng)[0]), {}
        if keyword_inputs:
            inputs = self._bind(inputs, keyword_inputs)
        return self._applied(params, inputs, rng)

    def _applied(self, params: dict[str, Any], inputs: tuple[Any, ...], rng: Any
                 ) -> tuple[Any, dict[str, Any]]:
        if len(params) < len(self._params):
            params = {**self._params, **params}
        if self._run is None:
            return self._apply(params, *inputs), {}
        return self._run(params, *inputs, rng=rng)

    def _split(self, raw: Callable[..., Any], module: Module) -> Callable[..., Any]:
        """`run(params, *inputs, rng=None) -> (outputs, updates)` around the lowered
        function, which takes the random key last and returns the buffers' new values
        after the user's outputs."""
        names, draws, rt = self._updates, self._draws, self.runtime
        n = len(module.user_outputs)
        single = n == 1 and not module.returns_sequence

        def run(params: dict[str, Any], *inputs: Any, rng: Any = None) -> Any:
            if draws:
                inputs = (*inputs, rt.fresh_key() if rng is None else rt.key_of(rng))
            out = raw(params, *inputs)
            if not names:
                return out, {}
            out = tuple(out)
            return (out[0] if single else out[:n]), dict(zip(names, out[n:]))
        return run

    def _stateful(self, params: dict[str, Any], *inputs: Any) -> Any:
        out, updates = self._run(params, *inputs)
        for name, value in updates.items():
            self.runtime.assign(params, name, value)
        return out

    @property
    def ir(self) -> str:
        """The program's IR text, each dynamic size named in a comment."""
        return self.ir_module.to_text(dims=True)

    @property
    def traces(self) -> int:
        """How many programs serve this object: 1, plus one per input signature that
        took the retrace path (new static sizes or dtypes; never a symbolic dim's)."""
        return 1 + len(self._variants)

    def save(self, path: Any) -> None:
        """Write the program as the target's model file (`target="onnx"`: a .onnx)."""
        self.runtime.save(self.model, path)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.ir_module.tree is not None:
            return structured.call(self, args, kwargs, lambda c, flat: c._call(*flat))
        if len(args) == 1 and not kwargs and len(self._inputs) > 1:
            args, kwargs = _spread(args[0], len(self._inputs))
        if kwargs:
            args = self._bind(args, kwargs)
        if len(args) != len(self._inputs):
            names = ", ".join(map(str, self.ir_module.input_names))
            raise TypeError(f"the compiled program takes {len(self._inputs)} input(s) "
                            f"({names}), got {len(args)}")
        return self._call(*args)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Keyword inputs in their places, by the names the inputs were traced with
        (`backbone(images=x)`)."""
        names = self.ir_module.input_names
        slots: list[Any] = [*args, *[_MISSING] * (len(names) - len(args))]
        for key, value in kwargs.items():
            if key not in names[len(args):]:
                taken = " (given positionally)" if key in names[:len(args)] else ""
                raise TypeError(f"unexpected keyword argument '{key}'{taken}; the compiled "
                                f"program's inputs are ({', '.join(map(str, names))})")
            slots[names.index(key)] = value
        missing = [str(n) for n, v in zip(names, slots) if v is _MISSING]
        if missing:
            raise TypeError(f"missing input(s) {', '.join(missing)}")
        return tuple(slots)

    def _fast_call(self) -> Callable[..., Any]:
        """`call(*inputs)`: check each input's dtype and static dims, then run."""
        names = [f"a{i}" for i in range(len(self._inputs))]
        env: dict[str, Any] = {"fn": self._step, "params": self._params, "slow": self._slow}
        checks = []
        env["T"] = self.runtime.fast_types
        for i, (name, t) in enumerate(zip(names, self._inputs)):
            if env["T"] is not None:  # dtypes alone do not tell this target's arrays
                checks.append(f"type({name}) not in T")
            env[f"D{i}"] = self.runtime.native_dtype(t.dtype)
            checks.append(f"{name}.dtype != D{i}")
            if None in t.shape:
                checks.append(f"len({name}.shape) != {t.rank}")
                checks += [f"{name}.shape[{d}] != {n}" for d, n in enumerate(t.shape)
                           if n is not None]
            else:
                env[f"S{i}"] = tuple(t.shape)
                checks.append(f"{name}.shape != S{i}")
        checks += [f"a{i}.shape[{d}] != a{j}.shape[{e}]" for i, d, j, e, _ in self._same]
        args = ", ".join(names)
        guard = " or ".join(checks) or "False"
        if self._missing:
            guard = "True"
        # a list or a Python number has no `.dtype`: the slow path converts it
        src = (f"def compiled({args}):\n"
               f"    try:\n"
               f"        other = {guard}\n"
               f"    except AttributeError:\n"
               f"        other = True\n"
               f"    if other:\n"
               f"        return slow({args})\n"
               f"    return fn(params, {args})\n")
        exec(compile(src, "<ivy_ir call>", "exec"), env)
        return env["compiled"]

    def _slow(self, *args: Any) -> Any:
        if self._missing:
            raise ValueError(f"no value for parameter(s) {', '.join(self._missing)}: "
                             "use .apply(params, *inputs) or lower(..., params=...)")
        args = tuple(self._boundary(i, a) for i, a in enumerate(args))
        specs = tuple(self.runtime.spec(a) for a in args)
        for i, (got, want) in enumerate(zip(specs, self._inputs)):
            if not _fits(got, want):
                return self._other_types(args, specs, i)
        for i, d, j, e, dim in self._same:
            if specs[i].shape[d] != specs[j].shape[e]:
                names = self.ir_module.input_names
                raise TypeError(f"inputs {names[i] or i} and {names[j] or j} must agree on "
                                f"the size of dim '{dim}' (their dims {d} and {e}), got "
                                f"{specs[i].shape[d]} and {specs[j].shape[e]}")
        return self._step(self._params, *args)

    def _boundary(self, i: int, value: Any) -> Any:
        """Input `i` as the target's array. Lists and Python numbers take the input's
        dtype where it holds them (`[1, 2]` for a float32 input is float32, as the
        framework's own constructors would make it); another framework's tensor is
        read on the host and converted."""
        rt = self.runtime
        if rt.is_native(value):
            return value
        try:
            if isinstance(value, (list, tuple, bool, int, float, complex)):
                array = np.asarray(value)
                want = numpy_dtype(self._inputs[i].dtype)
                if np.can_cast(array.dtype, want, "same_kind"):
                    array = array.astype(want)
            else:
                array = lowerings.runtime.host_array(value)
            return rt.to_native(array)
        except (TypeError, ValueError, RuntimeError) as exc:
            kind = type(value).__qualname__
            if type(value).__module__ != "builtins":
                kind = f"{type(value).__module__.split('.')[0]}.{kind}"
            raise TypeError(f"input {i}: a {kind} cannot be converted to a {self.target} "
                            f"array ({exc})") from None

    def _other_types(self, args: tuple[Any, ...], specs: tuple[TensorSpec, ...], i: int) -> Any:
        if self._retrace is None:
            raise TypeError(f"input {i} has type {specs[i]}, but the program was compiled "
                            f"for {self._inputs[i]}")
        variant = self._variants.get(specs)
        if variant is None:
            examples = tuple(np.zeros(s.shape, s.dtype) for s in specs)
            variant = self._variants[specs] = self._retrace(examples)
            variant._adopt(self)
        own = variant._own
        return variant._step({**self._params, **own} if own else self._params, *args)

    def _adopt(self, parent: Compiled) -> None:
        """Make this retraced variant use `parent`'s parameter objects, so gradients and
        optimizer steps through any input shape reach the one set the user trains
        (`parent.module`, `parent.params`). It keeps its own values only where they are
        not the parent's: a buffer whose traced value differs (a constant lifted from a
        shape-dependent array)."""
        mine, theirs = self.ir_module.params, parent.ir_module.params
        self._own = {k: v for k, v in self._params.items()
                     if not _same(mine.get(k), theirs.get(k), k in parent._trainable)}
        self.params = {**parent._params, **self._own}
        self.module = parent.module

    def __repr__(self) -> str:
        return (f"<ivy_ir.Compiled target={self.target} ops={self.ir_module.op_count()} "
                f"params={len(self._params)}>")


def _same(mine: Any, theirs: Any, trainable: bool) -> bool:
    """Whether a variant's parameter is the parent's: a trainable one whenever its type
    is (the user's weight), a buffer only when its value is too."""
    if mine is None or theirs is None or mine.shape != theirs.shape or mine.dtype != theirs.dtype:
        return False
    return trainable or np.array_equal(mine, theirs, equal_nan=True)


def _fits(got: TensorSpec, want: TensorSpec) -> bool:
    return got.dtype == want.dtype and got.rank == want.rank and all(
        w is None or g == w for g, w in zip(got.shape, want.shape))


_MISSING = object()


def _shared_dims(module: Module) -> list[tuple[int, int, int, int, str]]:
    """Each later use of a dynamic dim's name paired with its first (user inputs)."""
    dims = [a.dims for a in module.args() if a.param is None and not a.rng]
    first: dict[str, tuple[int, int]] = {}
    out = []
    for i, names in enumerate(dims):
        for d, name in enumerate(names):
            if name is not None and name in first:
                out.append((*first[name], i, d, name))
            elif name is not None:
                first[name] = (i, d)
    return out


def _spread(value: Any, n: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A program of several inputs called with one list of them (or a dict by input
    name), the way a Keras model of several inputs is called: `c([a, b])`."""
    if isinstance(value, (list, tuple)) and len(value) == n:
        return tuple(value), {}
    if isinstance(value, dict):
        return (), dict(value)
    return (value,), {}
