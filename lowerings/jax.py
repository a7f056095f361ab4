"""The JAX target: `jax.numpy`/`jax.lax` code under `jax.jit`, so XLA runs it on CPU,
GPU or TPU.

JAX computes in 32 bits unless `jax_enable_x64` is set, and that flag is the user's:
this target never sets it. A program whose IR has a 64-bit dtype runs (and converts its
parameters and inputs) inside `jax.enable_x64(True)`, JAX's own scoped form of the
flag, so its results have exactly the IR's dtypes; 32-bit programs pay nothing.
Parameters are a flat dict of arrays keyed by dotted name (a pytree):
`jax.grad(lambda p: loss(c.apply(p, x)))(c.trainable_params)` works (buffers left out).

This module holds the rules of the array ops; `jax_nn.py` those of layers, activations
and random ops, and `jax_kernels.py` the few helpers that take more than one call.
XLA flushes subnormal floats to zero (on CPU too), so ops on subnormal inputs may
differ from NumPy's results (jax-ml/jax#16200).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ivy_ir.core import boxes, complex_kernel, resample
from ivy_ir.core.complex_cases import complex_special_rules
from ivy_ir.core.module import Module
from ivy_ir.core.numpy_api import AS_TYPE, MATRIX_ORD, NUMPY_API_RULES, reduce_call
from ivy_ir.core.numpy_fft import FFT_API_RULES
from ivy_ir.core.rules import (
    CONTROL_CALLS,
    SCATTER_COMBINES,
    SCATTER_REDUCTIONS,
    OpContext,
    Rule,
    collect_helpers,
    elementwise_calls,
    literal,
    rounded_once,
)
from ivy_ir.dialect import IvyOp, TensorSpec, dtype_name
from ivy_ir.dialect.types import FLOATS, numpy_dtype

from . import jax_control as C
from . import jax_data_kernels as D
from . import jax_kernels as K
from .jax_autodiff import JaxAutodiff
from .jax_nn import NN_RULES, out_dtype
from .jax_semantics import COMPLEX_NATIVES, COMPLEX_SPECIAL, SEMANTIC_RULES
from .runtime import Runtime
from .target import Target


def _linspace(c: OpContext) -> str:
    # an integer dtype truncates the float64 points (as NumPy's astype), it does not floor
    call = f"jnp.linspace({c.lit('start')}, {c.lit('stop')}, {c.lit('num')}, " \
        f"endpoint={c.lit('endpoint')}"
    if c.attrs["dtype"] in FLOATS:
        return f"{call}, dtype={c.lit('dtype')})"
    return f"{call}, dtype=jnp.float64).astype({c.lit('dtype')})"


def _clip(c: OpContext) -> str:
    # jnp.clip promotes an integer x to float with float bounds; cast back. Its gradient
    # is 1/2 at a bound (lax.max splits ties): the IR's is 1 on [min, max], x's branch
    x, lo, hi = c.args["x"], c.attrs["min"], c.attrs["max"]
    call = f"jnp.clip({x}, min={c.lit('min')}, max={c.lit('max')})"
    if c.out.dtype not in FLOATS:
        return f"{call}.astype({out_dtype(c)})"
    inside = " & ".join([f"({x} >= {c.lit('min')})"] * (lo is not None)
                        + [f"({x} <= {c.lit('max')})"] * (hi is not None))
    return f"jnp.where({inside}, {x}, {call})" if inside else x


def _split(c: OpContext) -> str:
    cuts = list(itertools.accumulate(c.attrs["sizes"]))[:-1]
    return f"jnp.split({c.args['x']}, {cuts}, axis={c.lit('axis')})"


def _roll(c: OpContext) -> str:
    x, axis = c.args["x"], c.attrs["axis"]
    if axis == ():
        return x
    if axis is None:
        return f"jnp.roll({x}, {c.attrs['shift'][0]})"
    return f"jnp.roll({x}, {c.lit('shift')}, axis={c.lit('axis')})"


def _take(x: str, axis_attr: str | None) -> Rule:
    """jnp.take of `x` along `axis_attr` (axis 0 when None) with the `indices` operand."""
    def rule(c: OpContext) -> str:
        axis = c.attrs[axis_attr] if axis_attr else 0
        if c.in_types[x].shape[axis] == 0:
            # jnp.take returns an empty-axis x itself, whatever the shape of the indices
            return f"jnp.zeros({literal(c.out.shape)}, {out_dtype(c)})"
        return f"jnp.take({c.args[x]}, {c.args['indices']}, axis={axis})"
    return rule


def _nd_index(c: OpContext) -> str:
    # (..., k) index rows -> k index arrays, one per leading dim of x
    return f"tuple(jnp.moveaxis({c.args['indices']}, -1, 0))"


def _gather_nd(c: OpContext) -> str:
    if c.in_types["indices"].shape[-1] == 0:  # no index columns: every row is all of x
        return f"jnp.broadcast_to({c.args['x']}, {literal(c.out.shape)})"
    return f"{c.args['x']}[{_nd_index(c)}]"


def _scatter(method: str) -> Rule:
    """`x.at[index].<method>(updates)`; `method` "set" or the combining one of `.at`."""
    def rule(c: OpContext) -> str:
        x, upd = c.args["x"], c.args["updates"]
        if c.in_types["indices"].shape[-1] == 0:  # every row updates all of x
            rows = f"{upd}.reshape({literal((-1, *c.out.shape))})"
            if not math.prod(c.in_types["indices"].shape[:-1]):
                return x
            if method == "set":
                return f"{rows}[-1]"
            op = f"scatter_{method}"
            reduce = SCATTER_REDUCTIONS[op]
            dtype = f", dtype={out_dtype(c)}" if reduce in ("sum", "prod") else ""
            return f"jnp.{SCATTER_COMBINES[op]}({x}, jnp.{reduce}({rows}, axis=0{dtype}))"
        if method == "mul" and c.out.dtype in FLOATS:
            return f"scatter_mul({x}, {c.args['indices']}, {upd})"
        return f"{x}.at[{_nd_index(c)}].{_AT_METHODS.get(method, method)}({upd})"
    return rule


_AT_METHODS = {"mul": "multiply"}
"""Combining scatters whose `.at` method is not named like the registry op."""


JAX_RULES: dict[str, Rule] = {
    **elementwise_calls("jnp", {"rsqrt": "lax.rsqrt", "erf": "jax.scipy.special.erf",
                                "erfc": "jax.scipy.special.erfc",
                                "lgamma": "lax.lgamma", "digamma": "lax.digamma",
                                "bessel_i0e": "lax.bessel_i0e",
                                "stop_gradient": "lax.stop_gradient"}),
    **NUMPY_API_RULES,
    "argwhere": "argwhere({x})",
    "broadcast_to": "jnp.broadcast_to({x}, {shape})",
    "bitcast": "lax.bitcast_convert_type({x}, {dtype})",
    "erfinv": "lax.erf_inv({x})",
    "cbrt": "lax.cbrt({x})",
    "population_count": "lax.population_count({x})",
    # complex numbers and the transforms (jnp.fft spells them as np.fft does)
    "complex": "lax.complex(*jnp.broadcast_arrays({re}, {im}))",
    **FFT_API_RULES,
    # JAX's own primitive: what jax.random computes, so the bits are JAX's by construction
    "threefry2x32": "threefry2x32_p.bind(*jnp.broadcast_arrays({k0}, {k1}, {x0}, {x1}))",
    "clip": _clip,
    "linspace": _linspace,
    "one_hot": "jax.nn.one_hot({indices}, {depth}, dtype={dtype}, axis={axis})",
    # reductions and scans (jnp sums int32 in int64 unless told the dtype, as the
    # shared sum/prod rules do)
    "var": reduce_call("var", ", correction={correction}"),
    "std": reduce_call("std", ", correction={correction}"),
    "argmax": reduce_call("argmax"),
    "argmin": reduce_call("argmin"),
    "logsumexp": "jax.nn.logsumexp({x}, axis={axis}, keepdims={keepdims})",
    "split": _split,
    "roll": _roll,
    # linear algebra
    "vecdot": "jnp.vecdot({x}, {y}, axis={axis})",
    "einsum": "jnp.einsum({equation}, *{xs})",
    "diagonal": "jnp.diagonal({x}, {offset}, {axis1}, {axis2})",
    "vector_norm": "jnp.linalg.vector_norm({x}, axis={axis}, keepdims={keepdims}, ord={ord})",
    "matrix_norm": lambda c: f"jnp.linalg.matrix_norm({c.args['x']}, "
                             f"ord={MATRIX_ORD[c.attrs['ord']]}, keepdims={c.lit('keepdims')})",
    "cholesky": "jnp.linalg.cholesky({x}, upper={upper})",
    "inv": "jnp.linalg.inv({x})",
    # JAX stops squaring at max_squarings (NaN past it): 64 reach |x|_1 ~ 1e20, whose
    # exponential no float holds
    "matrix_exp": "jax.scipy.linalg.expm({x}, max_squarings=64)",
    "det": "jnp.linalg.det({x})",
    "qr": "jnp.linalg.qr({x}, mode={mode})",
    "svd": "svd({x}, {full_matrices})",
    "eigh": "eigh({x})",
    "lu": "lax.linalg.lu({x})",
    "slogdet": "jnp.linalg.slogdet({x})",
    # indexing and sorting
    "take": _take("x", "axis"),
    "embedding": _take("weight", None),
    "gather_nd": _gather_nd,
    "scatter_nd": _scatter("set"),
    **{op: _scatter(op.removeprefix("scatter_")) for op in SCATTER_COMBINES},
    "cummax": "lax.cummax({x}, axis={axis})",
    "cummin": "lax.cummin({x}, axis={axis})",
    "logcumsumexp": rounded_once("lax.cumlogsumexp({x}, axis={axis})", AS_TYPE),
    # descending: the ascending sort of the reversed axis, reversed, so that ties (0.0
    # and -0.0 among them) keep their order, as the IR's stable sort (jnp.sort's own
    # descending form reverses them)
    "sort": lambda c: (f"jnp.flip(jnp.sort(jnp.flip({c.args['x']}, {c.lit('axis')}), "
                       f"axis={c.lit('axis')}), {c.lit('axis')})" if c.attrs["descending"]
                       else f"jnp.sort({c.args['x']}, axis={c.lit('axis')})"),
    "argsort": "jnp.argsort({x}, axis={axis}, descending={descending})",
    "searchsorted": "searchsorted({sorted}, {x}, {side})",
    **NN_RULES,
    **SEMANTIC_RULES,
    **CONTROL_CALLS,
}
JAX_RULES.update(complex_special_rules(JAX_RULES, COMPLEX_SPECIAL, COMPLEX_NATIVES))


def _dtype(name: str) -> str:
    return f"jnp.{name}"


CONVOLUTIONS = frozenset({"conv", "conv_transpose"})


def _convolves(op: Any) -> bool:
    """Whether `op` is a convolution in XLA's sense: a patch embedding (a `conv` whose
    kernel tiles its input: stride = kernel, no padding, dilation or groups, as a ViT
    cuts its image into tokens) is a product over each patch's pixels, and leaves a
    transformer a transformer."""
    if not isinstance(op, IvyOp) or op.SPEC.name not in CONVOLUTIONS:
        return False
    a = op.attr_values()
    if op.SPEC.name != "conv" or a["groups"] != 1 or any(a["padding"]) \
            or any(d != 1 for d in a["dilations"]):
        return True
    shape = TensorSpec.from_xdsl(op.weight.type).shape
    kernel = shape[2:] if a["layout"] == "channels_first" else shape[:-2]
    return tuple(kernel) != tuple(a["strides"])

CONVOLUTION_XLA_OPTIONS = {"xla_cpu_experimental_ynn_fusion_type":
                           "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"}
"""How XLA's CPU backend compiles a program with convolutions: its matrix products
through YNNPACK one by one, its convolutions and everything else through XLA's own
code. By default XLA's CPU backend also hands convolutions to YNNPACK and fuses the
elementwise and reduction work around a product into YNNPACK's kernel; on
convolutional networks both are slower, much slower at times (batch 8, interleaved:
timm ResNet-18 104 -> 71 ms per call, ConvNeXt-atto 79 -> 44, where a layer norm fused
into the product that follows it took 19 ms of a block's ~21; ONNX's light ResNet-50 75
-> 63, DenseNet-121 72 -> 53, SqueezeNet 10.2 -> 7.8; MobileNetV3 within 1-3%),
while transformers run their products fused 0-7% faster, so they keep the default; so
does a ViT, whose one convolution only cuts the image into patches (`_convolves`;
ViT-Tiny 53.1 -> 50.8 ms). The options are this compilation's, never the process's
flags."""


@functools.cache
def _xla_accepts_convolution_options() -> bool:
    """Whether this jaxlib's CPU compiler knows the options (an experimental one may go)."""
    try:
        jax.jit(lambda: jnp.zeros(()),
                compiler_options=CONVOLUTION_XLA_OPTIONS).lower().compile()
    except jax.errors.JaxRuntimeError:
        return False
    return True


def _top_level_options(raw: Callable[..., Any],
                       options: dict[str, str] | None) -> Callable[..., Any]:
    """`jax.jit(raw)` compiled with `options` where JAX allows them: inside the caller's
    own `jax.jit` (a training step), the program is part of that compilation, whose
    options are the caller's, and JAX refuses options on the inner one."""
    plain = jax.jit(raw)
    if not options:
        return plain
    tuned = jax.jit(raw, compiler_options=options)

    def call(*args: Any) -> Any:
        try:
            return tuned(*args)
        except ValueError as exc:
            if "compiler_options" not in str(exc):
                raise
            return plain(*args)
    call.__wrapped__ = tuned  # type: ignore[attr-defined]
    return call


class JaxRuntime(JaxAutodiff, Runtime):
    name = "jax"
    stages_data_shaped = True
    fast_types = (type(jnp.zeros(())), np.ndarray)  # others (TF tensors) convert first

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        return {k: _on_device(v) for k, v in values.items()}  # in `scope`: float64 stays

    def concrete(self) -> AbstractContextManager[Any]:
        return jax.ensure_compile_time_eval()

    def scope(self, wide: bool) -> AbstractContextManager[Any]:
        """Hoisted constants and parameters are concrete arrays even when the program is
        first compiled inside the caller's `jax.jit` (a lazily compiled function's first
        call): made as tracers, they would leak into every later call."""
        stack = ExitStack()
        stack.enter_context(jax.ensure_compile_time_eval())
        if wide:
            stack.enter_context(jax.enable_x64(True))
        return stack

    def program_options(self, module: Module) -> dict[str, Any]:
        if jax.default_backend() != "cpu" or not any(map(_convolves, module.entry.walk())):
            return {}
        return {"compiler_options": CONVOLUTION_XLA_OPTIONS} \
            if _xla_accepts_convolution_options() else {}

    def wrap(self, raw: Callable[..., Any], wide: bool = False, data_shaped: bool = False,
             compiler_options: dict[str, str] | None = None,
             **options: Any) -> Callable[..., Any]:
        """Under `jax.jit`, unless a size depends on the data (`argwhere`, `unique`; a
        stage of such a program, `staged.py`): then op by op, each jax call compiled by
        JAX's own dispatch, as `jnp.nonzero` runs outside `jit`; inputs become JAX
        arrays first, as `jit` makes them."""
        jitted = _top_level_options(raw, compiler_options) if not data_shaped else \
            lambda *args: raw(*jax.tree_util.tree_map(jnp.asarray, args))
        if not wide:
            return jitted

        def call(*args: Any) -> Any:
            with jax.enable_x64(True):
                return jitted(*args)
        call.__wrapped__ = jitted  # type: ignore[attr-defined]
        return call

    def native_dtype(self, name: str) -> Any:
        return numpy_dtype(name)

    def key_of(self, rng: Any) -> Any:
        """A JAX PRNG key (`jax.random.key(0)` or a legacy uint32 pair) as the program's
        integer key, so the caller threads keys the JAX way (split per step)."""
        return jax.random.randint(rng, (), 0, 2**31 - 1, dtype=jnp.int32)

    @property
    def lax(self) -> Any:
        """`jax.lax`, whose cond/while_loop/scan/fori_loop the facade's functional control
        flow calls on JAX arrays (they keep working under `jax.jit`)."""
        return jax.lax

    def is_native(self, value: Any) -> bool:
        # a typed key array is not: programs take its key data (`host_array`)
        return isinstance(value, jax.Array) and not jax.dtypes.issubdtype(
            value.dtype, jax.dtypes.prng_key)

    def to_native(self, value: Any) -> Any:
        with jax.enable_x64(True):  # a float64 input stays float64 (the guard checks it)
            return _on_device(value)

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype))


def _on_device(value: Any) -> Any:
    # `device_put` for NumPy arrays: `jnp.asarray` compiles a copy program per new
    # shape (DenseNet-121's ~600 weights: ~1 s on a first compile)
    return jax.device_put(value) if isinstance(value, np.ndarray) else jnp.asarray(value)


TARGET = Target(name="jax", rules=JAX_RULES, dtype=_dtype, namespace="jnp", array="jnp.asarray",
                hoists=True, channels_last=True, host_dtypes=frozenset({"string"}),
                helpers=collect_helpers(K, resample, C, D, boxes, complex_kernel),
                imports="import math\n\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"
                        "from jax import lax\nfrom jax.extend.random import threefry2x32_p\n")
RUNTIME = JaxRuntime()
