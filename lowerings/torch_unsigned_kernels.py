"""Torch kernels for uint64 ops whose result reads the bits as unsigned, computed on the
same bits held in int64 (`Reinterpreting` in `lowerings/target.py`; torch 2.13 has no
uint64 kernels for them). Copied into the generated code like `torch_kernels.py`'s, so
they use only `torch` and each other. Operands are int64 tensors of uint64 bits.
"""

from __future__ import annotations

import torch

__all__ = ["divide_unsigned", "pow_unsigned", "remainder_unsigned", "shift_right_unsigned"]


def shift_right_unsigned(x, c):
    # a logical shift: the first step clears the sign bit torch's arithmetic shift copies
    # in, the rest shift a nonnegative value; counts of 64 and more (negative here too)
    # shift every bit out, as NumPy's
    halved = (x >> 1) & 0x7FFFFFFFFFFFFFFF
    rest = halved >> (c - 1).clamp(min=0, max=63)
    return torch.where(c == 0, x, torch.where((c < 0) | (c > 63), 0, rest))


def divide_unsigned(x, y):
    # the unsigned quotient (y != 0; Hacker's Delight 9-3): the halved x is nonnegative,
    # so a signed division of it by y < 2**63 gives q, doubled, the quotient or one
    # less, fixed by comparing the remainder as unsigned (sign bits flipped). A divisor
    # of 2**63 or more (negative here) goes into x at most once
    flip = -0x8000000000000000
    small = y > 0
    q = torch.div(shift_right_unsigned(x, torch.ones_like(x)),
                  torch.where(small, y, 1), rounding_mode="floor") << 1
    q = q + (((x - q * y) ^ flip) >= (y ^ flip)).to(torch.int64)
    return torch.where(small, q, ((x ^ flip) >= (y ^ flip)).to(torch.int64))


def remainder_unsigned(x, y):
    return x - divide_unsigned(x, y) * y


def pow_unsigned(x, y):
    # an exponent of 2**63 or more (negative here) replaced by one of the same value
    # mod 2**64: odd powers repeat with period 2**62 (the exponent of the odd residues
    # mod 2**64), and an even x to any exponent of 64 or more is 0
    return torch.pow(x, torch.where(y < 0, (y & 0x3FFFFFFFFFFFFFFF) | 0x4000000000000000, y))
