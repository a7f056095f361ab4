"""TensorFlow kernels of the control-flow ops: `tf.cond` and `tf.while_loop`.

Inside the `tf.function` the lowering builds, these become graph control flow
(functional `If`/`While` ops, XLA-compatible under `jit_compile`), differentiable by
`tf.GradientTape`. A scan is a `tf.while_loop` over a step counter whose per-step
outputs go into `tf.TensorArray`s, as `tf.scan` itself does, without stacking the
carry at every step (`unroll`, a hint for XLA's JAX scan, is not used). The regions
arrive as functions returning tuples (see `ivy_ir/core/reference_control.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

__all__ = ["run_cond", "run_scan", "run_while"]


def run_cond(pred: Any, then: Callable[..., tuple], orelse: Callable[..., tuple],
             inputs: Sequence[Any]) -> tuple:
    return tuple(tf.cond(pred, lambda: tuple(then(*inputs)), lambda: tuple(orelse(*inputs))))


def run_while(cond: Callable[..., tuple], body: Callable[..., tuple],
              inputs: Sequence[Any]) -> tuple:
    return tuple(tf.while_loop(lambda *c: cond(*c)[0], lambda *c: tuple(body(*c)),
                               tuple(inputs)))


def run_scan(body: Callable[..., tuple], inputs: Sequence[Any], num_carry: int, length: int,
             reverse: bool, unroll: int, ys_like: Sequence[tuple[tuple, Any]]) -> tuple:
    carry, xs = tuple(inputs[:num_carry]), tuple(inputs[num_carry:])
    arrays = tuple(tf.TensorArray(dtype, size=length, element_shape=shape)
                   for shape, dtype in ys_like)

    def step(i: Any, carry: tuple, arrays: tuple) -> tuple:
        t = length - 1 - i if reverse else i
        out = body(*carry, *(tf.gather(x, t) for x in xs))
        return (i + 1, tuple(out[:num_carry]),
                tuple(a.write(t, y) for a, y in zip(arrays, out[num_carry:])))

    _, carry, arrays = tf.while_loop(lambda i, c, a: i < length, step,
                                     (tf.constant(0), carry, arrays))
    return (*carry, *(a.stack() for a in arrays))
