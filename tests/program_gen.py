"""Random well-typed ivy programs: the hypothesis strategy behind the pass soundness tests.

`programs()` draws a small module (2-12 ops, a step may overshoot a little) with
concrete inputs. It is built through the facade on `Tracer`s, so every op goes through
`OP_CLASSES[name].build` and its inference rule as traced user code does. Each step
picks an op family (`FAMILIES`), then an op from that family's table (in
`program_tables.py`); operands are the values built so far (mostly the newest, so
programs are chains more than forests), new inputs, or constants (among them the
neutral elements 0 and 1 that canonicalization looks for).

One family wraps sub-programs in control flow (`program_control.py`): a `cond`, a
`scan` or a bounded `while_loop` whose bodies are drawn by the same families.

Domains hold by construction: an op with a restricted domain gets a prefix that maps
any value into it (`abs(x) + 1` before log, `tanh(x) / 2` before asin, a clip before
exp). Inputs are exact (multiples of 1/8, small integers), so no NaN or overflow comes
from random data; special values (inf, NaN, -0.0) are placed on purpose, in a fixed
share of float inputs, to test the rewrites that claim exactness at those points.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from program_control import control
from program_tables import (
    BINARY,
    CLASSES,
    COMPOSITES,
    DTYPES,
    FLOATS,
    IDIOMS,
    INTS,
    LAYERS,
    MAX_RANK,
    NEUTRAL,
    REDUCTIONS,
    RHS_ONLY,
    SHAPE_OPS,
    UNARY,
    Domain,
    exponent,
    extremes,
    factor,
    positive,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Region

import ivy.ops as F
from ivy_ir.core.decompose import DECOMPOSITIONS
from ivy_ir.core.graph import Graph
from ivy_ir.core.module import Module
from ivy_ir.core.tracer import Tracer
from ivy_ir.dialect import TensorSpec

MAX_OPS = 12
SPECIALS, SPECIAL_RATE, SPECIAL_OPERAND = (math.inf, -math.inf, math.nan, -0.0), 0.2, 0.1
"""Values given on purpose to a share of float inputs, and to every input drawn as an
operand in the middle of a program (SPECIAL_OPERAND of them): a rewrite that claims
exactness must keep NaN and infinities where they were (`x * 0` is not 0 for inf)."""


@dataclass(frozen=True, repr=False)
class Program:
    """A generated module, its inputs, and the families and forms it was built from."""

    seed: int
    module: Module
    inputs: tuple[np.ndarray, ...]
    families: frozenset[str]
    hostile: bool = False

    def ops(self) -> list[str]:
        """Names of the ivy ops in the program (with repeats)."""
        return [op.name[4:] for op in self.module.entry.walk() if op.name.startswith("ivy.")]

    def __repr__(self) -> str:
        # what hypothesis prints for a failing example: enough to rebuild and to read it
        inputs = "\n".join(f"  x{i} = {a.tolist()!r}" for i, a in enumerate(self.inputs))
        return f"build_program({self.seed}, hostile={self.hostile})\n{self.module}inputs:\n{inputs}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis would pretty-print the fields one by one


class Builder:
    """Draws one program: the block under construction, its values and its inputs.

    Every choice comes from one seeded `random.Random`: hypothesis's own draws favour
    small values (the first option, "yes") several times over, which starved the later
    entries of each table; a seed keeps choices uniform and the program reproducible.
    """

    def __init__(self, seed: int, hostile: bool = False):
        self.rng = random.Random(seed)
        self.hostile = hostile
        self.block = Block()
        self.graph = Graph(self.block, allow_params=False)
        self.pool: list[Tracer] = []
        self.inputs: list[np.ndarray] = []
        self.families: set[str] = set()
        self.depth = 0  # how many region bodies the current step is inside

    def step(self) -> None:
        """One step: a family's op(s), its value joining the pool. Hostile programs draw
        no control flow (`agreement.culprit` runs ops alone, and no region op alone)."""
        names = [f for f in FAMILIES if not (self.hostile and f == "control")]
        family = self.rng.choices(names, [WEIGHTS.get(f, 1) for f in names])[0]
        if (value := FAMILIES[family](self)) is not None:
            self.families.add(family)
            self.pool.append(value)

    def pick(self, options: Any) -> Any:
        return self.rng.choice(tuple(options))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def subset(self, items: Any, lo: int = 0) -> list[Any]:
        """A random subset of `items` (at least `lo` of them), in their order."""
        items = list(items)
        chosen = set(self.rng.sample(range(len(items)), self.integer(lo, len(items))))
        return [v for i, v in enumerate(items) if i in chosen]

    def dim(self) -> int:
        return self.pick((1, 2, 3, 4) * 2 + (2, 0))  # a size-0 dim one time in ten

    def partner_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """A shape that broadcasts against `shape` (dims dropped, set to 1, or added)."""
        out = [d if self.chance(0.75) else 1 for d in shape[self.integer(0, len(shape)):]]
        if len(out) == len(shape) < MAX_RANK and self.chance(0.2):
            out.insert(0, self.pick((1, 2, 3)))
        return tuple(out)

    def new_input(self, shape: tuple[int, ...], dtype: str,
                  specials: float = SPECIAL_RATE) -> Tracer:
        """A new argument of the function, its value drawn (float inputs get special
        values with probability `specials`)."""
        rng = np.random.default_rng(self.integer(0, 2**32 - 1))
        if dtype in FLOATS:
            data = rng.integers(-16, 17, shape) / 8  # multiples of 1/8 in [-2, 2]: exact
            if data.size and self.chance(specials):
                self.families.add("special values")
                data.flat[rng.integers(0, data.size, 2)] = [self.pick(SPECIALS) for _ in "ab"]
        else:
            data = rng.integers(-4, 5, shape) if dtype in INTS else rng.random(shape) < 0.5
        if self.hostile and data.size and dtype != "bool" and self.chance(specials):
            self.families.add("extreme values")  # overflow and its wrap-around
            data.flat[rng.integers(0, data.size, 2)] = [self.pick(extremes(dtype)) for _ in "ab"]
        self.inputs.append(np.asarray(data, dtype=dtype))
        arg = self.block.insert_arg(TensorSpec(shape, dtype).to_xdsl(), len(self.block.args))
        arg.name_hint = f"x{len(self.inputs) - 1}"
        return Tracer(arg, self.graph)

    def constant(self, x: Tracer, value: Any) -> Any:
        """`value` in x's dtype, broadcasting against x: a Python scalar, a `*_like` op
        or an inline `ivy.constant`."""
        how = self.pick(("scalar", "array", "like"))
        if how == "scalar" or (isinstance(value, float) and x.dtype not in FLOATS):
            return value
        if how == "like":
            like = {0: F.zeros_like, 1: F.ones_like}.get(value) if self.chance(0.5) else None
            return like(x) if like else F.full_like(x, fill_value=float(value))
        return self.literal(np.full(self.partner_shape(x.shape), value, dtype=x.dtype))

    def literal(self, array: np.ndarray) -> Tracer:
        return Tracer(self.graph.lift(array), self.graph)  # inline: the graph makes no params

    def operand(self) -> Tracer:
        """A value built so far, most often the newest one; now and then a new float
        input with special values, so they reach ops that are not near an input."""
        if self.chance(SPECIAL_OPERAND):
            return self.special_like(self.pick(self.pool))
        return self.pool[-1] if self.chance(0.6) else self.pick(self.pool)

    def special_like(self, x: Tracer) -> Tracer:
        """A new float input of x's shape holding special values."""
        dtype = x.dtype if x.dtype in FLOATS else self.pick(FLOATS)
        return self.new_input(x.shape, dtype, specials=1.0)

    def partner(self, x: Tracer) -> Tracer:
        """A second operand of x's dtype that broadcasts against x."""
        fits = [v for v in self.pool if _broadcasts(v.shape, x.shape)]
        if fits and self.chance(0.5):
            return self.cast_to(self.pick(fits), x.dtype)
        shape = self.partner_shape(x.shape)
        if self.chance(0.2) and math.prod(shape) <= 16:
            return self.literal(np.asarray(np.random.default_rng(self.integer(0, 99))
                                           .integers(-2, 3, shape), dtype=x.dtype))
        return self.new_input(shape, x.dtype)

    def within(self, domain: Domain, x: Tracer) -> Tracer:
        """x mapped into `domain`; a hostile program leaves half of them outside (NaN
        from log(-1), integer division by zero), where the targets disagree most."""
        return domain(x) if domain and not (self.hostile and self.chance(0.5)) else x

    def cast_to(self, x: Tracer, want: str) -> Tracer:
        """x, cast when its dtype is not `want` (a dtype or a dtype class)."""
        ok = CLASSES.get(want, (want,))
        return x if x.dtype in ok else F.astype(x, dtype=self.pick(ok))


def _broadcasts(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    try:
        return np.broadcast_shapes(a, b) == tuple(b)
    except ValueError:
        return False


# ---- families: each emits one step and returns its value, or None if it cannot apply ----

def unary(b: Builder) -> Tracer:
    cls, domain = UNARY[op := b.pick(UNARY)]
    x = b.cast_to(b.operand(), cls)
    return getattr(F, op)(b.within(domain, x))


def binary(b: Builder) -> Tracer:
    cls, lhs, rhs = BINARY[op := b.pick(BINARY)]
    x = b.cast_to(b.operand(), cls)
    y = b.partner(x)
    if b.chance(0.3) and lhs is None and rhs is None:
        x, y = y, x
    if op == "pow" and x.dtype in INTS:  # NumPy refuses negative integer powers
        return F.pow(x, exponent(y))
    return getattr(F, op)(b.within(lhs, x), b.within(rhs, y))


def neutral(b: Builder) -> Tracer:
    # identities are where exactness at inf/NaN is won or lost: feed them special values
    x = b.special_like(b.operand()) if b.chance(0.3) else b.operand()
    if b.chance(0.3):
        b.families.add(f"idiom:{(name := b.pick(IDIOMS))}")
        return IDIOMS[name](b.cast_to(x, "num"))
    x = b.cast_to(x, BINARY[op := b.pick(NEUTRAL)][0])
    c = b.constant(x, b.pick(NEUTRAL[op]))
    return getattr(F, op)(x, c) if op in RHS_ONLY or b.chance(0.5) else getattr(F, op)(c, x)


def astype(b: Builder) -> Tracer:
    x = b.operand()
    for _ in range(b.integer(1, 3)):
        x = F.astype(x, dtype=b.pick(DTYPES))
    return x


def shape_op(b: Builder) -> Tracer | None:
    x, op = b.operand(), b.pick(SHAPE_OPS)
    rank = x.ndim
    if op == "reshape":
        return F.reshape(x, shape=factor(b, x.shape))
    if op == "permute_dims":
        return F.permute_dims(x, axes=b.rng.sample(range(rank), rank))
    if op == "expand_dims":
        k = b.integer(1, max(1, MAX_RANK - rank))
        return F.expand_dims(x, axis=sorted(b.rng.sample(range(rank + k), k)))
    if op == "squeeze":
        ones = [i for i, d in enumerate(x.shape) if d == 1]
        return F.squeeze(x, axis=b.subset(ones, lo=1)) if ones else None
    if op == "broadcast_to":
        lead = [b.pick((1, 2))] if rank < MAX_RANK and b.chance(0.4) else []
        return F.broadcast_to(x, shape=lead + [b.pick((1, 2, 3)) if d == 1 else d
                                               for d in x.shape])
    if rank == 0:
        return None
    if op == "slice":  # bounds past either end and negative steps, as Python allows
        bounds = [(b.integer(-d - 1, d + 1), b.integer(-d - 1, d + 1)) for d in x.shape]
        return F.slice(x, start=[lo for lo, _ in bounds], stop=[hi for _, hi in bounds],
                       step=[b.pick((1, 1, 2, -1, -2)) for _ in bounds])
    if op == "flip":
        return F.flip(x, axis=None if b.chance(0.3) else b.subset(range(rank), lo=1))
    axis = b.integer(-rank, rank - 1)
    other = list(x.shape)
    other[axis] = b.pick((0, 1, 2, 3))
    return F.concat([x, x if b.chance(0.4) else b.new_input(tuple(other), x.dtype)],
                    axis=axis)


def reduction(b: Builder) -> Tracer | None:
    cls, kind = REDUCTIONS[op := b.pick(REDUCTIONS)]
    x = b.cast_to(b.operand(), cls)
    rank = x.ndim
    if kind == "scan":
        return getattr(F, op)(x, axis=b.integer(-rank, rank - 1)) if rank else None
    if kind == "one":
        axes = [b.integer(-rank, rank - 1)] if rank and b.chance(0.7) else None
    else:
        axes = None if rank == 0 or b.chance(0.25) else [
            a - rank * b.chance(0.3) for a in b.subset(range(rank), lo=1)]
    reduced = math.prod(x.shape[a] for a in (range(rank) if axes is None else axes))
    if reduced == 0 and kind in ("one", "nonempty"):
        return None
    extra = {}
    if op in ("var", "std"):  # Bessel's correction only where it leaves a divisor
        extra["correction"] = float(reduced > 1 and b.chance(0.5))
    return getattr(F, op)(x, axis=axes[0] if kind == "one" and axes else axes,
                          keepdims=b.chance(0.4), **extra)


def matmul(b: Builder) -> Tracer:
    x = b.cast_to(b.operand(), "num")
    if x.ndim == 0:
        x = F.expand_dims(x, axis=[0])
    batch = x.shape[:-2]
    batch = batch[len(batch) - b.integer(0, len(batch)):]  # y broadcasts a suffix of it
    shape = (x.shape[-1],) if b.chance(0.25) else (*batch, x.shape[-1], b.dim())
    return F.matmul(x, b.new_input(shape, x.dtype))


def composite(b: Builder) -> Tracer | None:
    op = b.pick(COMPOSITES)
    x = b.cast_to(b.operand(), "float")
    if x.ndim == 0 and op in ("softmax", "log_softmax", "layer_norm"):
        x = F.expand_dims(x, axis=[0])
    operands: list[Any] = [x]
    attrs: dict[str, Any] = {}
    if op in ("softmax", "log_softmax"):
        attrs["axis"] = b.integer(-x.ndim, x.ndim - 1)
        if x.shape[attrs["axis"]] == 0:
            return None  # the decomposition takes a max of nothing, as logsumexp's does
    elif op == "gelu":
        attrs["approximate"] = b.pick(("none", "tanh"))
    elif op == "layer_norm":
        k = b.integer(1, x.ndim)  # normalize over the last k axes
        operands += [b.new_input(x.shape[x.ndim - k:], x.dtype) if b.chance(0.5) else None
                     for _ in ("weight", "bias")]
        attrs.update(axis=list(range(-k, 0)), eps=1e-5)
    decomposed = b.chance(0.5)
    b.families.add(f"{'decomposed' if decomposed else 'composite'}:{op}")
    return (DECOMPOSITIONS[op] if decomposed else getattr(F, op))(*operands, **attrs)


def layer(b: Builder) -> Tracer | None:
    x = b.cast_to(b.operand(), "float")
    if x.ndim < 3 or x.ndim > 4 or 0 in x.shape:
        return None  # (batch, channels, 1 or 2 spatial dims), nothing empty
    op, spatial, c = b.pick(LAYERS), x.shape[2:], x.shape[1]
    if op == "batch_norm":
        stats = [b.new_input((c,), x.dtype), positive(b.new_input((c,), x.dtype))]
        return F.batch_norm(x, *stats, *[b.new_input((c,), x.dtype) if b.chance(0.5) else None
                                         for _ in ("weight", "bias")])
    kernel = [b.integer(1, min(d, 3)) for d in spatial]
    window = dict(strides=[b.integer(1, 2) for _ in spatial],
                  padding=[b.integer(0, k // 2) for k in kernel for _ in "lh"])
    if op == "conv":
        w = b.new_input((b.integer(1, 3), c, *kernel), x.dtype)
        bias = b.new_input((w.shape[0],), x.dtype) if b.chance(0.5) else None
        return F.conv(x, w, bias, dilations=[1] * len(spatial), **window)
    return getattr(F, op)(x, kernel=kernel, **window)


def select(b: Builder) -> Tracer:
    y = b.operand()
    z = b.partner(y)
    masks = [v for v in b.pool if v.dtype == "bool" and _broadcasts(v.shape, y.shape)]
    cond = b.pick(masks) if masks and b.chance(0.5) else F.greater(b.cast_to(y, "num"), 0)
    return F.where(cond, z, y) if b.chance(0.5) else F.where(cond, y, z)


FAMILIES: dict[str, Callable[[Builder], Tracer | None]] = {
    "unary": unary, "binary": binary, "neutral": neutral, "astype": astype,
    "shape": shape_op, "reduction": reduction, "matmul": matmul, "composite": composite,
    "layer": layer, "select": select, "control": control,
}
WEIGHTS = {"unary": 2, "binary": 2, "neutral": 2, "control": 0.5}
"""Relative frequency of a family (default 1): the two largest op tables come up twice
as often, so each of their ops appears about as often as a shape op or a reduction, and
so do the neutral constants and identities, which most rewrites are about. Control flow
comes up half as often: one such step grows bodies of several steps (one program in
seven holds some, and takes about twice as long to check)."""


@st.composite
def programs(draw: Callable[[st.SearchStrategy[Any]], Any], hostile: bool = False) -> Program:
    """A random, verified ivy program with 1-4 results, and its input arrays."""
    return build_program(draw(st.integers(0, 2**64 - 1)), hostile)


def build_program(seed: int, hostile: bool = False) -> Program:
    """The program of `seed` (the same seed always gives the same program); a hostile
    one also holds dtype extremes and values outside the ops' domains."""
    b = Builder(seed, hostile)
    for _ in range(b.integer(1, 2)):
        b.pool.append(b.new_input(tuple(b.dim() for _ in range(b.integer(0, 4))),
                                  b.pick(DTYPES)))
    target = b.integer(2, MAX_OPS)
    for step in range(1, 3 * MAX_OPS):
        if sum(1 for _ in b.block.walk()) >= target:  # ops in bodies count too
            break
        # a location per step, so a report points at the step an op came from
        b.graph.location = FileLineColLoc(StringAttr("program.py"), IntAttr(step), IntAttr(1))
        b.step()
    # results: the last value and some of the other unused ones (the rest is dead code)
    outs = [b.pool[-1], *[v for v in b.pool[:-1] if not v.value.uses and b.chance(0.5)][:3]]
    b.block.add_op(func.ReturnOp(*[o.value for o in outs]))
    fn = func.FuncOp("main", ([a.type for a in b.block.args], [o.value.type for o in outs]),
                     Region(b.block))
    module = Module(ModuleOp([fn]), {}, returns_sequence=True)
    module.verify()
    return Program(seed, module, tuple(b.inputs), frozenset(b.families), hostile)
