"""ATen views, copies, creation and joining/splitting onto ivy ops (indexing and
scatter-style updates are `torch_index`'s).

torch records a static result shape for every node, so view-like ops (view, reshape,
flatten, squeeze, expand, ...) need no shape arithmetic here: they become one
`reshape` or `broadcast_to` to the shape torch computed. Copies and dtype conversions
are the identity here; the walker casts every result to torch's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import INT64_MAX

from .common import Rule, Unmapped, spec_of, wrap_pad
from .torch_ctx import Ctx, DataDependent, TensorScalar, promote_types


def _identity(c: Ctx, x: Any, *args: Any, **kwargs: Any) -> Any:
    return x


def _dropout(c: Ctx, x: SSAValue, p: float = 0.5, train: bool | None = False) -> SSAValue:
    return _native_dropout(c, x, p, train)[0]


def _native_dropout(c: Ctx, x: SSAValue, p: float, train: bool | None) -> list[SSAValue]:
    """In training mode the mask is drawn from the program's random key (each compiled
    call gets a fresh one from the target's RNG): torch's distribution, not its stream."""
    spec = spec_of(x)
    if not train or p == 0:
        return [x, c.emit("ones", shape=list(c.out_sizes), dtype="bool")]
    u = c.emit("random_uniform", c.b.rng_key(), shape=list(c.out_sizes), dtype=spec.dtype)
    keep = c.emit("greater_equal", u, c.const(p, spec.dtype))
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    out = c.emit("where", keep, c.emit("multiply", x, c.const(scale, spec.dtype)),
                 c.const(0, spec.dtype))
    return [out, keep]


def _reshape(c: Ctx, x: SSAValue, *args: Any, **kwargs: Any) -> SSAValue:
    shape = list(c.out_sizes)
    if shape.count(None) == 1:  # a count only the data decides (rows of x[mask]): solved
        shape[shape.index(None)] = -1
    return x if list(spec_of(x).shape) == shape else c.emit("reshape", x, shape=shape)


def _expand(c: Ctx, x: SSAValue, *args: Any, **kwargs: Any) -> SSAValue:
    shape = list(c.out_sizes)
    return x if list(spec_of(x).shape) == shape else c.emit("broadcast_to", x, shape=shape)


def _permute(c: Ctx, x: SSAValue, axes: list[int]) -> SSAValue:
    rank = spec_of(x).rank
    axes = [a % rank for a in axes]
    return x if axes == list(range(rank)) else c.emit("permute_dims", x, axes=axes)


def _swap(c: Ctx, x: SSAValue, d0: int = 0, d1: int = 1) -> SSAValue:
    rank = spec_of(x).rank
    if rank < 2:
        return x
    axes = list(range(rank))
    axes[d0 % rank], axes[d1 % rank] = axes[d1 % rank], axes[d0 % rank]
    return _permute(c, x, axes)


def _reverse(c: Ctx, x: SSAValue) -> SSAValue:
    return _permute(c, x, list(range(spec_of(x).rank))[::-1])


def _movedim(c: Ctx, x: SSAValue, source: Any, destination: Any) -> SSAValue:
    rank = spec_of(x).rank
    src = [s % rank for s in ([source] if isinstance(source, int) else source)]
    dst = [d % rank for d in ([destination] if isinstance(destination, int) else destination)]
    rest = iter(a for a in range(rank) if a not in src)
    placed = dict(zip(dst, src))
    return _permute(c, x, [placed[i] if i in placed else next(rest) for i in range(rank)])


def slice_axis(c: Ctx, x: SSAValue, dim: int, start: int, stop: int, step: int = 1) -> SSAValue:
    """`x[..., start:stop:step, ...]` on axis `dim` (Python slice bounds)."""
    rank = spec_of(x).rank
    dim %= rank
    starts, stops, steps = [0] * rank, [INT64_MAX] * rank, [1] * rank
    starts[dim], stops[dim], steps[dim] = start, stop, step
    return c.emit("slice", x, start=starts, stop=stops, step=steps)


def _slice(c: Ctx, x: SSAValue, dim: int = 0, start: int | None = None,
           end: int | None = None, step: int = 1) -> SSAValue:
    start, end = (_number(c, v, "a slice") for v in (start, end))
    size = spec_of(x).shape[dim]
    if isinstance(end, SymDim) or size is None:  # `x[:, :seq]`: bounds resolved at run time
        return slice_axis(c, x, dim, 0 if start is None else start,
                          INT64_MAX if end is None else end, step)
    b, e, s = slice(start, end, step).indices(size)
    if (b, e, s) == (0, size, 1):
        return x
    return slice_axis(c, x, dim, b, max(e, b), s)


def _narrow(c: Ctx, x: SSAValue, dim: int, start: int, length: int) -> SSAValue:
    start %= spec_of(x).shape[dim] or 1
    return _slice(c, x, dim, start, start + length)


def _select(c: Ctx, x: SSAValue, dim: int, index: int | TensorScalar) -> SSAValue:
    size = spec_of(x).shape[dim]
    if isinstance(index, TensorScalar):  # x[:, i] with a 0-d index tensor i
        idx = c.cast(index.value, "int64")
        negative = c.emit("less", idx, c.const(0, "int64"))
        idx = c.emit("where", negative, c.emit("add", idx, c.const(size, "int64")), idx)
        return c.emit("take", x, idx, axis=dim)
    if size is not None:
        index %= size
    # on a dynamic dim a negative index counts from the end at run time
    stop = INT64_MAX if index == -1 else index + 1
    return _reshape(c, slice_axis(c, x, dim, index, stop))


def _joined(op: str) -> Rule:
    """cat/stack: inputs promote to one dtype; cat skips legacy empty 1-D tensors."""
    def emit(c: Ctx, tensors: list[SSAValue], dim: int = 0) -> SSAValue:
        dtype = promote_types(tensors)
        if op == "concat":
            kept = [t for t in tensors if spec_of(t).shape != (0,)]
            tensors = kept or tensors[:1]
        return c.emit(op, [c.cast(t, dtype) for t in tensors], axis=dim)
    return emit


def _split_sizes(size: int, split_size: int) -> list[int]:
    sizes = [split_size] * (size // split_size)
    return sizes + [size % split_size] if size % split_size else sizes


def _split(c: Ctx, x: SSAValue, split_size: Any, dim: int = 0) -> list[SSAValue]:
    size = spec_of(x).shape[dim]
    sizes = list(split_size) if isinstance(split_size, (list, tuple)) else \
        _split_sizes(size, split_size)
    return c.emit_all("split", x, sizes=sizes, axis=dim)


def _chunk(c: Ctx, x: SSAValue, chunks: int, dim: int = 0) -> list[SSAValue]:
    size = spec_of(x).shape[dim]
    return _split(c, x, -(-size // chunks) if size else 1, dim)


def _unbind(c: Ctx, x: SSAValue, dim: int = 0) -> list[SSAValue]:
    parts = c.emit_all("split", x, sizes=[1] * spec_of(x).shape[dim], axis=dim)
    return [c.emit("squeeze", p, axis=[dim]) for p in parts]


def _unfold(c: Ctx, x: SSAValue, dimension: int, size: int, step: int) -> SSAValue:
    """`Tensor.unfold`: the windows of `size` every `step` along `dimension`, a new last
    axis holding each window: a take of the (windows, size) index table, then the
    window axis moved last."""
    shape = spec_of(x).shape
    rank = len(shape)
    dim = dimension % rank if rank else 0
    length = shape[dim] if rank else 1
    n = (length - size) // step + 1
    table = np.arange(n)[:, None] * step + np.arange(size)[None, :]
    if not rank:
        return c.emit("reshape", x, shape=[1])
    out = c.emit("take", x, c.const(table, "int64"), axis=dim)
    axes = [*range(dim + 1), *range(dim + 2, rank + 1), dim + 1]
    return c.emit("permute_dims", out, axes=axes) if dim + 1 != rank else out


def _roll(c: Ctx, x: SSAValue, shifts: Any, dims: Any = ()) -> SSAValue:
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if not dims:  # roll the flattened tensor
        flat = c.emit("reshape", x, shape=[-1])
        return c.emit("reshape", c.emit("roll", flat, shift=shifts, axis=[0]),
                      shape=list(c.out_sizes))
    return c.emit("roll", x, shift=shifts, axis=dims)


def _repeat(c: Ctx, x: SSAValue, repeats: list[int]) -> SSAValue:
    return c.emit("tile", x, reps=list(repeats))


def _repeat_interleave(c: Ctx, x: SSAValue, repeats: Any, dim: int | None = None,
                       *, output_size: Any = None) -> SSAValue:
    if isinstance(repeats, SSAValue):
        raise Unmapped("with tensor repeats")
    return c.emit("repeat", x, repeats=repeats, axis=dim)


def pad_torch(c: Ctx, x: SSAValue, pad: list[int], mode: str = "constant",
              value: Any = None) -> SSAValue:
    """torch pad lists run from the last dim backwards; negative amounts crop."""
    modes = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}
    if mode not in modes and mode != "circular":
        raise Unmapped(f"pad mode '{mode}'")
    if any(isinstance(w, SymDim) for w in pad):
        raise Unmapped(f"pad widths ({', '.join(map(str, pad))}) holding a dynamic size "
                       "(pad widths are numbers)")
    rank = spec_of(x).rank
    width = [0] * (2 * rank)
    for i in range(len(pad) // 2):
        dim = rank - 1 - i
        width[2 * dim], width[2 * dim + 1] = pad[2 * i], pad[2 * i + 1]
    grow = [max(w, 0) for w in width]
    if mode == "circular":  # torch crops first, then wraps what is left
        out = _crop(c, x, width)
        shape = spec_of(out).shape
        if not all(isinstance(d, int) for d in shape):
            raise Unmapped("circular padding of a dynamic size")
        return wrap_pad(c, out, shape, grow) if any(grow) else out
    out = c.emit("pad", x, pad_width=grow, mode=modes[mode],
                 value=None if value is None else float(value)) if any(grow) else x
    return _crop(c, out, width)


def _crop(c: Ctx, x: SSAValue, width: list[int]) -> SSAValue:
    """`x` without the elements negative pad widths remove."""
    for dim in range(spec_of(x).rank):
        lo, hi = width[2 * dim], width[2 * dim + 1]
        if lo < 0 or hi < 0:
            size = spec_of(x).shape[dim]
            x = slice_axis(c, x, dim, max(-lo, 0), size - max(-hi, 0))
    return x


def _pad_mode(mode: str) -> Rule:
    return lambda c, x, padding: pad_torch(c, x, list(padding), mode)


def _creation(op: str) -> Rule:
    def emit(c: Ctx, *args: Any, **kwargs: Any) -> SSAValue:
        return c.emit(op, shape=list(c.out_sizes), dtype=c.out.dtype)
    return emit


def _full(c: Ctx, size: Any, fill_value: Any, **kwargs: Any) -> SSAValue:
    return c.emit("full", shape=list(c.out_sizes), fill_value=float(fill_value),
                  dtype=c.out.dtype)


def _like_full(c: Ctx, x: Any, fill_value: Any, **kwargs: Any) -> SSAValue:
    if isinstance(fill_value, SSAValue):  # fill.Tensor: a 0-d tensor broadcast
        return c.emit("broadcast_to", c.cast(fill_value, c.out.dtype), shape=list(c.out_sizes))
    return _full(c, None, fill_value)


def _new_full(c: Ctx, x: Any, size: Any, fill_value: Any, **kwargs: Any) -> SSAValue:
    return _full(c, size, fill_value)


def _arange(c: Ctx, *args: Any, **kwargs: Any) -> SSAValue:
    """`arange(end)`, `arange(start, end[, step])`; an end may be a symbolic size
    (`arange(seq)`: position ids), a bound read out of a tensor its value when that is
    fixed at import time (funnel's relative positions, from an `arange` of its own)."""
    start, end, step = (0, args[0], 1) if len(args) == 1 else (*args[:2], args[2] if
                                                              len(args) > 2 else 1)
    start, end, step = (v if isinstance(v, SymDim) else float(_number(c, v))
                        for v in (start, end, step))
    return c.emit("arange", start=start, stop=end, step=step, dtype=c.out.dtype)


def _number(c: Ctx, value: Any, what: str = "a range") -> Any:
    """A Python number, or one read out of a tensor whose value is fixed at import time;
    `what` names the op whose size a data-dependent one would decide."""
    if not isinstance(value, TensorScalar):
        return value
    known = c.known(value.value)
    if known is None:
        raise DataDependent(f"{what} whose bounds are read out of tensor values has a "
                            "size only the data decides")
    return known.item()


def _linspace(c: Ctx, start: Any, end: Any, steps: int, **kwargs: Any) -> SSAValue:
    return c.emit("linspace", start=float(start), stop=float(end), num=steps, dtype=c.out.dtype)


def _eye(c: Ctx, n: int, m: Any = None, **kwargs: Any) -> SSAValue:
    return c.emit("eye", n_rows=n, n_cols=m if isinstance(m, int) else None, dtype=c.out.dtype)


def _scalar_tensor(c: Ctx, s: Any, **kwargs: Any) -> SSAValue:
    return c.const(s, c.out.dtype)


def _copy(c: Ctx, x: SSAValue, src: SSAValue, non_blocking: bool = False) -> SSAValue:
    src = c.cast(src, spec_of(x).dtype)
    return _expand(c, src)


def _triangle(op: str) -> Rule:
    return lambda c, x, diagonal=0: c.emit(op, x, k=diagonal)


def _diagonal(c: Ctx, x: SSAValue, offset: int = 0, dim1: int = 0, dim2: int = 1) -> SSAValue:
    return c.emit("diagonal", x, offset=offset, axis1=dim1, axis2=dim2)


def _one_hot(c: Ctx, x: SSAValue, num_classes: int = -1) -> SSAValue:
    if num_classes < 0:
        raise Unmapped("without num_classes (the depth depends on the data)")
    return c.emit("one_hot", c.cast(x, "int64"), depth=num_classes, dtype="int64")


def _pixel_shuffle(c: Ctx, x: SSAValue, r: int) -> SSAValue:
    # (N, C r^2, H, W) -> (N, C, r, r, H, W) -> (N, C, H, r, W, r) -> (N, C, H r, W r)
    n, cr, h, w = spec_of(x).shape[-4:]
    y = c.emit("reshape", x, shape=[n, cr // (r * r), r, r, h, w])
    y = c.emit("permute_dims", y, axes=[0, 1, 4, 2, 5, 3])
    return _reshape(c, y)


def _pixel_unshuffle(c: Ctx, x: SSAValue, r: int) -> SSAValue:
    n, ch, hr, wr = spec_of(x).shape[-4:]
    y = c.emit("reshape", x, shape=[n, ch, hr // r, r, wr // r, r])
    y = c.emit("permute_dims", y, axes=[0, 1, 3, 5, 2, 4])
    return _reshape(c, y)


IDENTITY = ("clone", "contiguous", "alias", "lift_fresh_copy",
            "lift_fresh", "_to_copy", "to", "type_as", "alias_copy", "positive", "resolve_conj",
            "resolve_neg")
RESHAPE = ("view", "reshape", "_unsafe_view", "flatten", "unflatten", "view_as", "reshape_as",
           "squeeze", "unsqueeze", "ravel", "atleast_1d", "atleast_2d", "atleast_3d")


def _static_size(dims: tuple[int | None, ...]) -> int:
    """The element count of static `dims`. Without `dynamic=` a `?` dim is a count only
    the data decides (the rows of `x[mask]`, `torch.nonzero`): the program's shape
    arithmetic cannot read it, so using it is refused rather than guessed."""
    if None in dims:
        raise DataDependent("the size of a result whose length depends on the data (the "
                            "rows of x[mask] or torch.nonzero) is used as a number; only "
                            "tensor ops may consume such a result")
    return int(np.prod(dims))


SHAPE: dict[str, Rule] = {
    **{k: _identity for k in IDENTITY},
    **{k: _reshape for k in RESHAPE},
    **{k: _dropout for k in ("dropout", "feature_dropout", "alpha_dropout",
                             "feature_alpha_dropout")},
    "native_dropout": _native_dropout,
    "expand": _expand,
    "expand_as": _expand,
    "broadcast_to": _expand,
    "permute": _permute,
    "transpose.int": _swap,
    "swapaxes": _swap,
    "swapdims": _swap,
    "t": _reverse,
    "numpy_T": _reverse,
    "mT": lambda c, x: _swap(c, x, -2, -1),
    "adjoint": lambda c, x: _swap(c, x, -2, -1),
    "movedim": _movedim,
    "moveaxis": _movedim,
    "slice.Tensor": _slice,
    "narrow": _narrow,
    "select.int": _select,
    "cat": _joined("concat"),
    "concat": _joined("concat"),
    "concatenate": _joined("concat"),
    "stack": _joined("stack"),
    "split.Tensor": _split,
    "split_with_sizes": _split,
    "split.sizes": _split,
    "chunk": _chunk,
    "unbind.int": _unbind,
    "flip": lambda c, x, dims: c.emit("flip", x, axis=list(dims)),
    "roll": _roll,
    "unfold": _unfold,
    "repeat": _repeat,
    "tile": _repeat,
    "repeat_interleave.self_int": _repeat_interleave,
    "repeat_interleave.self_Tensor": _repeat_interleave,
    "constant_pad_nd": lambda c, x, pad, value=0: pad_torch(c, x, list(pad), "constant", value),
    "pad": lambda c, x, pad, mode="constant", value=None: pad_torch(c, x, list(pad), mode,
                                                                    value),
    **{f"reflection_pad{n}d": _pad_mode("reflect") for n in (1, 2, 3)},
    **{f"replication_pad{n}d": _pad_mode("replicate") for n in (1, 2, 3)},
    "tril": _triangle("tril"),
    "triu": _triangle("triu"),
    "diagonal": _diagonal,
    "one_hot": _one_hot,
    "pixel_shuffle": _pixel_shuffle,
    "pixel_unshuffle": _pixel_unshuffle,
    # creation
    **{k: _creation("zeros") for k in ("zeros", "zeros_like", "new_zeros", "empty", "empty_like",
                                       "new_empty", "empty_strided", "new_empty_strided")},
    **{k: _creation("ones") for k in ("ones", "ones_like", "new_ones")},
    "full": _full,
    "full_like": _like_full,
    "fill": _like_full,
    "new_full": _new_full,
    "scalar_tensor": _scalar_tensor,
    "arange": _arange,
    "linspace": _linspace,
    "eye": _eye,
    "copy": _copy,
    "sym_size.int": lambda c, x, dim: _static_size((spec_of(x).shape[dim],)),
    "sym_numel": lambda c, x: _static_size(spec_of(x).shape),
    "item": lambda c, x: TensorScalar(x),
    "_local_scalar_dense": lambda c, x: TensorScalar(x),
}
