"""`tf.GradientTape` behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from .autodiff import AuxFn, NoAutodiff, map_arrays


def _differentiable(x: Any) -> bool:
    return isinstance(x, (tf.Tensor, tf.Variable)) and (x.dtype.is_floating or x.dtype.is_complex)


class TensorFlowAutodiff(NoAutodiff):
    def variable(self, x: Any) -> Any:
        return x if isinstance(x, tf.Variable) else tf.Variable(x)

    def is_variable(self, x: Any) -> bool:
        return isinstance(x, tf.Variable) and x.trainable

    def stop_gradient(self, x: Any) -> Any:
        return tf.stop_gradient(x)

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        wanted = [x for x in leaves if _differentiable(x)]
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(wanted)
            loss, aux = func(list(leaves))
        found = iter(tape.gradient(loss, wanted,
                                   unconnected_gradients=tf.UnconnectedGradients.ZERO))
        grads = [next(found) if _differentiable(x) else None for x in leaves]
        # a variable's gradient of a gather is an IndexedSlices: the dense one is wanted
        grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
                 for g in grads]
        return (tf.stop_gradient(loss), map_arrays(tf.stop_gradient, aux, (tf.Tensor, tf.Variable)),
                grads)
