"""Exact float64 forms of the functions onnxruntime has no float64 kernel for, and the
accurate expm1/log1p every dtype uses (ONNX has neither).

Each is a function of a `GraphBuilder`, an input name and its dtype, returning the
result's name: built from float64 primitives onnxruntime computes exactly (Sin, Cos,
Exp, Log, Sqrt, Div), `atan` from a float32 seed refined by Newton steps in float64,
`erf` from its positive-term series summed by a Loop, `erfc` from it or from a continued
fraction.
"""

from __future__ import annotations

import math

from ivy_ir.dialect import TensorSpec

from .onnx_graph import GraphBuilder, value_info


def _const(b: GraphBuilder, value: float, dtype: str) -> str:
    return b.const(value, dtype)


def atan_f64(b: GraphBuilder, x: str, dtype: str) -> str:
    """atan of a float64 `x`: |x| > 1 reduced to pi/2 - atan(1/x), a float32 seed, then
    two Newton steps on tan(y) = z in float64 (error ~1e-7 -> ~1e-16)."""
    one, half_pi = _const(b, 1.0, dtype), _const(b, math.pi / 2, dtype)
    big = b.node("Greater", [b.node("Abs", [x]), one])
    z = b.node("Where", [big, b.node("Div", [one, x]), x])
    y = b.cast(b.node("Atan", [b.cast(z, "float32")]), dtype)
    for _ in range(2):  # y -= (tan y - z) cos^2 y = sin y cos y - z cos^2 y
        s, co = b.node("Sin", [y]), b.node("Cos", [y])
        step = b.node("Sub", [b.node("Mul", [s, co]), b.node("Mul", [z, b.node("Mul", [co, co])])])
        y = b.node("Sub", [y, step])
    reduced = b.node("Sub", [b.node("Mul", [b.node("Sign", [x]), half_pi]), y])
    return b.node("Where", [big, reduced, y])


def atan(b: GraphBuilder, x: str, dtype: str) -> str:
    return atan_f64(b, x, dtype) if dtype == "float64" else b.node("Atan", [x])


def expm1(b: GraphBuilder, x: str, dtype: str) -> str:
    """Kahan's expm1: u = exp(x); x where u == 1, else (u - 1) x / log(u)."""
    one = _const(b, 1.0, dtype)
    u = b.node("Exp", [x])
    um1 = b.node("Sub", [u, one])
    ratio = b.node("Div", [b.node("Mul", [um1, x]), b.node("Log", [u])])
    exact = b.node("Or", [b.node("IsInf", [u]), b.node("Equal", [um1, _const(b, -1.0, dtype)])])
    return b.node("Where", [b.node("Equal", [u, one]), x, b.node("Where", [exact, um1, ratio])])


def log1p(b: GraphBuilder, x: str, dtype: str) -> str:
    """Kahan's log1p: u = 1 + x; x where u == 1, else log(u) x / (u - 1)."""
    one = _const(b, 1.0, dtype)
    u = b.node("Add", [x, one])
    lu = b.node("Log", [u])
    ratio = b.node("Div", [b.node("Mul", [lu, x]), b.node("Sub", [u, one])])
    exact = b.node("Or", [b.node("IsInf", [u]), b.node("LessOrEqual", [u, _const(b, 0.0, dtype)])])
    return b.node("Where", [b.node("Equal", [u, one]), x, b.node("Where", [exact, lu, ratio])])


def sinh_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # (u + u / (u + 1)) / 2, u = expm1(x)
    u = expm1(b, x, dtype)
    frac = b.node("Div", [u, b.node("Add", [u, _const(b, 1.0, dtype)])])
    return b.node("Mul", [b.node("Add", [u, frac]), _const(b, 0.5, dtype)])


def cosh_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # (e^x + e^-x) / 2
    both = b.node("Add", [b.node("Exp", [x]), b.node("Exp", [b.node("Neg", [x])])])
    return b.node("Mul", [both, _const(b, 0.5, dtype)])


def tan_f64(b: GraphBuilder, x: str, dtype: str) -> str:
    return b.node("Div", [b.node("Sin", [x]), b.node("Cos", [x])])


def asin_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # atan(x / sqrt((1 - x)(1 + x)))
    one = _const(b, 1.0, dtype)
    root = b.node("Sqrt", [b.node("Mul", [b.node("Sub", [one, x]), b.node("Add", [one, x])])])
    return atan(b, b.node("Div", [x, root]), dtype)


def acos_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # 2 atan(sqrt((1 - x) / (1 + x)))
    one = _const(b, 1.0, dtype)
    t = b.node("Sqrt", [b.node("Div", [b.node("Sub", [one, x]), b.node("Add", [one, x])])])
    return b.node("Mul", [atan(b, t, dtype), _const(b, 2.0, dtype)])


def asinh_f64(b: GraphBuilder, x: str, dtype: str) -> str:
    # sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))
    one, a = _const(b, 1.0, dtype), b.node("Abs", [x])
    sq = b.node("Mul", [a, a])
    inner = b.node("Add", [a, b.node("Div", [sq, b.node("Add", [one, b.node("Sqrt", [
        b.node("Add", [one, sq])])])])])
    return b.node("Mul", [b.node("Sign", [x]), log1p(b, inner, dtype)])


def acosh_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # log(x + sqrt((x - 1)(x + 1)))
    one = _const(b, 1.0, dtype)
    root = b.node("Sqrt", [b.node("Mul", [b.node("Sub", [x, one]), b.node("Add", [x, one])])])
    return b.node("Log", [b.node("Add", [x, root])])


def atanh_f64(b: GraphBuilder, x: str, dtype: str) -> str:  # log1p(2x / (1 - x)) / 2
    one = _const(b, 1.0, dtype)
    q = b.node("Div", [b.node("Add", [x, x]), b.node("Sub", [one, x])])
    return b.node("Mul", [log1p(b, q, dtype), _const(b, 0.5, dtype)])


ERF_TERMS = 160
"""Terms of the float64 erf series: at |x| = 6 (where float64 erf is +-1) they have
fallen below 1e-17 of the sum by then."""


def erf_f64(b: GraphBuilder, x: str, dtype: str) -> str:
    """erf in float64 (onnxruntime's Erf is float32 only): x clipped to [-6, 6], then
    2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1 3 5 ... (2n+1)), whose terms are all
    of x's sign (no cancellation), summed by a Loop."""
    x = b.node("Clip", [x, _const(b, -6.0, dtype), _const(b, 6.0, dtype)])
    x2 = b.node("Mul", [x, x])
    body = b.sub()
    it, cond = body.names.fresh("n"), body.names.fresh("cond_in")
    term, total = body.names.fresh("term"), body.names.fresh("total")
    odd = body.node("Add", [body.node("Mul", [body.cast(it, dtype), _const(body, 2.0, dtype)]),
                            _const(body, 3.0, dtype)])
    nxt = body.node("Mul", [term, body.node("Div", [body.node("Add", [x2, x2]), odd])])
    outs = [body.node("Identity", [cond]), body.node("Identity", [nxt]),
            body.node("Add", [total, nxt])]
    like = TensorSpec((), dtype)
    spec = [TensorSpec((), "int64"), TensorSpec((), "bool")]
    graph = body.graph("erf_series", [value_info(n, t) for n, t in
                                      zip([it, cond, term, total], [*spec, like, like])],
                       [value_info(n, t) for n, t in zip(outs, [spec[1], like, like])])
    # the carries' shapes are x's, unknown to the body's declared types: left unranked
    for v in (*graph.input[2:], *graph.output[1:]):
        v.type.tensor_type.ClearField("shape")
    _, total = b.node("Loop", [b.const(ERF_TERMS, "int64"), "", x, x], 2, body=graph)
    scale = b.node("Mul", [b.node("Exp", [b.node("Neg", [x2])]),
                           _const(b, 2 / math.sqrt(math.pi), dtype)])
    return b.node("Mul", [scale, total])


ERFC_TERMS = 60
"""Terms of erfc's continued fraction from x = 2 on: within 2e-16 of it there."""


def erfc_f64(b: GraphBuilder, x: str, dtype: str) -> str:
    """erfc with its relative precision in the tail (ONNX has no Erfc), in float64: below
    2, 1 - erf(x) (at most a 5e-15 relative error); from 2 on, Laplace's continued
    fraction exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...))), summed
    from its far end."""
    wide = b.cast(x, "float64") if dtype != "float64" else x
    two = _const(b, 2.0, "float64")
    small = b.node("Less", [wide, two])
    near = b.node("Sub", [_const(b, 1.0, "float64"), erf_f64(b, wide, "float64")])
    far_x = b.node("Where", [small, two, wide])
    f = far_x
    for k in range(ERFC_TERMS, 0, -1):
        f = b.node("Add", [far_x, b.node("Div", [_const(b, k / 2, "float64"), f])])
    weight = b.node("Exp", [b.node("Neg", [b.node("Mul", [far_x, far_x])])])
    far = b.node("Div", [weight, b.node("Mul", [f, _const(b, math.sqrt(math.pi), "float64")])])
    out = b.node("Where", [small, near, far])
    return b.cast(out, dtype) if dtype != "float64" else out


__all__ = ["ERFC_TERMS", "ERF_TERMS", "acos_f64", "acosh_f64", "asin_f64", "asinh_f64", "atan",
           "atan_f64", "atanh_f64", "cosh_f64", "erf_f64", "erfc_f64", "expm1", "log1p",
           "sinh_f64", "tan_f64"]
