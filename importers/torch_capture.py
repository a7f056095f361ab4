"""Capturing a torch program with `torch.export`, and turning export failures into
user-facing errors.

Functions are wrapped in a small `nn.Module` so that functions and models share one
path; example arguments of other frameworks become torch tensors. A failure inside
torch (data-dependent control flow, an unsupported construct) becomes one `TraceError`
naming the user's file:line, taken from the exception's traceback; an exception raised
by the user's own code passes through untouched. A failure at a Python `while` over
tensor data is first offered to `torch_loops`, which rewrites the loop as
`torch.while_loop` for a second attempt.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import os
import re
import sys
import sysconfig
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from ivy_ir.core.errors import TraceError
from ivy_ir.core.locations import short_path

TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB = sysconfig.get_paths()["stdlib"] + os.sep
FRAME = re.compile(r'File "([^"]+)", line (\d+)')
"""One frame of a Python traceback as text (torch's recorded stack traces, messages)."""
_QUIET = ("torch.fx.experimental.symbolic_shapes", "torch._export", "torch.export",
          "torch._dynamo", "torch._subclasses.fake_tensor")


def input_names(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 skip_first: bool) -> list[str] | None:
    """The user's parameter names for the exported inputs (None when the arguments are
    nested, and torch's flattened names are kept)."""
    if any(isinstance(a, (list, tuple, dict)) for a in (*args, *kwargs.values())):
        return None
    try:
        names = list(inspect.signature(fn).parameters)[int(skip_first):]
    except (TypeError, ValueError):
        return None
    if len(names) < len(args) or any(p.startswith("*") for p in names[:len(args)]):
        return None
    return names[:len(args)] + list(kwargs)


class FunctionModule(torch.nn.Module):
    """A plain function as a module, so functions and models share one export path.
    With `params`/`buffers` (nested dicts) the function is called as
    `fn(tree, *args)` and each leaf is registered under its dotted path."""

    def __init__(self, fn: Any, params: Any, buffers: Any):
        super().__init__()
        self.fn = fn
        # torch.export records only `forward` frames (and registered anchors) in each
        # node's stack trace; anchoring the function keeps the user's own lines
        anchor = getattr(torch.fx.proxy, "_register_stack_trace_anchor", None)
        if anchor is not None:
            anchor(inspect.unwrap(fn))  # the user's function, not the API's result check
        self.has_tree = params is not None or buffers is not None
        if self.has_tree:
            self.store = _tree_module(params or {}, buffers or {})

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if self.has_tree:
            return self.fn(_tree_of(self.store), *args, **kwargs)
        return self.fn(*args, **kwargs)


def _tree_module(params: dict[str, Any], buffers: dict[str, Any]) -> torch.nn.Module:
    holder = torch.nn.Module()
    for key in dict.fromkeys(list(params) + list(buffers)):
        p, b = params.get(key), buffers.get(key)
        if isinstance(p, dict) or isinstance(b, dict):
            holder.add_module(key, _tree_module(p or {}, b or {}))
        elif p is not None:
            holder.register_parameter(key, torch.nn.Parameter(_tensor(p)))
        else:
            holder.register_buffer(key, _tensor(b))
    return holder


def _tree_of(holder: torch.nn.Module) -> dict[str, Any]:
    tree: dict[str, Any] = dict(holder.named_parameters(recurse=False))
    tree.update(holder.named_buffers(recurse=False))
    tree.update({k: _tree_of(m) for k, m in holder.named_children()})
    return tree


def _tensor(value: Any) -> torch.Tensor:
    return value if isinstance(value, torch.Tensor) else torch.as_tensor(np.asarray(value))


def to_torch(tree: Any) -> Any:
    """Example arguments as torch tensors (NumPy or other frameworks' arrays are
    converted; Python scalars stay static values)."""
    if isinstance(tree, dict):
        return {k: to_torch(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_torch(v) for v in tree)
    if isinstance(tree, (np.ndarray, np.generic)) or (
            hasattr(tree, "__array__") and not isinstance(tree, torch.Tensor)):
        try:
            array = np.asarray(tree)  # a JAX array's view is read-only, which torch warns of
            return torch.as_tensor(array if array.flags.writeable else array.copy())
        except TypeError:  # an abstract array (a JAX tracer: a first call under jax.jit)
            return torch.from_numpy(np.zeros(tree.shape, np.dtype(tree.dtype)))
    return tree


def _type_str(t: torch.Tensor) -> str:
    return f"{str(t.dtype).removeprefix('torch.')}{list(t.shape)}"


def check_exported(ep: torch.export.ExportedProgram, args: tuple[Any, ...],
                   kwargs: dict[str, Any], params: Any, buffers: Any) -> None:
    """An `ExportedProgram` has fixed input types and its own state: example arguments,
    when given, must be of those types (the graph was specialized to them), and
    `params`/`buffers` have no place (the program's state_dict holds them)."""
    if params is not None or buffers is not None:
        raise TraceError("an ExportedProgram carries its own parameters and buffers; "
                         "call without params=/buffers=")
    if not args and not kwargs:
        return
    given = [a for a in torch.utils._pytree.tree_leaves((to_torch(args), to_torch(kwargs)))
             if isinstance(a, torch.Tensor)]
    users = set(ep.graph_signature.user_inputs)
    wanted = [(n.name, n.meta["val"]) for n in ep.graph.nodes
              if n.op == "placeholder" and n.name in users
              and isinstance(n.meta.get("val"), torch.Tensor)]
    if len(given) != len(wanted):
        raise TraceError(f"the ExportedProgram takes {len(wanted)} tensor inputs, got "
                         f"{len(given)} tensor arguments")
    for i, (arg, (name, val)) in enumerate(zip(given, wanted)):
        if arg.dtype != val.dtype or tuple(arg.shape) != tuple(val.shape):
            raise TraceError(f"argument {i} is {_type_str(arg)}, but the ExportedProgram's "
                             f"input '{name}' was exported as {_type_str(val)}; export it "
                             "again with arguments of this type")


# ---- capture ----

_EXPORTING = threading.RLock()
"""Held while torch traces (`export`, `run_decompositions`): torch.export keeps its
state in module globals, so two threads exporting at once break each other
(`_EXPORT_MODULE_HIERARCHY must not be None`), and the log levels set here are global
too. Reentrant: a user's function may compile another torch function while traced."""


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Export alone (see `_EXPORTING`), silencing torch's own log lines and deprecation
    warnings: they are about torch's internals, and failures surface as one TraceError."""
    with _EXPORTING:
        loggers = [logging.getLogger(n) for n in _QUIET]
        levels = [lg.level for lg in loggers]
        for lg in loggers:
            lg.setLevel(logging.CRITICAL)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                # nn.LSTM/GRU/RNN re-list their own parameters in `_flat_weights`
                # while called, which export reports as an unregistered attribute
                warnings.filterwarnings("ignore", r"The tensor attributes self\._flat_weights")
                yield
        finally:
            for lg, level in zip(loggers, levels):
                lg.setLevel(level)


def export(module: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any],
           rewriter: Any = None, dynamic_shapes: Any = None) -> torch.export.ExportedProgram:
    """Export `module`. A `rewriter` (`torch_loops.LoopRewriter`) sees each failure
    first: when it rewrites the code that failed (a `while` over tensor data), the
    export is tried again with its rewrites in place."""
    while True:
        printed = io.StringIO()  # stderr while tracing, passed on when the attempt ends
        try:
            with quiet(), contextlib.redirect_stderr(printed), \
                    rewriter.applied() if rewriter else contextlib.nullcontext():
                return torch.export.export(module, args, kwargs,
                                           dynamic_shapes=dynamic_shapes)
        except TraceError:
            raise  # ours, raised while exporting (a loop that cannot be rewritten)
        except Exception as exc:
            if rewriter is not None and rewriter.learn(exc):
                # torch printed the graph it traced up to the loop; the retry replaces it
                partial = f"{getattr(exc, 'partial_fx_graph', '')}\n"
                printed = io.StringIO(printed.getvalue().replace(partial, ""))
                continue
            where = _exception_location(exc)
            if where is None:
                raise  # raised by the user's own code: their traceback is the right one
            if where == "<unknown location>":  # e.g. an output torch cannot carry
                where = _forward_location(module)
            note = rewriter.note() if rewriter else ""
            raise TraceError(_describe(exc, where) + _remedy(exc, module) + note) from None
        finally:
            sys.stderr.write(printed.getvalue())


def _forward_location(module: torch.nn.Module) -> str:
    """`Class.forward (file:line)` of the code torch was exporting, for failures that
    belong to no single line (what `forward` returns)."""
    fn = inspect.unwrap(module.fn) if isinstance(module, FunctionModule) else \
        type(module).forward
    try:
        file, line = inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return "<unknown location>"
    return f"{fn.__qualname__} ({short_path(file or '?')}:{line})"


_CACHE_OUTPUT = re.compile(r"Found <class '[\w.]*\.(\w*Cache)'> in output")


def _remedy(exc: BaseException, module: torch.nn.Module) -> str:
    """What the user can do, where the failure is a known one with a known way out."""
    cache = _CACHE_OUTPUT.search(str(exc))
    forward = module.fn if isinstance(module, FunctionModule) else module.forward
    try:
        takes_use_cache = "use_cache" in inspect.signature(forward).parameters
    except (TypeError, ValueError):
        takes_use_cache = False
    if cache and takes_use_cache:
        return (f"\n  The model returns its key/value cache ({cache.group(1)}), an object "
                "torch.export cannot carry as an output. Compile it without the cache: "
                "ivy_ir.compile(model, ..., kwargs={'use_cache': False}).")
    return ""


def user_frame(filename: str) -> bool:
    return not filename.startswith((TORCH_DIR, _OWN_DIR, _STDLIB)) and \
        not filename.startswith("<")


def _exception_location(exc: BaseException) -> str | None:
    """The user's line that made torch fail, or None when the user's code raised."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    if frames and user_frame(frames[-1][0]):
        return None
    users = [f for f in frames if user_frame(f[0])] or \
        [(f, int(n)) for f, n in FRAME.findall(str(exc)) if user_frame(f)]
    if not users:
        return "<unknown location>"
    file, line = users[-1]
    return f"{short_path(file)}:{line}"


def data_dependent(exc: BaseException) -> bool:
    """Whether torch failed on a value it cannot know while tracing."""
    return "data-dependent" in str(exc) or "GuardOnDataDependent" in type(exc).__name__


def _describe(exc: BaseException, where: str) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if data_dependent(exc):
        return (f"data-dependent Python control flow at {where}: a branch, loop bound or "
                "Python number depends on tensor values, which are not known while "
                f"tracing; use torch.where or tensor ops instead (torch: {first})")
    return f"torch.export failed at {where}: {first}"
