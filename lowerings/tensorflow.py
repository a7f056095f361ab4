"""The TensorFlow target: `tf` code under `tf.function` (`jit_compile=True` for XLA).

Each rule spells an op with TF's public API as a TF user would; results have exactly
the IR's dtypes and shapes (TF does not promote). Shapes are static in the IR, so rules
and the helpers of `tensorflow_kernels.py`/`tensorflow_nn_kernels.py` do index math in
Python at emission or trace time, never on tensor values. The runtime (parameters as
`tf.Variable`s in a `tf.Module`) is in `tensorflow_runtime.py`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ivy_ir.core import boxes, complex_kernel, resample
from ivy_ir.core.complex_cases import complex_special_rules
from ivy_ir.core.rules import (
    CONTROL_CALLS,
    DATA_KERNEL_CALLS,
    LAYER_KERNEL_CALLS,
    PLAIN_REDUCTIONS,
    SCATTER_COMBINES,
    SCATTER_REDUCTIONS,
    OpContext,
    Rule,
    collect_helpers,
    elementwise_calls,
    literal,
    render,
    rounded_once,
    slice_parts,
)
from ivy_ir.dialect import dtype_name
from ivy_ir.dialect.dtypes import HALF
from ivy_ir.dialect.types import COMPLEX, FLOATS, INTS, STORAGE, UNSIGNED

from . import tensorflow_control as C
from . import tensorflow_data_kernels as D
from . import tensorflow_fft_kernels as FFT
from . import tensorflow_kernels as K
from . import tensorflow_nn_kernels as NN
from . import tensorflow_storage_kernels as S
from . import tensorflow_strings as T
from .emitter import Emission
from .target import Target
from .tensorflow_fft import FFT_RULES
from .tensorflow_nn import CAST, NN_RULES
from .tensorflow_runtime import TensorFlowRuntime
from .tensorflow_semantics import COMPLEX_NATIVES, COMPLEX_SPECIAL, SEMANTIC_RULES
from .tensorflow_storage import CARRIED, astype
from .tensorflow_strings import STRING_RULES

NAMES = {"floor_divide": "floordiv", "remainder": "floormod", "stop_gradient": "tf.stop_gradient",
         "bitwise_left_shift": "tf.bitwise.left_shift",
         "bitwise_right_shift": "tf.bitwise.right_shift",
         **dict.fromkeys(("abs", "sign", "isnan", "isinf", "isfinite", "log2", "log10", "trunc",
                          "bitwise_invert", "bitwise_and", "bitwise_or", "bitwise_xor"))}
"""Where `tf.math` differs from the registry: another name, or no such function (None:
a rule below)."""
FUSED_KERNELS = {"relu": "tf.nn.relu", "relu6": "tf.nn.relu6", "silu": "tf.nn.silu",
                 "sigmoid": "tf.math.sigmoid"}
"""Composite ops with a fused TF kernel of the same semantics."""
BITWISE = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}
SUMS = frozenset({"sum", "mean"})
"""Reductions that add, so add in float32 from half floats (`rounded_once`)."""
REDUCE = {**{op: f"tf.reduce_{op}" for op in PLAIN_REDUCTIONS},
          "logsumexp": "tf.math.reduce_logsumexp"}
# float predicates: an integer is never NaN or infinite; a complex number is NaN or
# infinite where a part is (combined with the op), finite where both parts are
PREDICATE = {"isnan": ("tf.math.is_nan", "zeros", "|"), "isinf": ("tf.math.is_inf", "zeros", "|"),
             "isfinite": ("tf.math.is_finite", "ones", "&")}
PAD_MODE = {"constant": "CONSTANT", "reflect": "REFLECT"}
WIDER = {"int8": "int32", "int16": "int32", "uint8": "int32", "uint16": "int32",
         "uint32": "int64", "uint64": "int64"}
"""The signed dtype an integer op missing a TF kernel computes in: casts wrap, so ring
ops (+, -, *, matmul) give the same bits once cast back; data moves exactly."""
NARROW = frozenset(WIDER)


def _widened(rule: Rule, narrow: frozenset[str] = NARROW) -> Rule:
    """TF has no int8/int16/unsigned kernels for matmul-like ops (nor unsigned pow,
    negative, or uint16 tile): compute in the `WIDER` signed dtype and cast back, which
    is exact (wrapping mod 2**32 or 2**64, then mod the narrow width)."""
    def widened(c: OpContext) -> str:
        if c.out.dtype not in narrow:
            return render(rule, c)
        args, wide = {}, f"tf.{WIDER[c.out.dtype]}"
        for k, v in c.args.items():
            names = v[1:-1].split(", ") if isinstance(c.in_types[k], list) else [v]
            cast = [f"tf.cast({n}, {wide})" for n in names if n]
            args[k] = f"[{', '.join(cast)}]" if isinstance(c.in_types[k], list) else cast[0]
        return f"tf.cast({render(rule, replace(c, args=args))}, {c.target.dtype(c.out.dtype)})"
    return widened


def _float32_for_bfloat16(fn: str) -> Rule:
    """TF has no bfloat16 kernel of these: computed in float32, rounded back once."""
    def rule(c: OpContext) -> str:
        x = c.args["x"]
        if c.out.dtype != "bfloat16":
            return f"{fn}({x})"
        return f"tf.cast({fn}(tf.cast({x}, tf.float32)), tf.bfloat16)"
    return rule


def _scalar(value: float, dtype: str) -> str:
    """A literal TF converts to `dtype` (it will not turn 2.0 into an integer tensor);
    truncated toward zero like NumPy's astype."""
    if dtype == "bool":
        return literal(bool(value))
    return literal(int(value) if dtype in INTS else float(value))


def _reduce(fn: str) -> Rule:
    """axis None reduces every axis and () none, in TF as in the IR; any/all test != 0."""
    def rule(c: OpContext) -> str:
        x = c.args["x"]
        if fn in ("tf.reduce_all", "tf.reduce_any") and c.in_types["x"].dtype != "bool":
            x = f"tf.cast({x}, tf.bool)"
        return f"{fn}({x}, axis={c.lit('axis')}, keepdims={c.lit('keepdims')})"
    return rule


def _nextafter(c: OpContext) -> str:
    fn = "nextafter_bits" if c.out.dtype in HALF else "tf.math.nextafter"
    return f"{fn}({c.args['x']}, {c.args['y']})"


def _argwhere(c: OpContext) -> str:
    """TF's Where has no half-float kernel (it tests `x != 0` itself) and takes no 0-d
    condition: a 1-element one gives the (count, 0) result."""
    x, t = c.args["x"], c.in_types["x"]
    x = x if t.dtype == "bool" else f"tf.math.not_equal({x}, 0)"
    return f"tf.where({x})" if t.rank else f"tf.where(tf.reshape({x}, [1]))[:, :0]"


def _predicate(c: OpContext) -> str:
    fn, const, join = PREDICATE[c.op.SPEC.name]
    x, dtype = c.args["x"], c.in_types["x"].dtype
    if dtype in INTS:
        return f"tf.{const}_like({x}, dtype=tf.bool)"
    if dtype in COMPLEX:
        return f"{fn}(tf.math.real({x})) {join} {fn}(tf.math.imag({x}))"
    return f"{fn}({x})"


def _unsigned(fn: str, unsigned: str) -> Rule:
    """abs/sign: TF has no unsigned kernel; the values are already non-negative."""
    return lambda c: (unsigned if c.in_types["x"].dtype in UNSIGNED else fn).format(
        **c.args, dtype=c.target.dtype(c.out.dtype))


def _bitwise(int_fn: str, bool_fn: str) -> Rule:
    """tf.bitwise.* take integers only; bool operands use the logical ops."""
    def rule(c: OpContext) -> str:
        args = ", ".join(c.args[k] for k in ("x", "y") if k in c.args)
        return f"{bool_fn if c.out.dtype == 'bool' else int_fn}({args})"
    return rule


NOT = "tf.math.equal({x}, False)"
"""`logical_not` spelt so that TF's graph optimizer leaves it: inside a `tf.function`
Grappler rewrites `logical_not(x < y)` into `x >= y` (and `x ^ True` likewise), which
is false where x or y is NaN; the comparison with False it keeps (Keras'
`Discretization` sends NaN past the last bucket through such a `not`)."""


def _invert(c: OpContext) -> str:
    x = c.args["x"]
    return NOT.format(x=x) if c.out.dtype == "bool" else f"tf.bitwise.invert({x})"


def _clip(c: OpContext) -> str:
    x, dt, lo, hi = c.args["x"], c.out.dtype, c.attrs["min"], c.attrs["max"]
    if dt in INTS:  # a bound past the dtype's range clips nothing (TF would wrap it)
        info = np.iinfo(dt)
        lo = None if lo is None or lo <= info.min else lo
        hi = None if hi is None or hi >= info.max else hi
    if lo is not None and hi is not None:
        return f"tf.clip_by_value({x}, {_scalar(lo, dt)}, {_scalar(hi, dt)})"
    if lo is not None:
        return f"tf.math.maximum({x}, {_scalar(lo, dt)})"
    if hi is not None:
        return f"tf.math.minimum({x}, {_scalar(hi, dt)})"
    return f"tf.identity({x})"


def _fill(c: OpContext) -> str:
    dt = c.out.dtype
    value = _scalar(c.attrs["fill_value"], dt)
    # full_like of a tensor with a dynamic dim takes its shape at run time; full's
    # symbolic sizes are the entry's dim bindings
    shape = c.lit("shape") if "shape" in c.attrs else \
        f"tf.shape({c.args['x']})" if None in c.out.shape else literal(c.out.shape)
    return f"tf.fill({shape}, tf.constant({value}, {c.target.dtype(dt)}))"


def _reshaped(c: OpContext, op: str) -> str:
    """One reshape to the result's shape, while at most one of its dims is dynamic (a
    -1); with more, TF's own op, which reads the sizes at run time."""
    if c.out.shape.count(None) <= 1:
        return f"tf.reshape({c.args['x']}, {literal(c.out_shape())})"
    if op == "squeeze":
        return f"tf.squeeze({c.args['x']}, {literal(tuple(c.attrs['axis']))})"
    x = c.args['x']
    for axis in sorted(c.attrs["axis"]):
        x = f"tf.expand_dims({x}, {axis})"
    return x


def _eye(c: OpContext) -> str:
    rows, cols = c.out.shape
    keep = f"tf.range({rows})[:, None] + {c.lit('k')} == tf.range({cols})[None, :]"
    return f"tf.cast({keep}, {c.lit('dtype')})"


def _linspace(c: OpContext) -> str:
    a = c.attrs
    div = (a["num"] - 1 if a["endpoint"] else a["num"]) or 1
    step = literal((a["stop"] - a["start"]) / div)
    return (f"tf.cast({c.lit('start')} + tf.range({a['num']}, dtype=tf.float64) * {step}, "
            f"{c.lit('dtype')})")


def _one_hot(c: OpContext) -> str:
    axis = c.attrs["axis"]
    hot = f"tf.one_hot({c.args['indices']}, {c.lit('depth')}, axis={axis}, dtype=tf.int32)"
    return hot if c.out.dtype == "int32" else f"tf.cast({hot}, {c.lit('dtype')})"


def _all_axes(c: OpContext) -> list[int]:
    rank = c.in_types["x"].rank
    axis = c.attrs["axis"]
    return list(range(rank)) if axis is None else list(axis)


def _roll(c: OpContext) -> str:
    x, axis = c.args["x"], c.attrs["axis"]
    if axis is None:
        flat = f"tf.roll(tf.reshape({x}, [-1]), {c.attrs['shift'][0]}, axis=0)"
        return f"tf.reshape({flat}, {literal(c.out.shape)})"
    return f"tf.roll({x}, {c.lit('shift')}, axis={c.lit('axis')})" if axis else f"tf.identity({x})"


def _tile(c: OpContext) -> str:
    # NumPy aligns reps and shape on the right, padding the shorter with ones
    x, reps, shape = c.args["x"], list(c.attrs["reps"]), list(c.in_types["x"].shape)
    rank = max(len(reps), len(shape))
    if len(shape) < rank and None in shape:  # a dynamic dim is read at run time
        ones = literal([1] * (rank - len(shape)))
        x = f"tf.reshape({x}, tf.concat([{ones}, tf.shape({x})], 0))"
    elif len(shape) < rank:
        x = f"tf.reshape({x}, {literal([1] * (rank - len(shape)) + shape)})"
    return f"tf.tile({x}, {literal([1] * (rank - len(reps)) + reps)})"


def _pad(c: OpContext) -> str:
    x, pw, mode = c.args["x"], c.attrs["pad_width"], c.attrs["mode"]
    pairs = [[lo, hi] for lo, hi in zip(pw[::2], pw[1::2], strict=True)]
    if not any(lo or hi for lo, hi in pairs):
        return f"tf.identity({x})"
    if mode != "constant" and 0 in c.in_types["x"].shape:  # MirrorPad rejects empty axes
        return f"tf.zeros({literal(c.out.shape)}, {c.target.dtype(c.out.dtype)})"
    if mode == "edge":
        return f"edge_pad({x}, {literal(pairs)})"
    value = f", constant_values={_scalar(c.attrs['value'], c.out.dtype)}" \
        if mode == "constant" else ""
    return f"tf.pad({x}, {literal(pairs)}, mode={PAD_MODE[mode]!r}{value})"


def _slice(c: OpContext) -> str:
    parts = slice_parts(c.attrs)
    return f"{c.args['x']}[{', '.join(parts)}]" if parts else f"tf.identity({c.args['x']})"


def _gather_nd(c: OpContext) -> str:
    # TF's gradient of gather_nd fails for one index (rank-1 indices): gather a batch of
    # one and take it
    x, idx = c.args["x"], c.args["indices"]
    if c.in_types["indices"].rank == 1:
        return f"tf.gather_nd({x}, {idx}[None])[0]"
    return f"tf.gather_nd({x}, {idx})"


_TENSOR_SCATTERS = {"scatter_nd": "tensor_scatter_nd_update",
                    "scatter_add": "tensor_scatter_nd_add", "scatter_max": "tensor_scatter_nd_max",
                    "scatter_min": "tensor_scatter_nd_min"}
"""Scatters TF has a tensor scatter for (`scatter_mul` is a helper's segment product)."""


def _scatter(op: str) -> Rule:
    # one index vector (rank-1 indices) is one update: TF reads rank-1 indices as a batch
    # of scalar indices, so scatter a batch of one
    def rule(c: OpContext) -> str:
        x, idx, upd = c.args["x"], c.args["indices"], c.args["updates"]
        if c.in_types["indices"].shape[-1] == 0:  # every update covers all of x (TF refuses)
            if not math.prod(c.in_types["indices"].shape[:-1]):
                return x
            rows = f"tf.reshape({upd}, {literal((-1, *c.out.shape))})"
            if op == "scatter_nd":
                return f"{rows}[-1]"
            return (f"tf.math.{SCATTER_COMBINES[op]}({x}, "
                    f"{REDUCE[SCATTER_REDUCTIONS[op]]}({rows}, 0))")
        if c.in_types["indices"].rank == 1:
            idx, upd = f"{idx}[None]", f"{upd}[None]"
        if op in ("scatter_max", "scatter_min") and c.out.dtype in FLOATS:
            return f"scatter_extreme({x}, {idx}, {upd}, {op == 'scatter_max'})"
        if op in _TENSOR_SCATTERS:
            return f"tf.{_TENSOR_SCATTERS[op]}({x}, {idx}, {upd})"
        return f"scatter_mul({x}, {idx}, {upd})"
    return rule


def _sort(c: OpContext) -> str:
    x = c.in_types["x"]
    if x.rank == 0 or (0 in x.shape and c.op.SPEC.name == "sort"):
        return f"tf.identity({c.args['x']})"  # (TF's sort gradient fails on no elements)
    return (f"sort_along({c.args['x']}, {c.lit('axis')}, {c.lit('descending')}, "
            f"{c.op.SPEC.name == 'sort'})")


def _matmul(c: OpContext) -> str:
    # NumPy matmul semantics for 1-d operands (tf.linalg.matmul wants rank >= 2)
    x, y, rx, ry = c.args["x"], c.args["y"], c.in_types["x"].rank, c.in_types["y"].rank
    if rx == 1 and ry == 1:
        return f"tf.tensordot({x}, {y}, 1)"
    if rx == 1:
        return f"tf.linalg.matvec({y}, {x}, transpose_a=True)"
    return f"tf.linalg.matvec({x}, {y})" if ry == 1 else f"tf.linalg.matmul({x}, {y})"


TF_RULES: dict[str, Rule] = {
    **elementwise_calls("tf.math", NAMES),
    **{k: f"{v}({{x}})" for k, v in FUSED_KERNELS.items()},
    "pow": _widened("tf.math.pow({x}, {y})", UNSIGNED),
    "negative": _widened("tf.math.negative({x})", UNSIGNED),
    **{k: _bitwise(f"tf.bitwise.bitwise_{v}", f"tf.math.logical_{v}") for k, v in BITWISE.items()},
    **{k: rounded_once(_reduce(v), CAST) if k in SUMS else _reduce(v) for k, v in REDUCE.items()},
    **dict.fromkeys(PREDICATE, _predicate),
    "abs": _unsigned("tf.math.abs({x})", "tf.identity({x})"),
    "sign": _unsigned("tf.math.sign({x})", "tf.cast({x} > 0, {dtype})"),
    "log2": "tf.math.log({x}) / tf.math.log(tf.constant(2, {x}.dtype))",
    "log10": "tf.math.log({x}) / tf.math.log(tf.constant(10, {x}.dtype))",
    "trunc": "tf.where({x} < 0, tf.math.ceil({x}), tf.math.floor({x}))",
    "bitwise_invert": _invert,
    "logical_not": NOT,
    **{op: _float32_for_bfloat16(f"tf.math.{op}") for op in ("lgamma", "digamma", "bessel_i0e")},
    # TF's own kernel counts in uint8 (tf.raw_ops: tf.bitwise has no wrapper of it)
    "population_count": "tf.cast(tf.raw_ops.PopulationCount(x={x}), {out_dtype})",
    "astype": astype,  # into and out of the storage dtypes: tensorflow_storage.py
    "bitcast": "tf.bitcast({x}, {dtype})",
    "broadcast_to": "tf.broadcast_to({x}, {shape})",
    "where": "tf.where({condition}, {x}, {y})",
    "clip": _clip,
    # creation
    "full": _fill,
    "zeros": "tf.zeros({shape}, {dtype})",
    "ones": "tf.ones({shape}, {dtype})",
    "eye": _eye,
    "linspace": _linspace,
    "tril": "tri({x}, {k}, True)",
    "triu": "tri({x}, {k}, False)",
    "one_hot": _one_hot,
    "zeros_like": "tf.zeros_like({x}, dtype={out_dtype})",
    "ones_like": "tf.ones_like({x}, dtype={out_dtype})",
    "full_like": _fill,
    # reductions and scans
    "var": rounded_once("variance({x}, {axis}, {keepdims}, {correction})", CAST),
    "std": rounded_once("tf.sqrt(variance({x}, {axis}, {keepdims}, {correction}))", CAST),
    "cumsum": rounded_once("tf.math.cumsum({x}, axis={axis})", CAST),
    "cumprod": "tf.math.cumprod({x}, axis={axis})",
    # shape manipulation
    "reshape": "tf.reshape({x}, {out_shape})",
    "permute_dims": "tf.transpose({x}, {axes})",
    "expand_dims": lambda c: _reshaped(c, "expand_dims"),
    "squeeze": lambda c: _reshaped(c, "squeeze"),
    "concat": "tf.concat({xs}, axis={axis})",
    "stack": "tf.stack({xs}, axis={axis})",
    "split": "tf.split({x}, {sizes}, axis={axis})",
    "flip": lambda c: f"tf.reverse({c.args['x']}, {literal(_all_axes(c))})",
    "roll": _roll,
    "tile": _widened(_tile, frozenset({"uint16"})),
    "repeat": _widened("tf.repeat({x}, {repeats}, axis={axis})", frozenset({"uint16"})),
    "pad": _pad,
    "slice": _slice,
    # linear algebra
    "matmul": _widened(_matmul),
    "tensordot": _widened("tf.tensordot({x}, {y}, axes=[{axes_x}, {axes_y}])"),
    "vecdot": "tf.reduce_sum({x} * {y}, axis={axis})",
    "einsum": _widened("tf.einsum({equation}, *{xs})"),
    "outer": "{x}[:, None] * {y}[None, :]",
    "diagonal": "diagonal({x}, {offset}, {axis1}, {axis2})",
    "vector_norm": "vector_norm({x}, {ord}, {axis}, {keepdims})",
    "matrix_norm": "matrix_norm({x}, {ord}, {keepdims})",
    "cholesky": lambda c: "tf.linalg.adjoint(tf.linalg.cholesky({x}))".format(**c.args)
    if c.attrs["upper"] else "tf.linalg.cholesky({x})".format(**c.args),
    "inv": "tf.linalg.inv({x})",
    "matrix_exp": "tf.linalg.expm({x})",
    "det": "tf.linalg.det({x})",
    "solve": "solve({a}, {b})",
    "qr": "tf.linalg.qr({x}, full_matrices={mode} == 'complete')",
    "svd": "svd({x}, {full_matrices})",
    "eigh": "eigh({x})",
    "lu": "lu({x})",
    "slogdet": "tf.linalg.slogdet({x})",
    # indexing and sorting
    # an empty result is zeros: TF's gather gradient fails on empty operands
    "take": lambda c: f"tf.zeros({literal(c.out.shape)}, {c.target.dtype(c.out.dtype)})"
    if 0 in c.out.shape else "tf.gather({x}, {indices}, axis={axis})".format(**c.fields()),
    "take_along_axis": "take_along_axis({x}, {indices}, {axis}, {out_shape})",
    "gather_nd": _gather_nd,
    **{op: _scatter(op) for op in ("scatter_nd", *SCATTER_COMBINES)},
    "sort": _sort,
    "argsort": _sort,
    "top_k": "top_k({x}, {k}, {axis}, {largest})",
    "argwhere": _argwhere,
    "nextafter": _nextafter,
    **DATA_KERNEL_CALLS,
    "embedding": "tf.nn.embedding_lookup({weight}, {indices})",
    **FFT_RULES,
    **NN_RULES,
    **SEMANTIC_RULES,
    **CONTROL_CALLS,
    **STRING_RULES,
}
TF_RULES.update(complex_special_rules(TF_RULES, COMPLEX_SPECIAL, COMPLEX_NATIVES))

HELPERS = collect_helpers(K, NN, resample, C, FFT, S, D, T, boxes, complex_kernel)
XLA_RULES = {"conv": LAYER_KERNEL_CALLS["conv"].replace("{layout})", "{layout}, shifted=True)")}
"""Under XLA (`jit_compile=True`) a depthwise convolution runs as shifted multiply-adds:
XLA's CPU depthwise kernel is ~30x slower than TF's own (a 7x7 over 40 channels at
32x32, batch 8: 41 ms against 1.2 ms; shifted, under XLA, 1.6 ms)."""


def _dtype(name: str) -> str:
    # TF names its float8 dtypes (ml_dtypes') only through `as_dtype`
    if name in CARRIED:  # those it cannot convert: carried as bytes (tensorflow_storage.py)
        return "tf.uint8"
    return f'tf.as_dtype("{name}")' if name in STORAGE else f"tf.{name}"


def _constant(value: np.ndarray, em: Emission) -> str:
    """A hoisted `tf.constant` (`tf.zeros` if empty: TF has no .reshape; bytes if carried)."""
    value = value.view(np.uint8) if dtype_name(value.dtype) in CARRIED else value
    if value.size == 0:
        return em.hoist(f"tf.zeros({literal(value.shape)}, {_dtype(dtype_name(value.dtype))})")
    return em.hoist(em.array_expr(value))


TARGET = Target(name="tensorflow", rules=TF_RULES, helpers=HELPERS, dtype=_dtype,
                channels_last=True, option_rules={"jit_compile": XLA_RULES},
                array="tf.constant", constant=_constant, dim_size="tf.shape({x})[{axis}]",
                imports="import numpy as np\nimport tensorflow as tf\n")
RUNTIME = TensorFlowRuntime()
