"""The PyTorch target: plain `torch` code, optionally under `torch.compile`.

Parameters become `nn.Parameter`s (buffers stay tensors) owned by `compiled.module`, an
`nn.Module` whose submodules mirror the dotted names, so `state_dict()` keys match the
source model and the result trains with torch optimizers.

Devices: the generated code runs where its inputs live and pins nothing to the CPU.
When the program has tensors (inputs, else parameters), its first lines bind
`device = <first tensor>.device`; factory ops (`torch.zeros(..., device=device)`)
create on it, and each non-0-d constant, hoisted once at load time as a CPU tensor, is
bound per call as `const.to(device)` (the tensor itself when already there, one copy
per call on an accelerator). 0-d constants stay on the CPU: torch mixes those with
tensors of any device. Random ops seed a `torch.Generator` on the key's device. Ops
whose inputs are all on one device need nothing more.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from ivy_ir.core import boxes, complex_kernel
from ivy_ir.core.complex_cases import complex_special_rules
from ivy_ir.core.rules import (
    CONTROL_CALLS,
    DATA_KERNEL_CALLS,
    PLAIN_ELEMENTWISE,
    PLAIN_REDUCTIONS,
    SCATTER_COMBINES,
    SCATTER_REDUCTIONS,
    OpContext,
    Rule,
    arange_stop,
    collect_helpers,
    elementwise_calls,
    literal,
    native_names,
    rounded_once,
)
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import INT64_MAX, INT64_MIN, INTS, numpy_dtype

from . import torch_control as C
from . import torch_data_kernels as D
from . import torch_kernels as K
from . import torch_storage_kernels as S
from . import torch_unsigned_kernels as U
from .emitter import Emission
from .target import Target
from .torch_fft import FFT_RULES
from .torch_nn import NN_RULES
from .torch_runtime import TorchRuntime
from .torch_semantics import COMPLEX_SPECIAL, SEMANTIC_RULES, WIDENING
from .torch_storage import CARRIED

NAMES = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
         "greater_equal": "ge", "bitwise_invert": "bitwise_not", "min": "amin", "max": "amax",
         "sign": "sgn", "conj": None, "imag": None, "bessel_i0e": "torch.special.i0e",
         "stop_gradient": None}
"""Where torch's name differs from the registry's (comparisons by their ATen names;
`sgn`, which is `sign` on real tensors, also takes complex ones: z / |z|; `conj` and
`imag` have rules in `torch_fft.py`; `stop_gradient` is the method `detach`)."""

MATRIX_ORD = {"fro": "'fro'", "nuc": "'nuc'", "1": "1", "-1": "-1", "2": "2", "-2": "-2",
              "inf": "float('inf')", "-inf": "float('-inf')"}


def _device(em: Emission | None) -> str:
    """Where new tensors go: the device of the program's first tensor (None: default)."""
    if em is None or not em.inputs:
        return "None"
    return em.local(f"{em.inputs[0]}.device", "device")


def _constant(value: np.ndarray, em: Emission) -> str:
    # hoisted once on the CPU; a non-0-d constant follows the inputs to their device
    # (`.to` returns the tensor itself when it is already there)
    if value.dtype.name in CARRIED:
        value = value.view(np.uint8)
    if value.dtype.name == "bfloat16":  # torch cannot read it from NumPy; float32 is exact
        name = em.hoist(f"{em.array_expr(value.astype(np.float32))}.to(torch.bfloat16)")
    else:
        name = em.hoist(em.array_expr(value))
    if value.ndim == 0 or not em.inputs:
        return name
    return em.local(f"{name}.to({_device(em)})", name)


def _create(call: str) -> Rule:
    """A factory call given the device of the inputs."""
    return lambda c: call.format(**c.fields(), device=_device(c.emission))


def _dims(axes: tuple[int, ...]) -> str:
    return literal(axes[0]) if len(axes) == 1 else literal(axes)


def _reduce(fn: str, extra: str = "") -> Rule:
    """torch.<fn>(x, dim=..., keepdim=...); reducing no axes reduces a new unit axis,
    since torch reads an empty `dim` as every axis."""
    def rule(c: OpContext) -> str:
        x, rank, axis = c.args["x"], c.in_types["x"].rank, c.attrs["axis"]
        axes = tuple(range(rank)) if axis is None else tuple(sorted(axis))
        more = extra.format(**c.fields())
        if not axes and rank:
            return f"{fn}({x}.unsqueeze(-1), dim=-1{more})"
        return f"{fn}({x}, dim={_dims(axes)}, keepdim={c.lit('keepdims')}{more})"
    return rule


def _prod(c: OpContext) -> str:
    rank, axis = c.in_types["x"].rank, c.attrs["axis"]
    axes = tuple(range(rank)) if axis is None else tuple(sorted(axis))
    return f"prod({c.args['x']}, {literal(axes)}, {c.lit('keepdims')}, " \
        f"{c.target.dtype(c.out.dtype)})"


def _vector_norm(c: OpContext) -> str:
    rank, axis = c.in_types["x"].rank, c.attrs["axis"]
    axes = tuple(range(rank)) if axis is None else tuple(sorted(axis))
    x, keep = c.args["x"], c.lit("keepdims")
    if not axes and rank:  # reduce a new unit axis: torch reads no dims as all dims
        x, axes, keep = f"{x}.unsqueeze(-1)", (rank,), "False"
    return f"vector_norm({x}, {c.lit('ord')}, {literal(axes)}, {keep})"


def _arg_reduce(fn: str) -> str:
    return f"{fn}({{x}}, dim={{axis}}, keepdim={{keepdims}})"


def _arange(c: OpContext) -> str:
    a, dev, keys = c.attrs, _device(c.emission), ("start", "stop", "step")
    exact = c.out.dtype in INTS and all(isinstance(a[k], SymDim) or float(a[k]).is_integer()
                                        for k in keys)
    start, stop, step = (c.lit(k) if isinstance(a[k], SymDim) or not exact
                         else str(int(a[k])) for k in keys)
    ends = f"{start}, {arange_stop(a, start, stop, 'max', 'min')}, {step}"
    if exact:
        return f"torch.arange({ends}, dtype={c.lit('dtype')}, device={dev})"
    # float64 points cast down, as NumPy's arange(...).astype(dtype)
    return f"torch.arange({ends}, dtype=torch.float64, device={dev}).to({c.lit('dtype')})"


def _linspace(c: OpContext) -> str:
    # torch.linspace always includes `stop`: drop the extra point for endpoint=False
    num, dev = c.attrs["num"], _device(c.emission)
    n = num if c.attrs["endpoint"] else num + 1
    call = f"torch.linspace({c.lit('start')}, {c.lit('stop')}, {n}, dtype=torch.float64, " \
        f"device={dev})"
    return f"{call if c.attrs['endpoint'] else call + f'[:{num}]'}.to({c.lit('dtype')})"


def _one_hot(c: OpContext) -> str:
    # a comparison (out-of-range indices give zeros as NumPy), not F.one_hot
    idx = c.args["indices"]
    hot = f"{idx}.unsqueeze(-1) == torch.arange({c.lit('depth')}, device={idx}.device)"
    axis = c.attrs["axis"]
    if axis != c.out.rank - 1:
        hot = f"torch.movedim({hot}, -1, {axis})"
    return f"({hot}).to({c.lit('dtype')})"


def _clip(c: OpContext) -> str:
    x, lo, hi = c.args["x"], c.attrs["min"], c.attrs["max"]
    if lo is None and hi is None:
        return x
    if c.out.dtype in INTS:  # in float64 with float bounds, as NumPy (exact to 2**53)
        call = f"torch.clamp({x}.double(), min={c.lit('min')}, max={c.lit('max')})"
        return f"{call}.to({c.target.dtype(c.out.dtype)})"
    return f"torch.clamp({x}, min={c.lit('min')}, max={c.lit('max')})"


def _vecdot(c: OpContext) -> str:
    if c.out.dtype in INTS:  # linalg.vecdot takes floats only
        return "torch.sum({x} * {y}, dim={axis}, dtype={out_dtype})".format(**c.fields())
    return "torch.linalg.vecdot({x}, {y}, dim={axis})".format(**c.fields())


def _linalg(call: Callable[..., str], *operands: str) -> Rule:
    """torch.linalg has no float16/bfloat16 kernels: those run in float32, cast back."""
    def rule(c: OpContext) -> str:
        dtype = c.in_types[operands[0] if operands else "x"].dtype
        if dtype not in ("float16", "bfloat16"):
            return call(c, *(c.args[n] for n in operands or ("x",)))
        expr = call(c, *(f"{c.args[n]}.float()" for n in operands or ("x",)))
        to = c.target.dtype(dtype)
        return f"{expr}.to({to})" if len(c.out_types) == 1 else \
            f"[r.to({to}) for r in {expr}]"
    return rule


def _einsum(c: OpContext) -> str:
    call = f"torch.einsum({c.lit('equation')}, {c.args['xs'][1:-1]})"
    # a pure reduction of integers sums into int64
    return f"{call}.to({c.target.dtype(c.out.dtype)})" if c.out.dtype in INTS else call


def _solve(c: OpContext, a: str, b: str) -> str:
    # torch reads b of rank a.rank - 1 as a batch of vectors; the IR reads a matrix, and
    # a vector b as one right-hand side for every matrix of a's batch (a column spread
    # over that batch, so torch cannot read it as a batch of vectors either)
    rb, ra = c.in_types["b"].rank, c.in_types["a"].rank
    if rb == 1:
        column = f"{b}.unsqueeze(-1).expand(*{a}.shape[:-1], 1)"
        return f"torch.linalg.solve({a}, {column}).squeeze(-1)"
    if rb == ra - 1:
        b = f"{b}.unsqueeze(0)"
    return f"torch.linalg.solve({a}, {b})"


def _expand_dims(c: OpContext) -> str:
    out = c.args["x"]
    for a in sorted(c.attrs["axis"]):
        out = f"{out}.unsqueeze({a})"
    return out


def _squeeze(c: OpContext) -> str:
    axes = c.attrs["axis"]
    return f"torch.squeeze({c.args['x']}, {_dims(tuple(axes))})" if axes else c.args["x"]


def _flip(c: OpContext) -> str:
    rank, axis = c.in_types["x"].rank, c.attrs["axis"]
    axes = tuple(range(rank)) if axis is None else tuple(axis)
    return f"torch.flip({c.args['x']}, {literal(axes)})" if axes else c.args["x"]


def _roll(c: OpContext) -> str:
    x, shift, axis = c.args["x"], c.attrs["shift"], c.attrs["axis"]
    if axis is None:  # over the flattened tensor
        return f"torch.roll({x}, {shift[0]})"
    return f"torch.roll({x}, {literal(shift)}, {literal(axis)})" if axis else x


def _pad(c: OpContext) -> str:
    x, pw = c.args["x"], c.attrs["pad_width"]
    if not any(pw):
        return x
    if c.attrs["mode"] != "constant":
        return f"pad_index({x}, {literal(pw)}, {c.lit('mode')})"
    n = len(pw) // 2
    pads = [p for i in reversed(range(n)) for p in (pw[2 * i], pw[2 * i + 1])]
    # the value in x's dtype, as NumPy casts it (torch refuses values out of range); of
    # a complex x torch takes the real part (the imaginary one is 0)
    value = np.asarray(c.attrs["value"]).astype(numpy_dtype(c.out.dtype)).item()
    value = value.real if isinstance(value, complex) else value
    return f"F.pad({x}, {literal(tuple(pads))}, value={literal(value)})"


def _slice(c: OpContext) -> str:
    # torch has no negative slice steps: flip those dims and slice forwards
    x, shape, a = c.args["x"], c.in_types["x"].shape, c.attrs
    parts, flips = [], []
    for i, (d, b, e, s) in enumerate(zip(shape, a["start"], a["stop"], a["step"],
                                         strict=True)):
        lo, hi = (None if b in (INT64_MIN, INT64_MAX) else b,
                  None if e in (INT64_MIN, INT64_MAX) else e)
        if s > 0:
            parts.append(f"{'' if lo is None else lo}:{'' if hi is None else literal(hi)}"
                         + (f":{s}" if s != 1 else ""))
            continue
        r = range(*slice(lo, hi, s).indices(d))
        flips.append(i)
        first = d - 1 - r[0] if len(r) else 0
        parts.append(f"{first}:{first + -s * (len(r) - 1) + 1 if len(r) else 0}"
                     + (f":{-s}" if s != -1 else ""))
    if flips:
        x = f"torch.flip({x}, {literal(tuple(flips))})"
    return f"{x}[{', '.join(parts)}]" if parts else x


def _take(c: OpContext) -> str:
    axis = c.attrs["axis"]
    return f"{c.args['x']}[{':, ' * axis}{c.args['indices']}]"


def _long(c: OpContext, name: str) -> str:
    # gather-style torch ops insist on int64 indices
    idx = c.args[name]
    return idx if c.in_types[name].dtype == "int64" else f"{idx}.long()"


def _gather_nd(c: OpContext) -> str:
    x, idx = c.args["x"], c.in_types["indices"]
    if idx.shape[-1] == 0:  # no index columns: every row selects all of x
        return f"{x}.expand({literal(tuple(c.out.shape))})"
    return f"{x}[{c.args['indices']}.unbind(-1)]"


def _scatter(op: str) -> Rule:
    def rule(c: OpContext) -> str:
        x, idx, upd = c.args["x"], c.args["indices"], c.args["updates"]
        reduce = NAMES.get(SCATTER_REDUCTIONS.get(op), SCATTER_REDUCTIONS.get(op))
        if c.in_types["indices"].shape[-1] == 0:  # every update covers all of x
            if not math.prod(c.in_types["indices"].shape[:-1]):
                return x
            rows = f"{upd}.reshape({literal((-1, *c.out.shape))})"
            if reduce is None:
                return f"{rows}[-1]"
            dtype = f", dtype={c.target.dtype(c.out.dtype)}" if reduce in ("sum", "prod") else ""
            return f"torch.{SCATTER_COMBINES[op]}({x}, {rows}.{reduce}(0{dtype}))"
        if reduce in (None, "sum"):
            extra = ", accumulate=True" if reduce else ""
            return f"{x}.index_put({idx}.unbind(-1), {upd}{extra})"
        return f"scatter_reduce({x}, {idx}, {upd}, {reduce!r})"
    return rule


TORCH_RULES: dict[str, Rule] = {
    **elementwise_calls("torch", NAMES),
    **{op: _reduce(f"torch.{name}") for op, name in native_names(PLAIN_REDUCTIONS,
                                                                 NAMES).items()},
    "astype": "{x}.to({dtype})",
    "bitcast": "{x}.view({dtype})",
    "stop_gradient": "{x}.detach()",
    "erfinv": "torch.special.erfinv({x})",
    # torch's half-float erf gives 0 below ~1e-5 (erf(x) is 1.13 x there)
    "erf": rounded_once("torch.erf({x})", "{x}.to({dtype})"),
    "erfc": rounded_once("torch.erfc({x})", "{x}.to({dtype})"),
    "broadcast_to": "torch.broadcast_to({x}, {shape})",
    "where": "torch.where({condition}, {x}, {y})",
    "clip": _clip,
    # creation: on the device of the program's inputs
    "arange": _arange,
    "full": _create("torch.full({shape}, {fill_value}, dtype={dtype}, device={device})"),
    "zeros": _create("torch.zeros({shape}, dtype={dtype}, device={device})"),
    "ones": _create("torch.ones({shape}, dtype={dtype}, device={device})"),
    "eye": lambda c: f"eye({c.lit('n_rows')}, {c.out.shape[1]}, {c.lit('k')}, "
    f"{c.lit('dtype')}, {_device(c.emission)})" if c.attrs["k"] else
    _create(f"torch.eye({{n_rows}}, {c.out.shape[1]}, dtype={{dtype}}, device={{device}})")(c),
    "linspace": _linspace,
    "tril": "torch.tril({x}, diagonal={k})",
    "triu": "torch.triu({x}, diagonal={k})",
    "one_hot": _one_hot,
    "zeros_like": "torch.zeros_like({x}, dtype={out_dtype})",
    "ones_like": "torch.ones_like({x}, dtype={out_dtype})",
    "full_like": "torch.full_like({x}, {fill_value}, dtype={out_dtype})",
    # reductions and scans (explicit dtype: torch sums int32 into int64)
    "sum": _reduce("torch.sum", ", dtype={out_dtype}"),
    "prod": _prod,
    "var": _reduce("torch.var", ", correction={correction}"),
    "std": _reduce("torch.std", ", correction={correction}"),
    "argmax": _arg_reduce("torch.argmax"),
    "argmin": _arg_reduce("torch.argmin"),
    "cumsum": "torch.cumsum({x}, dim={axis}, dtype={out_dtype})",
    "cumprod": "torch.cumprod({x}, dim={axis}, dtype={out_dtype})",
    "cummax": "torch.cummax({x}, dim={axis}).values",
    "cummin": "torch.cummin({x}, dim={axis}).values",
    "logcumsumexp": rounded_once("torch.logcumsumexp({x}, dim={axis})", "{x}.to({dtype})"),
    # linear algebra
    "matmul": "torch.matmul({x}, {y})",
    "tensordot": "torch.tensordot({x}, {y}, dims=({axes_x}, {axes_y}))",
    "vecdot": _vecdot,
    "einsum": _einsum,
    "outer": "torch.outer({x}, {y})",
    "diagonal": "torch.diagonal({x}, offset={offset}, dim1={axis1}, dim2={axis2})",
    "vector_norm": _vector_norm,
    "matrix_norm": _linalg(lambda c, x: f"torch.linalg.matrix_norm({x}, "
                           f"ord={MATRIX_ORD[c.attrs['ord']]}, keepdim={c.lit('keepdims')})"),
    "cholesky": _linalg(lambda c, x: f"torch.linalg.cholesky({x}, upper={c.lit('upper')})"),
    "inv": _linalg(lambda c, x: f"torch.linalg.inv({x})"),
    "matrix_exp": _linalg(lambda c, x: f"torch.linalg.matrix_exp({x})"),
    "det": _linalg(lambda c, x: f"torch.linalg.det({x})"),
    "solve": _linalg(_solve, "a", "b"),
    "qr": _linalg(lambda c, x: f"torch.linalg.qr({x}, mode={c.lit('mode')})"),
    "svd": _linalg(lambda c, x: f"svd({x}, {c.lit('full_matrices')})"),
    "eigh": _linalg(lambda c, x: f"eigh({x})"),
    "lu": "lu({x})",
    "slogdet": _linalg(lambda c, x: f"torch.linalg.slogdet({x})"),
    # shape manipulation
    "reshape": "torch.reshape({x}, {out_shape})",
    "permute_dims": "torch.permute({x}, {axes})",
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "concat": "torch.cat({xs}, dim={axis})",
    "stack": "torch.stack({xs}, dim={axis})",
    "split": "torch.split({x}, {sizes}, dim={axis})",
    "flip": _flip,
    "roll": _roll,
    "tile": "torch.tile({x}, {reps})",
    "repeat": "torch.repeat_interleave({x}, {repeats}, dim={axis})",
    "pad": _pad,
    "slice": _slice,
    # indexing and sorting
    "take": _take,
    "take_along_axis": lambda c: f"torch.take_along_dim({c.args['x']}, "
    f"{_long(c, 'indices')}, dim={c.lit('axis')})",
    "gather_nd": _gather_nd,
    **{op: _scatter(op) for op in ("scatter_nd", *SCATTER_COMBINES)},
    "searchsorted": "searchsorted({sorted}, {x}, {side})",
    "sort": "torch.sort({x}, dim={axis}, descending={descending}, stable=True).values",
    "argsort": "torch.argsort({x}, dim={axis}, descending={descending}, stable=True)",
    "top_k": "top_k({x}, {k}, {axis}, {largest})",
    "argwhere": "torch.argwhere({x})",
    **DATA_KERNEL_CALLS,
    "embedding": lambda c: f"F.embedding({_long(c, 'indices')}, {c.args['weight']})",
    "logsumexp": _reduce("torch.logsumexp"),
    **FFT_RULES,
    **NN_RULES,
    **SEMANTIC_RULES,
    **CONTROL_CALLS,
}
TORCH_RULES.update(complex_special_rules(TORCH_RULES, COMPLEX_SPECIAL))

HELPERS = collect_helpers(K, C, S, U, D, boxes, complex_kernel)


def _dtype(name: str) -> str:
    # the dtypes torch has no tensor for are carried as bytes (torch_storage.py)
    return "torch.uint8" if name in CARRIED else f"torch.{name}"


# in-place forms autograd has no derivative for (tests/test_pass_fuse.py sweeps the rest)
NO_INPLACE_GRAD = frozenset({"acosh", "asinh", "atanh", "floor_divide"})
# ops whose autograd keeps their result for the backward pass (checked in the same test)
SAVES_RESULT = frozenset({"exp", "expm1", "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal",
                          "tan", "pow", "relu"})
# products whose result is a fresh tensor their backward does not keep, so the next
# elementwise op may update it in place (`F.linear(...)` then `.relu_()`; same test)
FRESH_PRODUCTS = frozenset({"linear", "matmul", "conv", "conv_transpose"})


def _inplace_methods() -> dict[str, str]:
    """Elementwise ops lowered as one `torch.NAME(x[, y])` call (the plain ones, sigmoid
    and relu) whose `Tensor.NAME_` twin computes the same values into `x`."""
    names = {**native_names(PLAIN_ELEMENTWISE, NAMES), "sigmoid": "sigmoid", "relu": "relu"}
    return {op: f"{name}_" for op, name in names.items()
            if op not in NO_INPLACE_GRAD | SEMANTIC_RULES.keys()
            and hasattr(torch.Tensor, f"{name}_")}


# eager torch runs elementwise groups as in-place expressions (lowerings/fused.py);
# under torch.compile inductor fuses them itself
TARGET = Target(name="torch", rules=TORCH_RULES, dtype=_dtype, array="torch.tensor", hoists=True,
                helpers=HELPERS, constant=_constant,
                imports="import torch\nimport torch.nn.functional as F\n",
                fuse_elementwise=True, self_fusing_options=frozenset({"torch_compile"}),
                fused_as_expressions=True, inplace_methods=_inplace_methods(),
                saves_result=SAVES_RESULT, fresh_ops=FRESH_PRODUCTS, widening=WIDENING,
                host_dtypes=frozenset({"string"}))
RUNTIME = TorchRuntime()
