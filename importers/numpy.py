"""The NumPy importer: runs a NumPy function on `NpArray` tracers and records every
NumPy call it makes as ivy ops.

Array arguments become function inputs; other arguments stay static Python values (a
Python float argument is therefore a weak scalar, as in NumPy). With `params` (and
`buffers`) the function is called as `fn(params, *args)`, each leaf a parameter named
by its pytree path joined with '.'. Arrays the function closes over are constants:
inline when small, one buffer parameter each when large. That holds also where a traced
array meets them through NumPy's own indexing (`wte[ids]`, `np.take(wte, ids)`): the
function runs as a copy that reads them as `numpy_capture.Captured` views.

What NumPy calls mean is NumPy's business: promotion, axes and errors come from NumPy
itself (see `numpy_array`), and results match `fn` run on NumPy arrays, dtypes
included. Python control flow runs once, on the traced shapes: loops over static sizes
unroll, while branching on traced data raises `ivy_ir.TraceError` at the user's line.

This module is the only one that sees every part: it merges the op families' tables
(`numpy_math`, `numpy_reduce`, `numpy_shape`, `numpy_index`, `numpy_linalg`,
`numpy_fft`) into
`TABLE` and gives the session the handlers that dispatch to them, so the recording
array (`numpy_array`) imports no op family and no family imports this module.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ivy_ir.core.graph import input_names, is_array
from ivy_ir.core.module import Module
from ivy_ir.dialect import TensorSpec

from .common import ImportBuilder, Rule, dtype_of, merge_tables
from .numpy_array import Handlers, NpArray, Session
from .numpy_capture import capture
from .numpy_context import call_function
from .numpy_fft import FFT
from .numpy_index import INDEX, get_item, set_item
from .numpy_linalg import LINALG
from .numpy_math import MATH, ONE_TO_ONE, UFUNCS, call_ufunc
from .numpy_reduce import REDUCE
from .numpy_shape import SHAPE

FUNCTIONS: dict[str, Rule] = merge_tables(MATH, REDUCE, SHAPE, INDEX, LINALG, FFT)
"""NumPy function (public name, `sum`, `linalg.inv`) -> its rule; see `numpy_context`."""
TABLE: dict[str, Rule] = merge_tables(FUNCTIONS, UFUNCS)
"""Every NumPy name the importer maps: the functions and the ufuncs (`ufunc.__name__`)."""
__all__ = ["FUNCTIONS", "ONE_TO_ONE", "TABLE", "UFUNCS", "import_program"]

HANDLERS = Handlers(ufunc=call_ufunc, function=partial(call_function, FUNCTIONS),
                    get_item=get_item, set_item=set_item)
"""How traced arrays dispatch the NumPy calls they receive."""


def _as_numpy(x: Any) -> np.ndarray:
    """Any array-like example argument (NumPy, torch, JAX, TF) as a NumPy array."""
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    if hasattr(x, "numpy") and not isinstance(x, (np.ndarray, np.generic)):
        x = x.numpy()
    return np.asarray(x)


def flatten_tree(tree: Any, prefix: str = "") -> dict[str, Any]:
    """Leaves of nested dicts/lists/tuples keyed by their '.'-joined path."""
    if isinstance(tree, dict):
        items = [(str(k), v) for k, v in tree.items()]
    elif isinstance(tree, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(tree)]
    else:
        return {prefix[:-1]: tree}
    out: dict[str, Any] = {}
    for k, v in items:
        out.update(flatten_tree(v, f"{prefix}{k}."))
    return out


def rebuild_tree(tree: Any, leaves: dict[str, Any], prefix: str = "") -> Any:
    """`tree` with each leaf replaced by `leaves[path]`."""
    if isinstance(tree, dict):
        return {k: rebuild_tree(v, leaves, f"{prefix}{k}.") for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(rebuild_tree(v, leaves, f"{prefix}{i}.") for i, v in enumerate(tree))
    return leaves[prefix[:-1]]


def _merge(params: Any, buffers: Any) -> tuple[Any, set[str]]:
    """One tree of parameters and buffers, and the paths of the trainable leaves."""
    if buffers is None:
        return params, set(flatten_tree(params)) if params is not None else set()
    if params is None:
        return buffers, set()
    if not (isinstance(params, dict) and isinstance(buffers, dict)):
        raise TypeError("params and buffers must both be dicts to be merged")
    clash = set(params) & set(buffers)
    if clash:
        raise ValueError(f"'{sorted(clash)[0]}' is both a parameter and a buffer")
    return {**params, **buffers}, set(flatten_tree(params))


def import_program(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any] | None,
                   *, params: Any = None, buffers: Any = None, name: str = "main") -> Module:
    """Trace the NumPy function `fn` on `args` into an ivy module."""
    kwargs = kwargs or {}
    takes_tree = params is not None or buffers is not None
    arrays = [_as_numpy(a) for a in args if is_array(a)]
    names = input_names(fn, args, takes_tree)
    specs = []
    for arr, arg_name in zip(arrays, names):
        try:
            specs.append(TensorSpec(arr.shape, dtype_of(arr.dtype)))
        except TypeError:
            raise TypeError(f"input '{arg_name}' has dtype {arr.dtype}, which the ivy dialect "
                            "does not support") from None
    builder = ImportBuilder("numpy", specs, names)
    session = Session(builder, HANDLERS)
    inputs = iter(builder.inputs)
    call_args: list[Any] = [NpArray(session, next(inputs)) if is_array(a) else a for a in args]
    if takes_tree:
        tree, trainable = _merge(params, buffers)
        leaves = {path: NpArray(session, builder.param(path, _as_numpy(v), path in trainable))
                  for path, v in flatten_tree(tree).items()}
        call_args.insert(0, rebuild_tree(tree, leaves))
    out = capture(fn)(*call_args, **kwargs)
    if isinstance(out, dict):
        raise TypeError(f"{getattr(fn, '__name__', 'the function')} returned a dict; return "
                        "an array or a tuple/list of arrays")
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    values = [o.value if isinstance(o, NpArray) else session.lift(np.asarray(o)) for o in outs]
    return builder.finish(values, isinstance(out, (tuple, list)), name)
