"""`ivy.numpy`, `ivy.torch`, `ivy.jax`, `ivy.tensorflow`: a backend's whole namespace.

Each is a module object that builds on first use (importing its framework then, not
before): the functions `native.py` generates, the `linalg` and `fft` extensions as
sub-namespaces, the framework's own dtype objects under the standard's names, the
standard's dtype functions and constants, the 2021 API's aliases, and `use`, the
context manager that sets it globally for a block.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import Any

from ivy_ir.core.tracer import FOREIGN
from ivy_ir.dialect.dtypes import WIDE

from . import native
from .catalogue import CATALOGUE
from .dtypes import (
    DEFAULTS,
    can_cast_names,
    dtype_name,
    finfo_of,
    iinfo_of,
    isdtype_name,
    result_type_names,
)
from .promotion import call_bound, promoted
from .tracing import FUNCTIONS as TRACING
from .tracing import is_traced, record

ALIASES = {"reduce_mean": "mean", "reduce_sum": "sum", "reduce_min": "min",
           "reduce_max": "max", "reduce_prod": "prod", "cast": "astype", "array": "asarray",
           "concatenate": "concat",
           "transpose": "permute_dims",
           "svd": "linalg.svd", "cholesky": "linalg.cholesky", "inv": "linalg.inv",
           "det": "linalg.det", "solve": "linalg.solve", "qr": "linalg.qr",
           "eigh": "linalg.eigh", "matrix_norm": "linalg.matrix_norm",
           "vector_norm": "linalg.vector_norm"}
"""Names of the Ivy papers (and registry op names) that the standard spells otherwise."""

CONSTANTS = {"e": math.e, "pi": math.pi, "inf": math.inf, "nan": math.nan, "newaxis": None}
VERSION = "2024.12"


def tracing_functions() -> dict[str, Callable[..., Any]]:
    return TRACING


def _retry(name: str, exc: Exception, bound: dict[str, Any],
           functions: dict[str, Callable[..., Any]],
           rescue: Callable[..., Any] | None = None) -> Any:
    """A backend function's failure path: record the call when it carries tracers;
    the spelling's rescue where it has one and takes the case; call again with the
    operands promoted as the tracer would where the native call refused mixed dtypes
    (`promotion.py`); else the framework's own error."""
    fn = CATALOGUE[name]
    if is_traced(bound.values()):
        return record(fn, bound)
    if rescue is not None:
        out = rescue(**bound)
        if out is not NotImplemented:
            return out
    again = promoted(fn, bound, functions["astype"])
    if again is None:
        raise exc
    return call_bound(fn, functions[name], again)


class BackendNamespace(types.ModuleType):
    """One backend's functional API, built on first attribute access."""

    def __init__(self, name: str):
        super().__init__(f"ivy.{name}", f"The ivy functional API on {name}'s own arrays.")
        self.backend_name = name
        self._built: dict[str, Any] | None = None

    selector: Callable[[BackendNamespace], Any]
    """`backend.with_backend`, set by that module (which imports this one)."""

    @property
    def use(self) -> Any:
        """`with ivy.torch.use:` sets this backend globally for the block."""
        return self.selector(self)

    @property
    def functions(self) -> dict[str, Callable[..., Any]]:
        """Facade name (dotted for extensions) -> function; what `f=` dispatches to."""
        return self._build()["__functions__"]

    @property
    def eager(self) -> dict[str, Callable[..., Any]]:
        """The same, for arguments known to be this framework's arrays (no tracer):
        the framework's own function itself wherever ours only passes the arguments
        on, which is what inference dispatches to."""
        return self._build()["__eager__"]

    def exports(self) -> dict[str, Any]:
        """Name -> value, as `set_backend` binds them into `ivy`."""
        return self._build()

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr not in ("__array_namespace_info__",
                                                  "__array_api_version__"):
            raise AttributeError(attr)
        try:
            return self._build()[attr]
        except KeyError:
            raise AttributeError(f"ivy.{self.backend_name} has no attribute '{attr}'") from None

    def __dir__(self) -> list[str]:
        return sorted(self._build())

    def _build(self) -> dict[str, Any]:
        if self._built is None:
            gen = native.build(self.backend_name, _retry)
            self._built = _exports(self.backend_name, gen, _handing_back(gen))
            functions = {**self._built["__functions__"], **gen.functions,
                         **{alias: gen.functions[t] for alias, t in ALIASES.items()}}
            self._built["__functions__"] = functions
            self._built["__eager__"] = _eager(functions, gen)
            self._built.update(source=gen.source, origin=gen.origin)
        return self._built


def _handing_back(gen: Any) -> dict[str, Callable[..., Any]]:
    """The functions the namespace holds: the native function itself wherever ours only
    passes the arguments on and the native hands tracers back (then entered in the
    tracer's `FOREIGN` table, recording this function's op), else ours."""
    out = dict(gen.functions)
    for name, f in gen.eager.items():
        if f is not gen.functions[name] and gen.backend.hands_back(f, CATALOGUE[name]):
            out[name] = f
            FOREIGN.setdefault(f, TRACING[name])
    return out


def _exports(name: str, gen: Any, funcs: dict[str, Callable[..., Any]]) -> dict[str, Any]:
    dtypes = gen.env["_DTYPES"]
    natives = {n: dtypes[n] for n in dtypes if isinstance(n, str)}
    wide = _WIDE.get(name, lambda env: True)
    return namespace_values(f"ivy.{name}", funcs, natives, _DEVICES[name](gen.env),
                            lambda: wide(gen.env))


def _eager(functions: dict[str, Callable[..., Any]], gen: Any) -> dict[str, Callable[..., Any]]:
    """`functions` with each generated function that only passes its arguments on
    replaced by the callable it passes them to (aliases included)."""
    by_function = {id(gen.functions[n]): f for n, f in gen.eager.items()}
    return {n: by_function.get(id(f), f) for n, f in functions.items()}


def namespace_values(module: str, funcs: dict[str, Callable[..., Any]],
                     dtypes: dict[str, Any], device: Any = "cpu",
                     wide: Callable[[], bool] = lambda: True) -> dict[str, Any]:
    """What a namespace holds, from its functions (dotted names for extensions) and
    dtype objects: the backends' and, with ivy's own dtypes, the agnostic `ivy`."""
    out: dict[str, Any] = {k: v for k, v in funcs.items() if "." not in k}
    for ext in ("linalg", "fft"):
        sub = types.ModuleType(f"{module}.{ext}")
        sub.__dict__.update({k.partition(".")[2]: v for k, v in funcs.items()
                             if k.startswith(ext + ".")})
        out[ext] = sub
    out.update({alias: funcs[target] for alias, target in ALIASES.items()})
    out.update(dtypes)
    out.update(CONSTANTS)
    dtype_functions = _dtype_functions(dtypes)
    out.update(dtype_functions)
    out["__array_api_version__"] = VERSION
    out["__array_namespace_info__"] = lambda: _Info(dtypes, device, wide())
    out["__functions__"] = {**funcs, **{a: funcs[t] for a, t in ALIASES.items()},
                            **dtype_functions}
    return out


def _name_of(x: Any) -> str:
    name = dtype_name(x)
    if name is None:
        name = dtype_name(getattr(x, "dtype", None))
    if name is None:
        raise TypeError(f"expected a dtype or an array, got {type(x).__name__}")
    return name


def _dtype_functions(natives: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    def finfo(type: Any, /) -> Any:  # noqa: A002 (the standard's parameter name)
        name = _name_of(type)
        real = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        return finfo_of(name, natives.get(real, real))

    def iinfo(type: Any, /) -> Any:  # noqa: A002
        name = _name_of(type)
        return iinfo_of(name, natives[name])

    def result_type(*arrays_and_dtypes: Any) -> Any:
        names = [_name_of(a) for a in arrays_and_dtypes
                 if not isinstance(a, (bool, int, float, complex))]
        if not names:
            raise TypeError("result_type needs at least one array or dtype")
        return natives[result_type_names(*names)]

    def can_cast(from_: Any, to: Any, /) -> bool:
        return can_cast_names(_name_of(from_), _name_of(to))

    def isdtype(dtype: Any, kind: Any) -> bool:
        return isdtype_name(_name_of(dtype), kind)

    return {"finfo": finfo, "iinfo": iinfo, "result_type": result_type,
            "can_cast": can_cast, "isdtype": isdtype}


_DEVICES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "numpy": lambda env: "cpu",
    "jax": lambda env: env["jax"].devices("cpu")[0],
    "torch": lambda env: env["torch"].device("cpu"),
    "tensorflow": lambda env: "/job:localhost/replica:0/task:0/device:CPU:0",
}
"""The CPU as each framework names it (what its arrays' `.device` compares equal to)."""

_WIDE: dict[str, Callable[[dict[str, Any]], bool]] = {
    "jax": lambda env: bool(env["jax"].config.jax_enable_x64),
}
"""Whether a backend has 64-bit dtypes now: JAX only with the user's `jax_enable_x64`
(which the facade never sets), and then its defaults are 32-bit, as `jax.numpy`'s."""
NARROW_DEFAULTS = {"real floating": "float32", "complex floating": "complex64",
                   "integral": "int32", "indexing": "int32"}


class _Info:
    """`__array_namespace_info__()`: what this backend offers (its CPU only, here)."""

    def __init__(self, natives: dict[str, Any], device: Any = "cpu", wide: bool = True):
        self._natives = natives
        self._device = device
        self._wide = wide

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Any:
        return self._device

    def devices(self) -> list[Any]:
        return [self._device]

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        defaults = DEFAULTS if self._wide else NARROW_DEFAULTS
        return {k: self._natives[v] for k, v in defaults.items()}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        return {n: d for n, d in self._natives.items()
                if n not in ("bfloat16", "float16") and (self._wide or n not in WIDE)
                and (kind is None or isdtype_name(n, kind))}
