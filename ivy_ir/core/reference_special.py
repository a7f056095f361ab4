"""Pure-NumPy kernels of the special functions NumPy has no ufunc for: `lgamma`,
`digamma` and `bessel_i0e` (SciPy has them, but the reference may not depend on it).

Each computes in float64 and casts back to its input's dtype, so a float32 result is
the float64 one rounded once. The methods are the textbook ones, each used where it
converges fast: an asymptotic series for large arguments, a power series or recurrence
below, and the reflection formula for negative arguments. The emitter copies a
kernel's source into the generated code, so each may use only `np`, `math` and the
other kernels (its coefficient tables are literals in its body).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bessel_i0e", "complex_ops", "complex_parts", "digamma", "lgamma",
           "lgamma_positive"]


def lgamma_positive(w):
    # log Gamma(w) for w > 0 (float64; inf and NaN go through). Near 2, Taylor's series
    # lgamma(2 + t) = (1 - gamma) t + sum_k>=2 (-1)^k (zeta(k) - 1) / k t^k, |t| <= 1/2
    # (its coefficients, below, fall like 2^-k): t is exact, so the relative accuracy
    # holds at the roots 1 and 2 too. Below 1.5, Gamma(w) = Gamma(w + 1) / w (twice below
    # 1/2) with t = w - 1 or w itself (never taken from a rounded w + 1); up to 8, the
    # recurrence Gamma(w) = (w - 1) Gamma(w - 1) down into [1.5, 2.5) (exact steps); from
    # 8 on, Stirling's series
    coefficients = (
        0.42278433509846713, 0.3224670334241132, -0.0673523010531981,
        0.020580808427784546, -0.007385551028673986, 0.0028905103307415234,
        -0.001192753911703261, 0.0005096695247430425, -0.00022315475845357939,
        9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05,
        -9.439488275268397e-06, 4.374866789907488e-06, -2.039215753801366e-06,
        9.55141213040742e-07, -4.492469198764566e-07, 2.1207184805554665e-07,
        -1.0043224823968099e-07, 4.7698101693639804e-08, -2.2711094608943164e-08,
        1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09,
        -1.1921401405860912e-09, 5.731367241678862e-10, -2.7595228851242334e-10,
        1.330476437424449e-10, -6.4229645638381e-11, 3.1044247747322276e-11)
    small = np.where(w < 8, w, 2.0)
    product = np.ones_like(w)
    for _ in range(6):
        down = small >= 2.5
        product = np.where(down, product * (small - 1), product)
        small = np.where(down, small - 1, small)
    t = np.where(small < 0.5, small, np.where(small < 1.5, small - 1, small - 2))
    series = np.full_like(w, coefficients[-1])
    for c in coefficients[-2::-1]:
        series = series * t + c
    near = series * t + np.log(product)
    near = np.where(small < 0.5, near - np.log(small) - np.log1p(small),
                    np.where(small < 1.5, near - np.log1p(t), near))
    large = np.where(w < 8, 8.0, w)
    inverse = 1 / large
    square = inverse * inverse
    # B_2k / (2k (2k - 1) w^(2k - 1)), k = 1..8: the next term is below 1e-16 of the value
    tail = (1 / 12 + square * (-1 / 360 + square * (1 / 1260 + square * (
        -1 / 1680 + square * (1 / 1188 + square * (-691 / 360360 + square * (
            1 / 156 + square * (-3617 / 122400)))))))) * inverse
    stirling = large * (np.log(large) - 1) - 0.5 * np.log(large) \
        + 0.5 * math.log(2 * math.pi) + tail
    return np.where(w < 8, near, np.where(w == np.inf, np.inf, stirling))


def lgamma(x):
    # log|Gamma(x)|; below 0 through the reflection Gamma(x) Gamma(1 - x) = pi / sin(pi x),
    # sin's argument reduced exactly to [-pi/2, pi/2]. The poles 0, -1, -2, ... and -inf
    # give +inf (as XLA)
    with np.errstate(all="ignore"):
        z = np.asarray(x, dtype=np.float64)
        value = lgamma_positive(np.where(z > 0, z, 1 - z))
        r = z - np.round(z)
        # log(pi / |sin(pi r)|), which is -log|r| to 1e-16 for |r| < 1e-8 (and exact so for
        # a subnormal r, where pi r would round coarsely and pi / sin overflow)
        log_csc = np.where(np.abs(r) < 1e-8, -np.log(np.abs(r)),
                           math.log(math.pi) - np.log(np.abs(np.sin(math.pi * r))))
        reflected = log_csc - value
        out = np.where(z > 0, value, reflected)
        out = np.where((z <= 0) & (np.floor(z) == z), np.inf, out)
    return out.astype(x.dtype, copy=False)


def digamma(x):
    # psi(x): the recurrence psi(z) = psi(z + 1) - 1 / z up to z >= 10, then the
    # asymptotic series; below 0 the reflection psi(x) = psi(1 - x) - pi / tan(pi x), tan's
    # argument reduced exactly. The poles 0, -1, -2, ... and -inf give NaN (as XLA).
    # Near its roots (1.4616..., and one in each (-n - 1, -n)) the value has an absolute
    # error of about 1e-16 times its terms, not a relative one
    with np.errstate(all="ignore"):
        z = np.asarray(x, dtype=np.float64)
        w = np.where(z > 0, z, 1 - z)
        shift = np.zeros_like(w)
        for _ in range(10):
            up = w < 10
            shift = np.where(up, shift + 1 / w, shift)
            w = np.where(up, w + 1, w)
        inverse = 1 / w
        square = inverse * inverse
        # B_2k / (2k z^2k), k = 1..7: the next term is below 1e-16 of the value
        tail = square * (1 / 12 + square * (-1 / 120 + square * (1 / 252 + square * (
            -1 / 240 + square * (1 / 132 + square * (-691 / 32760 + square / 12))))))
        value = np.log(w) - 0.5 * inverse - tail - shift
        r = z - np.round(z)
        # pi / tan(pi r) is 1 / r to 1e-16 for |r| < 1e-8 (and exact so for a subnormal r)
        cot = np.where(np.abs(r) < 1e-8, 1 / r, math.pi / np.tan(math.pi * r))
        reflected = value - cot
        out = np.where(z > 0, value, reflected)
        pole = (z <= 0) & (np.floor(z) == z)
        out = np.where(pole, np.nan, out)
    return out.astype(x.dtype, copy=False)


def bessel_i0e(x):
    # exp(-|x|) I0(x): up to |x| = 30 the power series I0 = sum_k ((x/2)^2)^k / (k!)^2
    # (positive terms, below 1e-18 of the sum after 48 of them); above, the asymptotic
    # series exp(-a) I0(a) ~ sum_k ((2k - 1)!!)^2 / (k! (8a)^k) / sqrt(2 pi a), whose
    # terms fall below 1e-17 within 24 there. Never computes I0 itself past 30, so it
    # cannot overflow (np.i0(x) * exp(-|x|) does past |x| ~ 710)
    with np.errstate(all="ignore"):
        a = np.abs(np.asarray(x, dtype=np.float64))
        near = np.where(a <= 30, a, 0.0)
        q = near * near / 4
        term = np.ones_like(a)
        total = np.ones_like(a)
        for k in range(1, 49):
            term = term * q / (k * k)
            total = total + term
        far = np.where(a > 30, a, 31.0)
        term = np.ones_like(a)
        series = np.ones_like(a)
        for k in range(1, 25):
            term = term * ((2 * k - 1) ** 2 / (8 * k)) / far
            series = series + term
        out = np.where(a <= 30, total * np.exp(-near), series / np.sqrt(2 * math.pi * far))
        out = np.where(np.isnan(a), a, out)
    return out.astype(x.dtype, copy=False)


def complex_ops():
    # NumPy's functions for `complex_special` (`ivy_ir.core.complex_kernel`)
    return {"is_complex": np.iscomplexobj, "real": np.real, "imag": np.imag,
            "complex": complex_parts, "signbit": np.signbit, "where": np.where,
            "isinf": np.isinf, "isnan": np.isnan, "isfinite": np.isfinite, "abs": np.abs,
            "cos": np.cos, "sin": np.sin, "copysign": np.copysign,
            "constant": lambda v, like: v, "stop_gradient": lambda v: v,
            "quiet": lambda: np.errstate(all="ignore")}


def complex_parts(re, im):
    # re + im j exactly (re + 1j * im would make 0 * inf)
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)),
                   np.result_type(re, im, np.complex64))
    out.real, out.imag = re, im
    return out
