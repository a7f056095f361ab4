"""`tf.GradientTape` behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

import tensorflow as tf
from tensorflow.python.eager.record import could_possibly_record

from .autodiff import AuxFn, NoAutodiff, map_arrays


def _differentiable(x: Any) -> bool:
    if not isinstance(x, (tf.Tensor, tf.Variable)):
        return False
    dtype = x.dtype
    try:
        return _INEXACT[id(dtype)]
    except KeyError:
        value = _INEXACT[id(dtype)] = bool(dtype.is_floating or dtype.is_complex)
        return value


_INEXACT: dict[int, bool] = {}
"""id of a TF dtype (TF interns them: one object per dtype) -> whether it is float or
complex; `DType.is_floating` is a Python property, read per leaf and step otherwise."""


def _may_record() -> bool:
    """Whether an op run now can be differentiated later: eager TF records only under an
    active `GradientTape` (with none, a `stop_gradient` per value is an eager op each and
    changes nothing); a graph being built (`tf.function`) keeps every op's inputs."""
    return could_possibly_record() or not tf.executing_eagerly()


class TensorFlowAutodiff(NoAutodiff):
    def variable(self, x: Any) -> Any:
        return x if isinstance(x, tf.Variable) else tf.Variable(x)

    def is_variable(self, x: Any) -> bool:
        return isinstance(x, tf.Variable) and x.trainable

    def stop_gradient(self, x: Any) -> Any:
        return tf.stop_gradient(x)

    def unrecorded(self, values: list[Any]) -> tuple[AbstractContextManager[Any], bool]:
        return nullcontext(), _may_record()

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        flags = [_differentiable(x) for x in leaves]
        wanted = [x for x, want in zip(leaves, flags) if want]
        # the tape watches trainable variables as they are read (watching them by hand
        # costs ~3% of a small MLP's step); other tensors it is told about
        unwatched = [x for x in wanted if not (isinstance(x, tf.Variable) and x.trainable)]
        with tf.GradientTape() as tape:
            if unwatched:
                tape.watch(unwatched)
            loss, aux = func(list(leaves))
        found = iter(tape.gradient(loss, wanted,
                                   unconnected_gradients=tf.UnconnectedGradients.ZERO))
        grads = [next(found) if want else None for want in flags]
        # a variable's gradient of a gather is an IndexedSlices: the dense one is wanted
        grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
                 for g in grads]
        if not _may_record():  # no outer tape: nothing can see the outputs
            return loss, aux, grads
        return (tf.stop_gradient(loss), map_arrays(tf.stop_gradient, aux, (tf.Tensor, tf.Variable)),
                grads)
