"""TF TensorList ops (TensorArrays, as `tf.scan`, `tf.map_fn` and Keras RNNs stage them)
on dense lists.

A `TList` of static length N holds its elements stacked as one (N, *elem) array, so
reading an element is a `take` along axis 0, writing one a `scatter_nd`, and stacking
the list is the array itself. A loop that reads and writes its lists only at its own
step imports as an `ivy.scan` instead (`tensorflow_loops.py`): there a list read at
the step is a `Step`, whose element is the body's slice of the scanned array, and the
per-step writes become the scan's stacked outputs, with no scatter at all.

Lists whose length is not known at import time (`EmptyTensorList`, `PushBack`) have no
rule and are reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, TList, Value


@dataclass(frozen=True)
class Step:
    """A list inside a scan body that the body reads only at the scan's step: its
    element there is `item`, the body's slice of the scanned array."""

    item: SSAValue


def element_shape(value: Any) -> tuple[int | None, ...] | None:
    """An `element_shape` operand as a shape (-1: unknown dim; a scalar -1: unknown rank)."""
    shape = np.asarray(value)
    if shape.ndim == 0:
        return None
    return tuple(None if d < 0 else int(d) for d in shape)


def dense(c: Ctx, lst: TList, elem: tuple[int | None, ...] | None = None) -> Value:
    """The list's elements stacked on axis 0: zeros where nothing was written, of the
    element shape TF knows (or `elem`, what a write into it shows)."""
    if lst.items is not None:
        return lst.items
    shape = lst.elem if lst.elem is not None and None not in lst.elem else elem
    if shape is None or None in shape:
        raise Unmapped("a TensorList of unknown element shape read before any write")
    return c.b.emit("zeros", shape=[lst.length, *shape], dtype=lst.dtype)


def _the_list(value: Value) -> TList:
    if not isinstance(value, TList):
        raise Unmapped("a TensorList not made by TensorListReserve/FromTensor")
    return value


def _reserve(c: Ctx, shape: Value, count: Value, *, element_dtype: str, **_: Any) -> TList:
    length = c.ints(count, "number of elements")[0]
    if length < 0:
        raise Unmapped("a TensorList of unknown length")
    return TList(None, length, element_shape(c.static(shape, "element shape")), element_dtype)


def _from_tensor(c: Ctx, tensor: Value, shape: Value, *, element_dtype: str, **_: Any) -> TList:
    full = c.spec(tensor).shape
    if not full or full[0] is None:
        raise Unmapped("a TensorList from a tensor of unknown length")
    return TList(tensor, full[0], tuple(full[1:]), element_dtype)


def _get_item(c: Ctx, lst: Value, index: Value, shape: Value, **_: Any) -> Value:
    if isinstance(lst, Step):
        return lst.item
    items = dense(c, _the_list(lst), tuple(c.out.shape))
    i, known = c.known(index), c.known(items)
    if i is not None and known is not None:
        return known[int(i)]
    return c.emit("take", items, c.index(index), axis=0)


def _gather(c: Ctx, lst: Value, indices: Value, shape: Value, **_: Any) -> Value:
    items = dense(c, _the_list(lst), tuple(c.out.shape[1:]))
    return c.emit("take", items, c.index(indices), axis=0)


def _set_item(c: Ctx, lst: Value, index: Value, item: Value, **_: Any) -> TList:
    lst = _the_list(lst)
    items = dense(c, lst, tuple(c.spec(item).shape))
    at = c.emit("reshape", c.index(index), shape=[1])
    return replace(lst, items=c.emit("scatter_nd", items, at, item))


def _stack(c: Ctx, lst: Value, shape: Value, **_: Any) -> Value:
    return dense(c, _the_list(lst), tuple(c.out.shape[1:]))


def _length(c: Ctx, lst: Value, **_: Any) -> np.ndarray:
    return np.asarray(_the_list(lst).length, np.int32)


def _element_shape(c: Ctx, lst: Value, *, shape_type: str, **_: Any) -> np.ndarray:
    elem = _the_list(lst).elem
    if elem is None or None in elem:
        raise Unmapped("a TensorList of unknown element shape")
    return np.asarray(elem, shape_type)


LISTS: dict[str, Rule] = {
    "TensorListReserve": _reserve, "TensorListFromTensor": _from_tensor,
    "TensorListGetItem": _get_item, "TensorListGather": _gather,
    "TensorListSetItem": _set_item, "TensorListStack": _stack,
    "TensorListLength": _length, "TensorListElementShape": _element_shape,
}
"""TF raw op -> rule: TensorList ops on dense lists of static length."""
