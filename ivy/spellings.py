"""What a backend is to the facade: its framework's imports, array namespace, native
dtypes, and its spellings of the standard functions its lowering rules do not give.

A spelling is one Python expression over the function's parameter names. Spellings
exist only where the standard asks for something the IR op does not carry (a `dtype=`
default, `include_initial`), where a framework names a standard function differently,
or for functions with no op in the registry (creation from objects, data-dependent
shapes, fft); everything else comes from the target's lowering rules (`native.py`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy

from ivy_ir.dialect.types import numpy_dtype

from .catalogue import FacadeFn
from .dtypes import NAMES, dtype_name
from .rescue import Rescued
from .spellings_tensorflow import (
    TENSORFLOW_KERNELS,
    TENSORFLOW_SKIP_RULES,
    TENSORFLOW_SPELLINGS,
)
from .spellings_torch import TORCH_KERNELS, TORCH_SKIP_RULES, TORCH_SPELLINGS


@dataclass(frozen=True)
class Backend:
    name: str
    imports: str
    ns: str
    """The array namespace rules call `{ns}` and spellings call by name."""
    roots: tuple[str, ...]
    """Top-level module names of this framework's array types (type inference)."""
    native_dtype: Callable[[dict[str, Any], str], Any]
    """The framework's dtype object of a name (None where it has none)."""
    passthrough: bool = False
    """Whether the namespace implements the standard, so a function without a rule may
    be its same-named function."""
    own_spellings: dict[str, str | Rescued] = field(default_factory=dict)
    kernels: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Functions spellings call by name (for the few that take more than one call)."""
    skip_rules: frozenset[str] = frozenset()
    """Functions whose lowering rule gives the IR's stricter semantics (one dtype,
    canonical axes) rather than the standard's: the namespace's own function instead."""
    compile_kernel: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda kernel: kernel
    """How the framework compiles a kernel of several calls into one (`jax.jit`)."""
    compiled_kernels: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Kernels spellings call by name that `compile_kernel` compiles when the backend is
    built (several native calls as one)."""
    hands_back: Callable[[Any, FacadeFn], bool] = lambda native, fn: False
    """Whether a native function, as `fn`, hands a tracer argument back to it (NumPy's
    ufuncs and array functions do, through `__array_ufunc__`/`__array_function__`,
    torch's C functions through `__torch_function__`) and needs nothing else of our
    frame: such a function may be bound into `ivy` itself, since traced code still
    records what it calls."""

    @property
    def spellings(self) -> dict[str, str | Rescued]:
        return {**COMMON_SPELLINGS, **self.own_spellings}

    def dtypes(self, env: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for n in NAMES:
            native = self.native_dtype(env, n)
            if native is not None:
                out[n] = native
        return out

    def helpers(self, env: dict[str, Any]) -> dict[str, Any]:
        """`_dt`: any spelling of a dtype (or None) to this framework's dtype object."""
        table: dict[Any, Any] = {None: None}
        for n, native in self.dtypes(env).items():
            table[n] = table[native] = native

        def _dt(d: Any) -> Any:
            try:
                return table[d]
            except (KeyError, TypeError):
                name = dtype_name(d)
                if name is not None and name in table:  # (None is in it: no dtype given)
                    return table[name]
                raise TypeError(f"the {self.name} backend has no dtype {d!r}") from None
        return {"_dt": _dt, "_DTYPES": table, "_to_numpy": _to_numpy, **self.kernels}


def _numpy_like(env: dict[str, Any], name: str) -> Any:
    try:
        return numpy_dtype(name)  # bfloat16 through ml_dtypes, where it is installed
    except ImportError:
        return None


def _torch(env: dict[str, Any], name: str) -> Any:
    return getattr(env["torch"], name, None)


def _tensorflow(env: dict[str, Any], name: str) -> Any:
    return env["tf"].as_dtype(name)


def _torch_builtin(f: Any, fn: FacadeFn) -> bool:
    """torch's C functions hand a tracer back through `__torch_function__` with the
    arguments as called (its Python ones, `F.relu`, add keywords of their own). Only
    functions of one array: torch refuses some mixed dtypes that our frame's retry
    promotes."""
    return (isinstance(f, types.BuiltinFunctionType) and len(fn.arrays) == 1
            and (getattr(f, "__module__", None) or "").startswith("torch"))


def _to_numpy(x: Any) -> Any:
    """A NumPy array of any framework's array (torch's through `detach`)."""
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    return numpy.asarray(x)


COMMON_SPELLINGS = {
    "to_numpy": "_to_numpy(x)",
    "to_native": "_ivy_asarray(x)",
}
"""Spellings every backend shares (`_ivy_<name>` calls that backend's own function)."""

BATCHED_LINSPACE = ("{ns}.linspace(start, stop, num, endpoint=endpoint, dtype=_dt(dtype), "
                    "axis=-1)")
"""`linspace` between array endpoints (the 2021 API's batched form: samples along a new
last axis); scalar endpoints give the standard's 1-D result."""

def _as_lists(ns: str) -> dict[str, str]:
    """The standard returns lists where NumPy and JAX return tuples."""
    return {"meshgrid": f"list({ns}.meshgrid(*arrays, indexing=indexing))",
            "broadcast_arrays": f"list({ns}.broadcast_arrays(*arrays))"}


NUMPY_SPELLINGS = {
    **_as_lists("np"),
    "linspace": BATCHED_LINSPACE.format(ns="np"),
    # NumPy's diff takes no None for prepend/append (its default is a sentinel)
    "diff": ("np.diff(x, n, axis, **{k: v for k, v in (('prepend', prepend), "
             "('append', append)) if v is not None})"),
    "fft.fftfreq": "np.fft.fftfreq(n, d=d).astype(_dt(dtype) or np.float64, copy=False)",
    "fft.rfftfreq": "np.fft.rfftfreq(n, d=d).astype(_dt(dtype) or np.float64, copy=False)",
    # a float `correction=` takes NumPy's slower float-ddof path (~10% of a 1e4 std)
    **{n: (f"np.{n}(x, axis=axis, keepdims=keepdims) if correction == 0 else "
           f"np.{n}(x, axis=axis, correction=correction, keepdims=keepdims)")
       for n in ("std", "var")},
    # `np.sum` and its kin are Python wrappers (~1.7 us a call) around the ufunc's
    # `reduce`, which gives the same dtype (small integers widen to the platform's)
    **{n: f"np.{u}.reduce(x, axis, {dt}, None, keepdims)"
       for n, u, dt in (("sum", "add", "None if dtype is None else _dt(dtype)"),
                        ("prod", "multiply", "None if dtype is None else _dt(dtype)"),
                        ("max", "maximum", "None"), ("min", "minimum", "None"))},
    # NumPy's index dtype is already the standard's int64 on 64-bit platforms
    **({n: f"np.{n}(x, axis=axis, keepdims=keepdims)" for n in ("argmax", "argmin")}
       if numpy.dtype(numpy.intp) == numpy.int64 else {}),
}


def _default_integer(dtype: Any) -> Any:
    """The standard's `cumulative_prod` dtype for `dtype` when none is given: an integer
    narrower than JAX's default one of its signedness widens to it (jnp.cumulative_prod
    keeps uint8 and int8 where its cumulative_sum widens them); others stay."""
    if dtype.kind not in "iub":
        return dtype
    canonical = sys.modules["jax"].dtypes.canonicalize_dtype  # loaded: the backend is jax
    wide = canonical(numpy.uint64 if dtype.kind == "u" else numpy.int64)
    return wide if dtype.kind == "b" or dtype.itemsize < wide.itemsize else dtype


def _index_array(i: Any) -> Any:
    """Indices in JAX's default integer dtype, the standard's index dtype (int64 under
    `jax_enable_x64`): jnp.searchsorted gives int32 whatever the flag."""
    wide = sys.modules["jax"].dtypes.canonicalize_dtype(numpy.int64)
    return i if i.dtype == wide else i.astype(wide)


def _jax_sign(x: Any) -> Any:
    """jnp.sign with +0 for a zero (the standard's 0; XLA keeps -0 and -0j), jitted (XLA
    folds a `+ 0` away: a select instead)."""
    jnp = sys.modules["jax"].numpy
    s = jnp.sign(x)
    return jnp.where(s == 0, 0, s)


JAX_SPELLINGS = {
    "sign": "_sign(x)",
    "searchsorted": "_index_array(jnp.searchsorted(x1, x2, side=side, sorter=sorter))",
    "linspace": BATCHED_LINSPACE.format(ns="jnp"),
    **_as_lists("jnp"),
    "cumulative_prod": ("jnp.cumulative_prod(x, axis=axis, dtype=_default_integer(x.dtype) "
                        "if dtype is None else _dt(dtype), include_initial=include_initial)"),
}

BACKENDS: dict[str, Backend] = {
    "numpy": Backend("numpy", "", "np", ("numpy",), _numpy_like,
                     passthrough=True, own_spellings=NUMPY_SPELLINGS,
                     # the standard's named result (SlogdetResult): NumPy's own function
                     skip_rules=frozenset({"linalg.slogdet"}),
                     hands_back=lambda f, fn: isinstance(f, (numpy.ufunc, type(numpy.where)))),
    "jax": Backend("jax", "", "jnp", ("jax", "jaxlib"), _numpy_like, passthrough=True,
                   own_spellings=JAX_SPELLINGS,
                   kernels={"_default_integer": _default_integer, "_index_array": _index_array},
                   # the standard's named results (EighResult, SVDResult,
                   # SlogdetResult), which the target's kernels do not build: jax.numpy's
                   skip_rules=frozenset({"linalg.eigh", "linalg.svd", "linalg.slogdet"}),
                   compiled_kernels={"_sign": _jax_sign},
                   compile_kernel=lambda kernel: sys.modules["jax"].jit(kernel)),
    "torch": Backend("torch", "", "torch", ("torch",), _torch, own_spellings=TORCH_SPELLINGS,
                     kernels=TORCH_KERNELS, skip_rules=TORCH_SKIP_RULES,
                     hands_back=_torch_builtin),
    "tensorflow": Backend("tensorflow", "import tensorflow.experimental.numpy as tnp\n",
                          "tnp", ("tensorflow",), _tensorflow,
                          own_spellings=TENSORFLOW_SPELLINGS, kernels=TENSORFLOW_KERNELS,
                          skip_rules=TENSORFLOW_SKIP_RULES),
}
