"""One small example call per public function of `jax.numpy`, `jax.nn` and `jax.random`,
for the JAX section of the import coverage table (`jax_coverage.py`).

The lax primitives users meet are the ones these functions stage, so the table traces
one call of each and collects what it reaches, rather than listing primitives by hand.
A row is `name: ex(call, *arrays)`: the arrays become the program's inputs, everything
else in `call` stays a constant. Groups of functions with the same call shape share one
line (`each(...)`): a unary function on a float32 2x3, a binary one on two, and so on.
`jax.random` functions take a legacy `jax.random.PRNGKey(0)` (uint32[2]) as an input.

A public function that takes no array, or whose result shape depends on its values
with no static form (no `size=`), is listed in `NOT_TRACED` with the reason;
`public_functions()` and the test check that every public function is in exactly one
of the two tables, so a function JAX adds is noticed.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

MODULES = {"jnp": jnp, "nn": jax.nn, "random": jax.random}
"""Prefix of the example names -> the namespace whose public functions are covered."""
_RNG = np.random.default_rng(23)


def F(*shape: int) -> np.ndarray:
    """Float32 values in (0.1, 0.9): inside the domain of every unary function."""
    return _RNG.uniform(0.1, 0.9, shape).astype(np.float32)


def N(*shape: int) -> np.ndarray:
    """Float32 values of both signs."""
    return _RNG.standard_normal(shape).astype(np.float32)


def I(high: int, *shape: int) -> np.ndarray:  # noqa: E743 - reads as a type, like F
    """Int32 values in [0, high)."""
    return _RNG.integers(0, high, shape).astype(np.int32)


def B(*shape: int) -> np.ndarray:
    return _RNG.random(shape) > 0.5


def S(*values: float) -> np.ndarray:
    """Float32 values as given (sorted bins, special values)."""
    return np.asarray(values, np.float32)


NAN = S(0.5, np.nan, -np.inf, 2.0, np.inf, -0.0).reshape(2, 3)
"""NaN, infinities and a negative zero: what the `nan*` and `is*` functions are about."""
KEY = np.asarray(jax.random.PRNGKey(0))
"""A legacy key: uint32[2], an ordinary array input of the program."""


@dataclass(frozen=True)
class Example:
    """`call(*args)`: the arrays of `args` are the program's inputs."""

    call: Callable[..., Any]
    args: tuple[np.ndarray, ...]


def ex(call: Callable[..., Any], *args: np.ndarray) -> Example:
    return Example(call, args)


def each(prefix: str, names: str, *args: np.ndarray,
         call: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda f: f,
         ) -> dict[str, Example]:
    """The same example for every function of `names`: `call(fn)(*args)`."""
    module = MODULES[prefix]
    return {f"{prefix}.{n}": ex(call(getattr(module, n)), *args) for n in names.split()}


def _sampled(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda k: f(k, shape=(2, 3))


def _pairs(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda x, y: f([x, y])


R = jax.random
EXAMPLES: dict[str, Example] = {
    # jax.numpy: elementwise
    **each("jnp", "abs absolute arcsinh arctan around asinh atan cbrt ceil conj conjugate "
           "cos cosh deg2rad degrees exp exp2 expm1 fabs floor frexp i0 imag modf negative "
           "positive rad2deg radians real rint round sign signbit sin sinc sinh spacing "
           "square tan tanh trunc angle iscomplex isreal", N(2, 3)),
    **each("jnp", "acos arccos arcsin arctanh asin atanh log log10 log1p log2 reciprocal "
           "sqrt", F(2, 3)),
    **each("jnp", "isfinite isinf isnan isneginf isposinf nan_to_num", NAN),
    **each("jnp", "acosh arccosh", F(2, 3) + 1),
    **each("jnp", "add arctan2 atan2 copysign divide divmod equal floor_divide fmax fmin "
           "fmod greater greater_equal heaviside hypot isclose less less_equal logaddexp "
           "logaddexp2 maximum minimum mod multiply nextafter not_equal remainder subtract "
           "true_divide allclose array_equal array_equiv vdot vecdot cross", N(2, 3), N(2, 3)),
    **each("jnp", "float_power pow power", F(2, 3), N(2, 3)),
    **each("jnp", "logical_and logical_or logical_xor", B(2, 3), B(2, 3)),
    **each("jnp", "logical_not all any", B(2, 3)),
    **each("jnp", "bitwise_count bitwise_invert bitwise_not invert", I(64, 2, 3)),
    **each("jnp", "bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift "
           "bitwise_xor gcd lcm left_shift right_shift", I(64, 2, 3), I(8, 2, 3)),
    "jnp.ldexp": ex(jnp.ldexp, N(2, 3), I(4, 2, 3)),
    "jnp.clip": ex(lambda x: jnp.clip(x, -0.5, 0.5), N(2, 3)),
    "jnp.astype": ex(lambda x: jnp.astype(x, jnp.int32), N(2, 3) * 4),
    # jax.numpy: reductions, scans, sorting, statistics
    **each("jnp", "amax amin argmax argmin argsort average cumprod cumsum max mean median "
           "min prod ptp sort std sum var diff ediff1d gradient trapezoid unwrap "
           "histogram_bin_edges", N(2, 3)),
    **each("jnp", "nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin "
           "nanprod nanstd nansum nanvar", NAN),
    **each("jnp", "corrcoef cov", N(3, 4)),
    "jnp.count_nonzero": ex(jnp.count_nonzero, I(3, 2, 3)),
    "jnp.cumulative_prod": ex(lambda x: jnp.cumulative_prod(x, axis=1), N(2, 3)),
    "jnp.cumulative_sum": ex(lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True),
                             N(2, 3)),
    "jnp.argpartition": ex(lambda x: jnp.argpartition(x, 2), N(2, 5)),
    "jnp.partition": ex(lambda x: jnp.partition(x, 2), N(2, 5)),
    "jnp.lexsort": ex(lambda a, b: jnp.lexsort((a, b)), I(3, 6), I(3, 6)),
    "jnp.sort_complex": ex(jnp.sort_complex, N(2, 3)),
    "jnp.searchsorted": ex(jnp.searchsorted, S(-1, 0, 0.5, 2), N(2, 3)),
    "jnp.digitize": ex(jnp.digitize, N(2, 3), S(-1, 0, 0.5, 2)),
    "jnp.percentile": ex(lambda x: jnp.percentile(x, 30.0, axis=1), N(2, 5)),
    "jnp.quantile": ex(lambda x: jnp.quantile(x, 0.3, axis=1), N(2, 5)),
    "jnp.nanpercentile": ex(lambda x: jnp.nanpercentile(x, 30.0), NAN),
    "jnp.nanquantile": ex(lambda x: jnp.nanquantile(x, 0.3), NAN),
    "jnp.histogram": ex(lambda x: jnp.histogram(x, bins=4), N(2, 5)),
    "jnp.histogram2d": ex(lambda x, y: jnp.histogram2d(x, y, bins=3), N(6), N(6)),
    "jnp.histogramdd": ex(lambda x: jnp.histogramdd(x, bins=3), N(6, 2)),
    "jnp.bincount": ex(lambda x: jnp.bincount(x, length=5), I(5, 8)),
    "jnp.interp": ex(jnp.interp, N(2, 3), S(-1, 0, 0.5, 2), N(4)),
    "jnp.convolve": ex(jnp.convolve, N(5), N(3)),
    "jnp.correlate": ex(lambda a, v: jnp.correlate(a, v, "full"), N(5), N(3)),
    # jax.numpy: linear algebra
    "jnp.dot": ex(jnp.dot, N(2, 3), N(3, 4)),
    "jnp.matmul": ex(jnp.matmul, N(2, 3), N(3, 4)),
    "jnp.matvec": ex(jnp.matvec, N(2, 3), N(3)),
    "jnp.vecmat": ex(jnp.vecmat, N(3), N(3, 4)),
    "jnp.inner": ex(jnp.inner, N(2, 3), N(4, 3)),
    "jnp.outer": ex(jnp.outer, N(3), N(4)),
    "jnp.kron": ex(jnp.kron, N(2, 2), N(2, 3)),
    "jnp.tensordot": ex(lambda a, b: jnp.tensordot(a, b, 2), N(2, 3, 4), N(3, 4, 2)),
    "jnp.einsum": ex(lambda a, b: jnp.einsum("ij,jk->ik", a, b), N(2, 3), N(3, 4)),
    "jnp.trace": ex(jnp.trace, N(3, 3)),
    # jax.numpy: shapes, joining, splitting, indexing
    **each("jnp", "array asarray copy atleast_1d atleast_2d atleast_3d ravel transpose "
           "matrix_transpose flip fliplr flipud rot90 diag diagonal tril triu zeros_like "
           "ones_like empty_like unstack", N(2, 3)),
    **each("jnp", "concatenate concat stack hstack vstack dstack column_stack block",
           N(2, 3), N(2, 3), call=_pairs),
    **each("jnp", "diag_indices_from tril_indices_from triu_indices_from", N(3, 3)),
    "jnp.diagflat": ex(jnp.diagflat, N(3)),
    "jnp.squeeze": ex(jnp.squeeze, N(1, 3)),
    "jnp.expand_dims": ex(lambda x: jnp.expand_dims(x, 1), N(2, 3)),
    "jnp.reshape": ex(lambda x: jnp.reshape(x, (3, 2)), N(2, 3)),
    "jnp.resize": ex(lambda x: jnp.resize(x, (3, 4)), N(2, 3)),
    "jnp.broadcast_to": ex(lambda x: jnp.broadcast_to(x, (2, 3)), N(3)),
    "jnp.broadcast_arrays": ex(jnp.broadcast_arrays, N(2, 3), N(3)),
    "jnp.meshgrid": ex(jnp.meshgrid, N(3), N(2)),
    "jnp.ix_": ex(jnp.ix_, I(3, 2), I(4, 3)),
    "jnp.moveaxis": ex(lambda x: jnp.moveaxis(x, 0, 2), N(2, 3, 4)),
    "jnp.rollaxis": ex(lambda x: jnp.rollaxis(x, 2), N(2, 3, 4)),
    "jnp.swapaxes": ex(lambda x: jnp.swapaxes(x, 0, 2), N(2, 3, 4)),
    "jnp.permute_dims": ex(lambda x: jnp.permute_dims(x, (1, 0)), N(2, 3)),
    "jnp.roll": ex(lambda x: jnp.roll(x, 1, axis=1), N(2, 3)),
    "jnp.repeat": ex(lambda x: jnp.repeat(x, 2, axis=1), N(2, 3)),
    "jnp.tile": ex(lambda x: jnp.tile(x, (2, 1)), N(2, 3)),
    "jnp.pad": ex(lambda x: jnp.pad(x, 1, mode="reflect"), N(2, 3)),
    "jnp.append": ex(lambda x, y: jnp.append(x, y, axis=0), N(2, 3), N(1, 3)),
    "jnp.insert": ex(lambda x, v: jnp.insert(x, 1, v, axis=1), N(2, 3), N(2)),
    "jnp.delete": ex(lambda x: jnp.delete(x, 1, axis=1), N(2, 3)),
    "jnp.split": ex(lambda x: jnp.split(x, 3, axis=1), N(2, 3)),
    "jnp.array_split": ex(lambda x: jnp.array_split(x, 2, axis=1), N(2, 3)),
    "jnp.hsplit": ex(lambda x: jnp.hsplit(x, 2), N(2, 4)),
    "jnp.vsplit": ex(lambda x: jnp.vsplit(x, 2), N(4, 3)),
    "jnp.dsplit": ex(lambda x: jnp.dsplit(x, 2), N(2, 2, 4)),
    "jnp.take": ex(lambda x, i: jnp.take(x, i, axis=1), N(2, 3), I(3, 4)),
    "jnp.take_along_axis": ex(lambda x, i: jnp.take_along_axis(x, i, axis=1), N(2, 3),
                              I(3, 2, 2)),
    "jnp.put": ex(lambda x, i, v: jnp.put(x, i, v, inplace=False), N(2, 3), I(6, 2), N(2)),
    "jnp.put_along_axis": ex(lambda x, i, v: jnp.put_along_axis(x, i, v, 1, inplace=False),
                             N(2, 3), I(3, 2, 1), N(2, 1)),
    "jnp.place": ex(lambda x, m, v: jnp.place(x, m, v, inplace=False), N(2, 3), B(2, 3), N(6)),
    "jnp.fill_diagonal": ex(lambda x, v: jnp.fill_diagonal(x, v, inplace=False), N(3, 3),
                            N(3)),
    "jnp.choose": ex(lambda i, a, b, c: jnp.choose(i, (a, b, c), mode="clip"), I(3, 2, 3),
                     N(2, 3), N(2, 3), N(2, 3)),
    "jnp.select": ex(lambda x: jnp.select([x < 0, x > 1], [x, 2 * x], 0.5), N(2, 3)),
    "jnp.where": ex(jnp.where, B(2, 3), N(2, 3), N(2, 3)),
    "jnp.piecewise": ex(lambda x: jnp.piecewise(x, [x < 0], [lambda v: -v, lambda v: 2 * v]),
                        N(2, 3)),
    "jnp.isin": ex(jnp.isin, I(5, 2, 3), I(5, 4)),
    "jnp.ravel_multi_index": ex(lambda i, j: jnp.ravel_multi_index((i, j), (2, 3), "clip"),
                                I(2, 4), I(3, 4)),
    "jnp.unravel_index": ex(lambda i: jnp.unravel_index(i, (2, 3)), I(6, 4)),
    "jnp.packbits": ex(jnp.packbits, B(2, 8)),
    "jnp.unpackbits": ex(jnp.unpackbits, I(256, 2, 2).astype(np.uint8)),
    # jax.numpy: data-dependent output shapes, in their static form (`size=`)
    **each("jnp", "nonzero argwhere flatnonzero unique unique_all unique_counts "
           "unique_inverse unique_values", I(3, 2, 3), call=lambda f: lambda x: f(x, size=4)),
    **each("jnp", "intersect1d setdiff1d setxor1d union1d", I(5, 6), I(5, 4),
           call=lambda f: lambda a, b: f(a, b, size=4)),
    "jnp.extract": ex(lambda c, x: jnp.extract(c, x, size=3), B(2, 3), N(2, 3)),
    "jnp.compress": ex(lambda c, x: jnp.compress(c, x, axis=1, size=2), B(3), N(2, 3)),
    # jax.numpy: creation from array arguments
    "jnp.full": ex(lambda v: jnp.full((2, 3), v), N()),
    "jnp.full_like": ex(jnp.full_like, N(2, 3), N()),
    "jnp.linspace": ex(lambda a, b: jnp.linspace(a, b, 5), N(), N() + 2),
    "jnp.logspace": ex(lambda a, b: jnp.logspace(a, b, 5), N(), N() + 2),
    "jnp.geomspace": ex(lambda a, b: jnp.geomspace(a, b, 5), F(), F() + 2),
    "jnp.kaiser": ex(lambda beta: jnp.kaiser(5, beta), F() * 8),
    "jnp.vander": ex(jnp.vander, N(3)),
    # jax.numpy: polynomials
    **each("jnp", "polyder polyint poly", N(4)),
    **each("jnp", "polyadd polysub polymul polyval", N(3), N(2)),
    "jnp.polydiv": ex(jnp.polydiv, N(4), F(2) + 1),
    "jnp.polyfit": ex(lambda x, y: jnp.polyfit(x, y, 2), N(6), N(6)),
    "jnp.roots": ex(lambda p: jnp.roots(p, strip_zeros=False), N(4)),
    # jax.numpy: functions of functions
    "jnp.apply_along_axis": ex(lambda x: jnp.apply_along_axis(jnp.cumsum, 1, x), N(2, 3)),
    "jnp.apply_over_axes": ex(lambda x: jnp.apply_over_axes(jnp.sum, x, [0]), N(2, 3)),
    "jnp.vectorize": ex(jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()"),
                        N(2, 3), N(2, 3)),
    "jnp.frompyfunc": ex(jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1), N(2, 3), N(2, 3)),
    # jax.nn
    **each("nn", "celu elu gelu hard_sigmoid hard_silu hard_swish hard_tanh identity "
           "leaky_relu log_sigmoid log_softmax logmeanexp logsumexp mish relu relu6 selu "
           "sigmoid silu soft_sign softmax softplus sparse_plus sparse_sigmoid squareplus "
           "standardize swish tanh", N(2, 3)),
    "nn.log1mexp": ex(jax.nn.log1mexp, F(2, 3)),
    "nn.glu": ex(jax.nn.glu, N(2, 4)),
    "nn.one_hot": ex(lambda i: jax.nn.one_hot(i, 4), I(4, 5)),
    "nn.dot_product_attention": ex(jax.nn.dot_product_attention, N(1, 4, 2, 8), N(1, 5, 2, 8),
                                   N(1, 5, 2, 8)),
    "nn.scaled_matmul": ex(jax.nn.scaled_matmul, N(1, 2, 32), N(1, 3, 32), F(1, 2, 1),
                           F(1, 3, 1)),
    "nn.scaled_dot_general": ex(lambda a, b: jax.nn.scaled_dot_general(
        a, b, (((1,), (1,)), ((), ()))), N(2, 32), N(3, 32)),
    # jax.random
    **each("random", "bernoulli bits cauchy exponential gumbel laplace "
           "logistic lognormal maxwell normal rademacher uniform", KEY, call=_sampled),
    **each("random", "split clone key_data", KEY),
    "random.PRNGKey": ex(R.PRNGKey, I(99)),
    "random.key": ex(lambda s: R.key_data(R.key(s)), I(99)),
    "random.wrap_key_data": ex(lambda k: R.key_data(R.wrap_key_data(k)), KEY),
    "random.fold_in": ex(R.fold_in, KEY, I(99)),
    "random.double_sided_maxwell": ex(lambda k: R.double_sided_maxwell(k, 0.5, 2.0, (2, 3)),
                                      KEY),
    "random.randint": ex(lambda k: R.randint(k, (2, 3), 0, 5), KEY),
    "random.ball": ex(lambda k: R.ball(k, 3, shape=(2,)), KEY),
    "random.generalized_normal": ex(lambda k: R.generalized_normal(k, 1.5, (2, 3)), KEY),
    "random.orthogonal": ex(lambda k: R.orthogonal(k, 3), KEY),
    "random.permutation": ex(R.permutation, KEY, N(5)),
    "random.choice": ex(lambda k, a: R.choice(k, a, (3,), replace=False), KEY, N(5)),
    "random.categorical": ex(R.categorical, KEY, N(2, 3)),
    **each("random", "chisquare gamma loggamma pareto poisson rayleigh t wald", KEY,
           F(2, 3) + 1),
    "random.geometric": ex(R.geometric, KEY, F(2, 3)),
    **each("random", "beta f weibull_min", KEY, F(2, 3) + 1, F(2, 3) + 1),
    "random.binomial": ex(R.binomial, KEY, F(2, 3) * 10, F(2, 3)),
    "random.multinomial": ex(lambda k, p: R.multinomial(k, 6.0, p / p.sum()), KEY, F(3)),
    "random.dirichlet": ex(R.dirichlet, KEY, F(3) + 1),
    "random.triangular": ex(R.triangular, KEY, S(0.0), S(0.5), S(1.0)),
    "random.truncated_normal": ex(R.truncated_normal, KEY, S(-1.0), S(2.0)),
    "random.multivariate_normal": ex(R.multivariate_normal, KEY, N(3),
                                     np.eye(3, dtype=np.float32) + 0.1),
}
"""Public function (`jnp.`, `nn.`, `random.` + name) -> its example call."""

STATIC = "static: answers from types, shapes or options, stages no primitive"
HOST = "host side: files, buffers, DLPack or printing, not traceable"
CONSTANT = "takes no array: a constant built from Python numbers"
DATA_DEPENDENT = "data-dependent output shape, with no static form (no `size=`)"
NOT_TRACED: dict[str, str] = {
    **dict.fromkeys((f"jnp.{n}" for n in (
        "shape ndim size isscalar iterable iscomplexobj isrealobj result_type can_cast "
        "promote_types issubdtype isdtype broadcast_shapes einsum_path get_printoptions "
        "set_printoptions printoptions").split()), STATIC),
    "random.key_impl": STATIC,
    **dict.fromkeys((f"jnp.{n}" for n in (
        "array_repr array_str load save savez fromfile frombuffer fromstring fromiter "
        "from_dlpack").split()), HOST),
    **dict.fromkeys((f"jnp.{n}" for n in (
        "arange eye identity tri indices diag_indices tril_indices triu_indices "
        "mask_indices bartlett blackman hamming hanning empty zeros ones "
        "fromfunction").split()), CONSTANT),
    "random.key_dtype": STATIC,
    "jnp.trim_zeros": DATA_DEPENDENT,
    "nn.get_scaled_dot_general_config": STATIC,
}
"""Public functions without an example, with the reason."""


@functools.cache
def public_functions() -> tuple[str, ...]:
    """Every public function (not class, not module) of the covered namespaces."""
    return tuple(f"{prefix}.{n}" for prefix, module in MODULES.items()
                 for n in sorted(dir(module)) if not n.startswith("_")
                 and callable(f := getattr(module, n))
                 and not inspect.isclass(f) and not inspect.ismodule(f))
