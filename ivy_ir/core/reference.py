"""The reference semantics of every ivy op: its NumPy rule.

The NumPy lowering emits these rules as source, and the reference evaluator
(`evaluate.py`) runs them on arrays for constant folding, static values in importers
and the facade's eager calls, so all of them compute exactly the same thing. Ops NumPy
has no single call for use the pure-NumPy kernels of `reference_kernels.py`,
`reference_nn_kernels.py`, `reference_recurrent.py`, `reference_data.py` and
`resample.py`; composite ops without a rule here are computed through their
decomposition.
"""

from __future__ import annotations

from ..dialect.types import FLOATS, STORAGE, STORAGE_FLOATS, numpy_dtype
from . import boxes as B
from . import complex_kernel as CK
from . import reference_control as C
from . import reference_data as D
from . import reference_kernels as K
from . import reference_nn_kernels as NN
from . import reference_recurrent as R
from . import reference_special as S
from . import reference_strings as T
from . import resample
from .complex_cases import complex_special_rules
from .numpy_api import (
    AS_TYPE,
    MATRIX_ORD,
    NUMPY_API_RULES,
    pad_rule,
    reduce_call,
    slice_rule,
    solve,
)
from .numpy_fft import FFT_API_RULES
from .reference_strings import STRING_RULES
from .rules import (
    CONTROL_CALLS,
    LAYER_KERNEL_CALLS,
    SCATTER_COMBINES,
    OpContext,
    Rule,
    RuleTable,
    collect_helpers,
    elementwise_calls,
    rounded_once,
)


def _linalg(fn: str) -> Rule:
    """Multi-result decompositions: NumPy gives a namedtuple; results cast one by one."""
    return f"[np.asarray(r, dtype={{out_dtype}}) for r in {fn}]"


def _matrix_norm(c: OpContext) -> str:
    norm = f"np.linalg.norm({c.args['x']}, {MATRIX_ORD[c.attrs['ord']]}, axis=(-2, -1), " \
        f"keepdims={c.lit('keepdims')})"
    return f"{norm}.astype({c.target.dtype(c.out.dtype)}, copy=False)"


def _cast(call: str) -> str:
    """A call whose result NumPy may give in a wider dtype, cast to the IR's."""
    return f"{call}.astype({{out_dtype}}, copy=False)"


def _einsum(c: OpContext) -> str:
    xs = c.args["xs"]
    if c.out.dtype == "bfloat16":  # NumPy's einsum has no loop for ml_dtypes' bfloat16
        xs = f"[a.astype(np.float32) for a in {xs}]"
    return f"np.einsum({c.lit('equation')}, *{xs}).astype({c.target.dtype(c.out.dtype)}, " \
           "copy=False)"


NAMES = {"rsqrt": None, "erf": None, "erfc": None, "real": None, "imag": None, "lgamma": None,
         "digamma": None, "bessel_i0e": None, "stop_gradient": None}
"""Plain elementwise ops NumPy has no ufunc for (rules below)."""


def _population_count(c: OpContext) -> str:
    """np.bitwise_count counts the bits of |x| (in uint8): of the unsigned view, the
    two's-complement bits, counted in x's dtype as lax does."""
    bits = 8 * numpy_dtype(c.out.dtype).itemsize
    return f"np.bitwise_count({c.args['x']}.view(np.uint{bits})).astype(" \
        f"{c.target.dtype(c.out.dtype)})"


def _cbrt(c: OpContext) -> str:
    """Through float64 below it: NumPy's float32 kernel is an ulp off (-27 -> -2.9999998)."""
    x = c.args["x"]
    if c.out.dtype == "float64":
        return f"np.cbrt({x})"
    return f"np.cbrt({x}.astype(np.float64)).astype({c.target.dtype(c.out.dtype)})"


def _nextafter(c: OpContext) -> str:
    """x == y gives y, as C's nextafter (and the standard): NumPy's float16 loop gives x,
    so -0.0 toward +0.0 stayed -0.0."""
    x, y = c.args["x"], c.args["y"]
    if c.out.dtype != "float16":
        return f"np.nextafter({x}, {y})"
    return f"np.where({x} == {y}, {y}, np.nextafter({x}, {y}))"


def _astype(c: OpContext) -> str:
    """A storage float reads into another kind through float32 (`STORAGE_FLOATS`)."""
    x, src, dst = c.args["x"], c.in_types["x"].dtype, c.out.dtype
    if src in STORAGE_FLOATS and dst not in FLOATS | STORAGE:
        x = f"{x}.astype(np.float32)"
    return f"{x}.astype({c.target.dtype(dst)})"


NUMPY_RULES: dict[str, Rule] = {
    **elementwise_calls("np", NAMES),
    **NUMPY_API_RULES,
    "astype": _astype,
    "rsqrt": "np.reciprocal(np.sqrt({x}))",
    "erf": "erf({x})",
    "erfc": "erfc({x})",
    "cummax": "np.maximum.accumulate({x}, axis={axis})",
    "cummin": "np.minimum.accumulate({x}, axis={axis})",
    "logcumsumexp": rounded_once("np.logaddexp.accumulate({x}, axis={axis})", AS_TYPE),
    # float64 kernels (reference_special.py), cast back
    "lgamma": "lgamma({x})",
    "digamma": "digamma({x})",
    "bessel_i0e": "bessel_i0e({x})",
    # composites NumPy has a kernel for
    "cbrt": _cbrt,
    "population_count": _population_count,
    # arrays of their own: np.real gives a view of x (x itself when it is real)
    "real": "np.real({x}).copy()",
    "imag": "np.imag({x}).copy()",
    # the parts side by side, read as one complex number each: exact for inf and NaN
    # parts, where re + 1j * im would make 0 * inf
    "complex": "np.stack(np.broadcast_arrays({re}, {im}), axis=-1).view({out_dtype})[..., 0]",
    **FFT_API_RULES,
    "bitcast": "{x}.view({dtype})",
    # NumPy has no gradients to stop: x itself
    "stop_gradient": "{x}",
    "nextafter": _nextafter,
    # a writable array of its own, never a view of x
    "broadcast_to": "np.broadcast_to({x}, {shape}).copy()",
    "clip": _cast("np.clip({x}, {min}, {max})"),
    "linspace": "np.linspace({start}, {stop}, {num}, endpoint={endpoint}).astype({dtype})",
    "one_hot": "one_hot({indices}, {depth}, {axis}, {dtype})",
    **{op: rounded_once(reduce_call(op, extra), AS_TYPE) for op, extra in (
        ("mean", ", dtype={out_dtype}"), ("var", ", ddof={correction}, dtype={out_dtype}"),
        ("std", ", ddof={correction}, dtype={out_dtype}"))},
    "argmax": f"np.asarray({reduce_call('argmax')}, dtype=np.int64)",
    "argmin": f"np.asarray({reduce_call('argmin')}, dtype=np.int64)",
    "split": "np.split({x}, np.cumsum({sizes})[:-1].tolist(), axis={axis})",
    "roll": lambda c: f"np.roll({c.args['x']}, {c.lit('shift')}, axis={c.lit('axis')})"
    if c.attrs["axis"] != () else f"{c.args['x']}.copy()",
    # results of their own, never views of x
    "pad": pad_rule(copy=True),
    "slice": slice_rule(copy=True),
    "vecdot": "np.sum({x} * {y}, axis={axis}, dtype={out_dtype})",
    "einsum": _einsum,
    # ml_dtypes' bfloat16 products come back as float32
    "matmul": _cast("np.matmul({x}, {y})"),
    "tensordot": _cast("np.tensordot({x}, {y}, axes=({axes_x}, {axes_y}))"),
    "diagonal": "np.diagonal({x}, {offset}, {axis1}, {axis2}).copy()",
    "vector_norm": "vector_norm({x}, {ord}, {axis}, {keepdims}, {out_dtype})",
    "matrix_norm": _matrix_norm,
    "cholesky": _cast("np.linalg.cholesky({x}, upper={upper})"),
    "inv": _cast("np.linalg.inv({x})"),
    "det": _cast("np.linalg.det({x})"),
    "solve": lambda c: f"{solve(c)}.astype({c.target.dtype(c.out.dtype)}, copy=False)",
    "qr": _linalg("np.linalg.qr({x}, mode={mode})"),
    "svd": _linalg("svd({x}, {full_matrices})"),
    "eigh": _linalg("eigh({x})"),
    "lu": "lu({x})",
    "matrix_exp": "matrix_exp({x})",
    "slogdet": _linalg("np.linalg.slogdet({x})"),
    "take": "np.take({x}, {indices}, axis={axis})",
    "gather_nd": "gather_nd({x}, {indices})",
    "scatter_nd": "scatter_nd({x}, {indices}, {updates})",
    **{op: f"scatter_combine({{x}}, {{indices}}, {{updates}}, np.{fold})"
       for op, fold in SCATTER_COMBINES.items()},
    "searchsorted": "searchsorted({sorted}, {x}, {side})",
    "sort": "sort({x}, {axis}, {descending})",
    "argsort": "argsort({x}, {axis}, {descending})",
    "embedding": "np.take({weight}, {indices}, axis=0)",
    **LAYER_KERNEL_CALLS,
    **CONTROL_CALLS,
    **STRING_RULES,
    # recurrent layers: their decompositions are scans, which the evaluator cannot run
    "lstm": ("recurrent_layers('lstm', {x}, [{h0}, {c0}], {weights}, {num_layers}, "
             "{bidirectional}, {has_biases}, {batch_first})"),
    "gru": ("recurrent_layers('gru', {x}, [{h0}], {weights}, {num_layers}, {bidirectional}, "
            "{has_biases}, {batch_first})"),
    "rnn": ("recurrent_layers({nonlinearity}, {x}, [{h0}], {weights}, {num_layers}, "
            "{bidirectional}, {has_biases}, {batch_first})"),
    # random: the same key gives the same stream (negative keys wrap: default_rng wants >= 0)
    "random_uniform": "random_uniform({key}, {low}, {high}, {shape}, {dtype})",
    "random_normal": ("np.random.default_rng(int({key}) % 2**64).normal({mean}, {std}, {shape})"
                      ".astype({dtype})"),
}
NUMPY_RULES.update(complex_special_rules(NUMPY_RULES, ["expm1", "tanh", "tan"]))
"""NumPy's complex `expm1` misses the standard's infinities (`expm1(-inf + inf j)` is
NaN + NaN j, not -1 + 0j), and its tanh and tan give their infinite limits C99's zero
signs: docs/semantics.md."""


def numpy_dtype_spelling(name: str) -> str:
    # NumPy knows ml_dtypes' types (bfloat16, the storage dtypes) by name once ml_dtypes
    # is imported, which numpy_dtype does
    dtype = numpy_dtype(name)
    return f'np.dtype("{dtype.name}")' if dtype.type.__module__ == "ml_dtypes" \
        else f"np.{dtype.name}"


REFERENCE = RuleTable(name="numpy", rules=NUMPY_RULES, dtype=numpy_dtype_spelling,
                      namespace="np",
                      helpers=collect_helpers(K, NN, R, resample, C, S, D, T, B, CK),
                      scalar="np.asarray({})")
"""The NumPy rule table: the NumPy lowering's rules, and what the evaluator runs."""
