"""The one walker over a jaxpr: equations in order, each through the lax table.

The table (`importers.jax.TABLE`, assembled from the op-family modules `jax_math`,
`jax_reduce`, `jax_shape`, `jax_index` and `jax_nn`) maps a lax primitive name to a
`Rule`, called as `rule(ctx, *ins, **eqn.params)`: the equation's input values
positionally, its params as keywords, and a `jax_ctx.Ctx` for that one equation (its
result types, emitting, casting, known values, and the state equations share). The rule
returns the result value or the list of results. A primitive without an entry, or a
rule raising `Unmapped`, is recorded for the all-at-once unsupported-op report.

Values flowing between equations are either SSA values of the IR being built or
*known* NumPy arrays (literals, closed-over constants, and results of equations whose
inputs are all known and whose outputs are small, folded by running the primitive).
Known values let the rules read static facts (gather/scatter indices, padding values,
`cond` predicates) and are materialized as constants only where an op needs them.

Higher-order primitives are not mapped but walked into: `jit`/`pjit`, `closed_call`,
`custom_jvp_call`, `custom_vjp_call`, `checkpoint`/`remat` inline their body (the
gradient rule of a custom_jvp/custom_vjp in the user's code is dropped, with a
`CustomGradientWarning`: the IR has no custom-gradient op); `cond`,
`while` and `scan` (`lax.switch` and `fori_loop` stage to them) become the region ops
`ivy.cond`, `ivy.while_loop` and `ivy.scan`, their bodies walked into the regions
(`jax_control.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from jax.extend.core import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal
from xdsl.ir import Attribute, SSAValue

from ivy_ir.core.errors import TraceError
from ivy_ir.core.locations import OWN_DIRS, short_path
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.attrs import AttrError
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.types import dtype_name

from .common import ImportBuilder, Rule, Unmapped, drop_gradient_rule, location, location_str
from .jax_control import CONTROL, ControlFlow
from .jax_ctx import FOLD_LIMIT, Ctx, Value
from .jax_dims import is_static, sized_params
from .jax_random import KEY_PRIMITIVES, KeyWords, is_key_aval

try:  # JAX's own user-frame heuristics (private: without them ops carry no location)
    from jax._src import source_info_util
except ImportError:  # pragma: no cover
    source_info_util = None

CUSTOM_RULES = ("custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr")
"""Inlined primitives whose own gradient rule the IR drops (a warning for user code)."""
INLINED = ("jit", "pjit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call",
           "custom_vjp_call_jaxpr", "checkpoint", "remat", "remat2", "custom_lin")
"""Higher-order primitives whose body is walked in place (older JAX names included)."""
_BODY_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")
UNFOLDED = ("svd", "eigh")
"""Primitives never run on known inputs at import time: JAX's signs are not the IR's
(`jax_linalg.py`); the IR's own folding computes them."""
KINKED = ("relu", "relu6")
"""jax.nn functions imported as the IR op of that name when met as a `custom_jvp_call`."""


def _kinked(eqn: JaxprEqn) -> str | None:
    """The KINKED function a `custom_jvp_call` wraps (its body one `jit` of that name)."""
    body = eqn.params["call_jaxpr"].jaxpr.eqns
    named = body[0].params.get("name") if len(body) == 1 and len(eqn.invars) == 1 else None
    return named if named in KINKED else None


def representable(aval: Any) -> bool:
    """Whether the IR has the dtype of this abstract value (a threefry key array is
    carried as its two uint32 words: `jax_random.KeyWords`)."""
    if is_key_aval(aval):
        return True
    try:
        dtype_name(np.dtype(aval.dtype))
    except (TypeError, ValueError):
        return False
    return hasattr(aval, "shape")


def aval_spec(aval: Any) -> TensorSpec:
    """JAX's type of a (representable) abstract value; of a key array, that of one of
    its words."""
    dtype = "uint32" if is_key_aval(aval) else dtype_name(aval.dtype)
    return TensorSpec(tuple(d if isinstance(d, int) else None for d in aval.shape), dtype)


class JaxprWalker(ControlFlow):
    """Imports jaxpr equations into an `ImportBuilder`, one table rule per primitive."""

    def __init__(self, builder: ImportBuilder, table: Mapping[str, Rule]):
        self.b = builder
        self.rules = table
        self.ctx = Ctx(builder)
        """The state the equations share; each rule gets `ctx.for_equation(...)`."""
        self._locations: dict[int, Attribute | None] = {}
        self.enclosing: Attribute = location(None, None)
        """Location of the control-flow op whose body is being walked: that of the
        body's equations JAX staged without a user frame (a `fori_loop` counter's
        increment, a branch given as `jnp.sin`)."""
        self.pinned: Attribute | None = None
        """Location of a library function's call (jnp.pad, jax.nn.relu) while its body is
        walked: the body's own frames come from whichever call traced it first."""

    # ---- walking ----
    def run(self, jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Value]) -> list[Value]:
        """Import the equations of `jaxpr` on `args`; returns its outputs."""
        env: dict[Any, Value] = {}
        for var, value in zip(jaxpr.constvars, consts):
            env[var] = value if isinstance(value, SSAValue) else np.asarray(value)
        if len(args) != len(jaxpr.invars):
            raise TraceError(f"jaxpr takes {len(jaxpr.invars)} inputs, got {len(args)}")
        env.update(zip(jaxpr.invars, args))
        for eqn in _live(jaxpr):
            outs = self.equation(eqn, [_read(env, v) if used else None
                                       for v, used in _inputs(eqn)])
            for var, value in zip(eqn.outvars, outs):
                if not isinstance(var, DropVar):
                    env[var] = value
        return [_read(env, v) for v in jaxpr.outvars]

    def equation(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        name = eqn.primitive.name
        self.b.at(self.location(eqn))
        if name == "custom_jvp_call" and (op := _kinked(eqn)):
            # jax.nn.relu/relu6: their custom gradient (0 at the kinks) is the IR op's,
            # not that of the max/min body (1/2 at a tie)
            ctx = self.ctx.for_equation(name, [aval_spec(v.aval) for v in eqn.outvars])
            return [ctx.emit(op, *ins)]
        if name in INLINED:
            return self._inline(eqn, ins)
        if name not in KEY_PRIMITIVES and name not in CONTROL and \
                any(isinstance(v, KeyWords) for v in ins):
            return self._by_word(eqn, ins)
        folded = self._fold(eqn, ins)
        if folded is not None:
            return folded
        if name in CONTROL:
            return self.control(eqn, ins)
        rule = self.rules.get(name)
        if rule is None or not all(representable(v.aval) for v in eqn.outvars):
            return self.unsupported(eqn)
        ctx = self.ctx.for_equation(name, [aval_spec(v.aval) for v in eqn.outvars])
        try:
            out = rule(ctx, *ins, **sized_params(eqn.params))
        except Unmapped:
            return self.unsupported(eqn)
        except (InferError, AttrError, TypeError, ValueError) as exc:
            if self.b.missing:  # fed by an unsupported op's placeholder: already reported
                return self.unsupported(eqn, record=False)
            where = location_str(self.location(eqn))
            raise TraceError(f"{where}: cannot import jax op '{name}': {exc}") from None
        return out if isinstance(out, list) else [out]

    def location(self, eqn: JaxprEqn) -> Attribute:
        """The user's source line that staged `eqn` (frames of this package skipped)."""
        if self.pinned is not None:
            return self.pinned
        tb = getattr(eqn.source_info, "traceback", None)
        key = id(tb)
        if key not in self._locations:
            frame = _user_frame(tb)
            self._locations[key] = (location(short_path(frame.file_name), frame.start_line,
                                             frame.start_column + 1) if frame else None)
        found = self._locations[key]
        return self.enclosing if found is None else found

    def unsupported(self, eqn: JaxprEqn, record: bool = True) -> list[Value]:
        """Placeholders for `eqn`'s results; the op joins the all-at-once report."""
        specs = [aval_spec(v.aval) if representable(v.aval) else TensorSpec((), "float32")
                 for v in eqn.outvars]
        if record:
            return self.b.unsupported(eqn.primitive.name, specs)
        return [self.b.emit("zeros", shape=list(s.shape), dtype=s.dtype) for s in specs]

    def _by_word(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        """A primitive moving key arrays around (slice, select, concatenate), run on
        each of their words alike."""
        if not all(is_key_aval(v.aval) for v in eqn.outvars):
            return self.unsupported(eqn)
        words = [self.equation(eqn, [v.words[i] if isinstance(v, KeyWords) else v for v in ins])
                 for i in (0, 1)]
        return [KeyWords(a, b) for a, b in zip(*words)]

    def _fold(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value] | None:
        """Evaluate an equation on known inputs (small results only) at import time."""
        if not all(isinstance(v, np.ndarray) for v in ins) or eqn.effects or \
                eqn.primitive.name in UNFOLDED:
            return None
        avals = [v.aval for v in eqn.outvars]
        if any(is_key_aval(v.aval) for v in (*eqn.invars, *eqn.outvars)):
            return None  # JAX computes on key arrays, which are no NumPy arrays
        if not all(representable(a) and is_static(a.shape) for a in avals) or \
                sum(int(np.prod(a.shape)) for a in avals) > FOLD_LIMIT:
            return None
        try:
            out = eqn.primitive.bind(*ins, **eqn.params)
        except Exception:  # a primitive that cannot run eagerly: import it as an op
            return None
        outs = out if eqn.primitive.multiple_results else [out]
        return [np.asarray(o).astype(a.dtype, copy=False) for o, a in zip(outs, avals)]

    # ---- higher-order primitives ----
    def _inline(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        body = next((eqn.params[k] for k in _BODY_PARAMS if k in eqn.params), None)
        if isinstance(body, ClosedJaxpr):
            jaxpr, consts = body.jaxpr, body.consts
        elif isinstance(body, Jaxpr):
            jaxpr, consts = body, []
        else:
            return self.unsupported(eqn)
        if eqn.primitive.name in CUSTOM_RULES and not _library_function(jaxpr):
            kind = "custom_vjp" if "vjp" in eqn.primitive.name else "custom_jvp"
            what = getattr(jaxpr.debug_info, "func_src_info", None) or "a function"
            drop_gradient_rule(f"jax.{kind} rule of {what}")
        outer = self.pinned
        if outer is None and _library_function(jaxpr):
            self.pinned = self.location(eqn)
        try:
            return self.run(jaxpr, consts, ins)
        finally:
            self.pinned = outer

    def ssa(self, value: Value) -> SSAValue:
        """An SSA value for `value` (a known array becomes a constant, once)."""
        return self.ctx.ssa(value)


def _user_frame(tb: Any) -> Any:
    """The innermost frame of `tb` in neither JAX nor this package, or None."""
    if tb is None or source_info_util is None:
        return None
    try:
        return next((f for f in source_info_util.user_frames(tb)
                     if not f.file_name.startswith(OWN_DIRS)), None)
    except (AttributeError, TypeError):  # a JAX whose tracebacks look different
        return None


def _library_function(jaxpr: Jaxpr) -> bool:
    """Whether a staged function is JAX's own code rather than the user's."""
    src = getattr(jaxpr.debug_info, "func_src_info", None) or ""
    path = src.rpartition(" at ")[2].rpartition(":")[0]
    if not path or source_info_util is None:
        return False
    return not source_info_util.is_user_filename(path)


def _read(env: dict[Any, Value], v: Any) -> Value:
    if isinstance(v, Literal):
        return np.asarray(v.val, dtype=v.aval.dtype)
    return env[v]


def _inputs(eqn: JaxprEqn) -> list[tuple[Any, bool]]:
    """Each input of `eqn` with whether its rule reads it: a `custom_linear_solve` is
    imported from its operator (`jax_linalg.matvec_axis`), so the consts of JAX's own
    solver (`jnp.linalg.solve`'s LU factorization) are never read, nor imported."""
    if eqn.primitive.name != "custom_linear_solve":
        return [(v, True) for v in eqn.invars]
    n = eqn.params["const_lengths"]
    unread = range(n.matvec, n.matvec + n.vecmat + n.solve + n.transpose_solve)
    return [(v, i not in unread) for i, v in enumerate(eqn.invars)]


def _live(jaxpr: Jaxpr) -> list[JaxprEqn]:
    """Equations whose results are used (dead ones, e.g. a scan's dropped counter, are
    never imported), in order."""
    needed = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    live = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in needed for v in eqn.outvars if not isinstance(v, DropVar)):
            live.append(eqn)
            needed.update(v for v, used in _inputs(eqn) if used and not isinstance(v, Literal))
    return live[::-1]

