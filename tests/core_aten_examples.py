"""One small example call per op of torch's core ATen op set, for the coverage table.

The core set is what `torch.export` graphs reduce to after `run_decompositions()`: the
op overloads tagged `torch.Tag.core`. Each example calls the overload itself on small
tensors; tensors (also inside lists) become the program's inputs, everything else stays
a constant of the program. An op with only tensor and number arguments needs no row:
`example()` derives its call from the schema (every tensor a 2x3 float32 in (0.1, 0.9),
inside every unary op's domain; every number 0.5). Rows give the rest.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

A = torch.ops.aten
_RNG = np.random.default_rng(17)


def F(*shape: int) -> torch.Tensor:
    """Float32 values in (0.1, 0.9): inside the domain of every unary op but acosh."""
    return torch.as_tensor(_RNG.uniform(0.1, 0.9, shape).astype(np.float32))


def N(*shape: int) -> torch.Tensor:
    """Float32 values of both signs."""
    return torch.as_tensor(_RNG.standard_normal(shape).astype(np.float32))


def I(high: int, *shape: int) -> torch.Tensor:  # noqa: E743 - reads as a type, like F
    return torch.as_tensor(_RNG.integers(0, high, shape))


def B(*shape: int) -> torch.Tensor:
    return torch.as_tensor(_RNG.random(shape) > 0.5)


def T(values: Any) -> torch.Tensor:
    return torch.as_tensor(values)


@dataclass
class Example:
    """`op(*args, **kwargs)`, or `program(op, *args)` where the op needs a surrounding
    program (an op without tensor operands, an op whose values only matter through
    another: `empty` is filled first)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    program: Callable[..., Any] | None = None


def ex(*args: Any, program: Callable[..., Any] | None = None, **kwargs: Any) -> Example:
    return Example(args, kwargs, program)


POOL = ([2, 2], [2, 2])
CONV = ([1, 1], [1, 1], [1, 1], False, [0, 0], 1)
EXAMPLES: dict[str, Example] = {
    "_adaptive_avg_pool2d.default": ex(F(1, 2, 6, 6), [3, 3]),
    "_adaptive_avg_pool2d_backward.default": ex(F(1, 2, 3, 3), F(1, 2, 6, 6)),
    "_adaptive_avg_pool3d.default": ex(F(1, 2, 4, 4, 4), [2, 2, 2]),
    "_cdist_forward.default": ex(N(2, 4, 3), N(2, 5, 3), 2.0, None),
    "_embedding_bag.default": ex(N(10, 3), I(10, 8), T([0, 3, 3, 5]), False, 1,
                                 program=lambda op, *a: op(*a)[0]),
    "_fft_c2r.default": ex(torch.complex(N(4, 3), N(4, 3)), [1], 2, 4),
    "_fft_r2c.default": ex(N(4, 6), [1], 0, True),
    "_local_scalar_dense.default": ex(N(2, 3), program=lambda op, x: x * op(x.sum())),
    "_log_softmax.default": ex(N(2, 3), 1, False),
    "_native_batch_norm_legit.default": ex(N(2, 3, 4), F(3), F(3), F(3), F(3), True, 0.1,
                                           1e-5),
    "_native_batch_norm_legit.no_stats": ex(N(2, 3, 4), F(3), F(3), True, 0.1, 1e-5),
    "_native_batch_norm_legit_no_training.default": ex(N(2, 3, 4), F(3), F(3), F(3), F(3),
                                                       0.1, 1e-5),
    "_pdist_forward.default": ex(N(5, 3), 2.0),
    "_softmax.default": ex(N(2, 3), 1, False),
    "_to_copy.default": ex(N(2, 3), dtype=torch.float64),
    "adaptive_avg_pool1d.default": ex(N(1, 2, 6), [3]),
    "addmm.default": ex(N(4), N(2, 3), N(3, 4)),
    "amax.default": ex(N(2, 3), [1]),
    "amin.default": ex(N(2, 3), [1]),
    "any.dim": ex(B(2, 3), 1),
    "any.dims": ex(B(2, 3), [0, 1]),
    "arange.start_step": ex(N(3), program=lambda op, x: x + op(0, 3, 1)),
    "acosh.default": ex(F(2, 3) + 1),
    "as_strided.default": ex(N(4, 4), [2, 3], [4, 1], 1),
    "atan2.out": ex(N(2, 3), N(2, 3), program=lambda op, x, y: op(x, y, out=torch.empty(2, 3))),
    "avg_pool1d.default": ex(N(1, 2, 6), [2]),
    "avg_pool2d.default": ex(N(1, 2, 6, 6), *POOL),
    "avg_pool2d_backward.default": ex(N(1, 2, 3, 3), N(1, 2, 6, 6), *POOL, [0, 0], False,
                                      True, None),
    "avg_pool3d.default": ex(N(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2]),
    **{f"bitwise_{k}.Tensor": ex(I(16, 2, 3), I(16, 2, 3)) for k in ("and", "or", "xor")},
    **{f"bitwise_{k}.Scalar": ex(I(16, 2, 3), 6) for k in ("and", "or", "xor")},
    "bitwise_not.default": ex(I(16, 2, 3)),
    "bmm.default": ex(N(2, 3, 4), N(2, 4, 5)),
    "cat.default": ex([N(2, 3), N(1, 3)]),
    "clamp.Tensor": ex(N(2, 3), N(2, 3) - 0.5, N(2, 3) + 0.5),
    "clamp.default": ex(N(2, 3), -0.3, 0.7),
    "col2im.default": ex(N(1, 8, 4), [4, 4], [2, 2], [1, 1], [0, 0], [2, 2]),
    "constant_pad_nd.default": ex(N(2, 3), [1, 2], 0.5),
    "convolution.default": ex(N(1, 2, 5, 5), N(3, 2, 3, 3), N(3), *CONV),
    "convolution_backward.default": ex(N(1, 3, 5, 5), N(1, 2, 5, 5), N(3, 2, 3, 3), [3], *CONV,
                                       [True, True, True]),
    "cumsum.default": ex(N(2, 3), 1),
    "div.Scalar_mode": ex(N(2, 3), 0.3, rounding_mode="floor"),
    "div.Tensor_mode": ex(N(2, 3), F(2, 3), rounding_mode="trunc"),
    "embedding.default": ex(N(10, 3), I(10, 4)),
    "embedding_dense_backward.default": ex(N(4, 3), I(10, 4), 10, -1, False),
    "empty.memory_format": ex(N(2, 3), program=lambda op, x: x + A.fill.Scalar(op([2, 3]), 1.5)),
    "empty_strided.default": ex(N(2, 3), program=lambda op, x:
                                x + A.fill.Scalar(op([2, 3], [3, 1]), 1.5)),
    "expand.default": ex(N(3, 1), [3, 4]),
    "flip.default": ex(N(2, 3), [0]),
    "full.default": ex(N(2, 3), program=lambda op, x: x + op([2, 3], 1.5)),
    "gather.default": ex(N(3, 4), 1, I(4, 3, 2)),
    "grid_sampler_2d.default": ex(N(1, 2, 4, 4), N(1, 3, 3, 2).clamp(-1, 1), 0, 0, False),
    "index.Tensor": ex(N(4, 3), [I(4, 5)]),
    "index_put.default": ex(N(4, 3), [T([2, 0])], N(2, 3)),
    "index_select.default": ex(N(4, 3), 0, I(4, 5)),
    "masked_scatter.default": ex(N(2, 3), B(2, 3), N(2, 3)),
    "max.dim": ex(N(2, 3), 1),
    "min.dim": ex(N(2, 3), 1),
    "max_pool2d_with_indices.default": ex(N(1, 2, 6, 6), *POOL),
    "max_pool2d_with_indices_backward.default": ex(
        N(1, 2, 3, 3), N(1, 2, 6, 6), program=lambda op, g, x: op(
            g, x, *POOL, [0, 0], [1, 1], False, A.max_pool2d_with_indices(x, *POOL)[1])),
    "max_pool3d_with_indices.default": ex(N(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2]),
    "mean.dim": ex(N(2, 3), [1]),
    "mm.default": ex(N(2, 3), N(3, 4)),
    "native_dropout.default": ex(N(2, 3), 0.5, False),
    "native_group_norm.default": ex(N(2, 4, 3), F(4), F(4), 2, 4, 3, 2, 1e-5),
    "native_group_norm_backward.default": ex(N(2, 4, 3), N(2, 4, 3), N(2, 2), F(2, 2), F(4),
                                             2, 4, 3, 2, [True, True, True]),
    "native_layer_norm.default": ex(N(2, 3), [3], F(3), F(3), 1e-5),
    "native_layer_norm_backward.default": ex(N(2, 3), N(2, 3), [3], N(2, 1), F(2, 1), F(3),
                                             F(3), [True, True, True]),
    "nonzero.default": ex(N(2, 3)),
    "permute.default": ex(N(2, 3, 4), [2, 0, 1]),
    "pow.Scalar": ex(2.0, N(2, 3)),
    "prod.dim_int": ex(N(2, 3), 1),
    "rand.default": ex(N(2, 3), program=lambda op, x: op([200, 3])),
    "randn.default": ex(N(2, 3), program=lambda op, x: op([200, 3])),
    "randperm.default": ex(N(4), program=lambda op, x: op(50)),
    "reflection_pad1d.default": ex(N(1, 2, 5), [1, 2]),
    "reflection_pad2d.default": ex(N(1, 2, 4, 4), [1, 1, 2, 2]),
    "reflection_pad3d.default": ex(N(1, 1, 3, 3, 3), [1, 1, 1, 1, 1, 1]),
    "repeat.default": ex(N(2, 3), [2, 1]),
    "replication_pad2d.default": ex(N(1, 2, 4, 4), [1, 1, 2, 2]),
    "replication_pad3d.default": ex(N(1, 1, 3, 3, 3), [1, 1, 1, 1, 1, 1]),
    "resize_.default": ex(N(2, 3), program=lambda op, x: op(x.clone(), [3, 2])),
    "scalar_tensor.default": ex(N(2, 3), program=lambda op, x: x + op(2.5)),
    "scatter.src": ex(N(3, 4), 1, T([[0, 1], [2, 3], [1, 0]]), N(3, 2)),
    "scatter.value": ex(N(3, 4), 1, T([[0, 1], [2, 3], [1, 0]]), 2.5),
    "scatter_add.default": ex(N(3, 4), 1, I(4, 3, 5), N(3, 5)),
    "scatter_reduce.two": ex(N(3, 4), 1, I(4, 3, 5), N(3, 5), "amax"),
    "select.int": ex(N(2, 3), 1, 2),
    "select_scatter.default": ex(N(2, 3), N(2), 1, 0),
    "slice.Tensor": ex(N(4, 3), 0, 1, 4, 2),
    "slice_scatter.default": ex(N(4, 3), N(2, 3), 0, 0, 4, 2),
    "sort.default": ex(N(2, 3), 1),
    "split_with_sizes.default": ex(N(5, 3), [2, 3]),
    "squeeze.dim": ex(N(2, 1, 3), 1),
    "squeeze.dims": ex(N(2, 1, 3), [1]),
    "sum.dim_IntList": ex(N(2, 3), [1]),
    "sym_is_contiguous.default": ex(N(2, 3), program=lambda op, x: x * op(x)),
    "sym_numel.default": ex(N(2, 3), program=lambda op, x: x * op(x)),
    "sym_size.int": ex(N(2, 3), program=lambda op, x: x * op(x, 1)),
    "sym_storage_offset.default": ex(N(2, 3), program=lambda op, x: x * (op(x) + 1)),
    "sym_stride.int": ex(N(2, 3), program=lambda op, x: x * op(x, 0)),
    "topk.default": ex(N(2, 5), 2),
    "unsqueeze.default": ex(N(2, 3), 1),
    "upsample_bilinear2d.vec": ex(N(1, 2, 3, 3), [6, 6], False, None),
    "upsample_nearest2d.vec": ex(N(1, 2, 3, 3), [6, 6], None),
    "var.correction": ex(N(2, 3), [1], correction=1),
    "var.dim": ex(N(2, 3), [1], True),
    "view.default": ex(N(2, 3), [3, 2]),
    "where.self": ex(B(2, 3), N(2, 3), N(2, 3)),
}


@functools.cache
def core_ops() -> dict[str, Any]:
    """torch's core ATen op set: `packet.overload` name -> OpOverload. Read from the
    dispatcher's list of every registered op: `dir(torch.ops.aten)` lists only the
    packets loaded so far, so it would change with what ran before."""
    ops = {}
    for qualified in torch._C._dispatch_get_all_op_names():
        namespace, _, name = qualified.partition("::")
        if namespace != "aten":
            continue
        packet_name, _, overload = name.partition(".")
        packet = getattr(torch.ops.aten, packet_name)
        op = getattr(packet, overload or "default")
        if torch.Tag.core in op.tags:
            ops[f"{packet_name}.{overload or 'default'}"] = op
    return dict(sorted(ops.items()))


def example(name: str, op: Any) -> Example:
    """The row of `EXAMPLES`, else a call derived from the schema: every required tensor
    argument a 2x3 float tensor, every required number 0.5."""
    if name in EXAMPLES:
        return EXAMPLES[name]
    args = []
    for arg in op._schema.arguments:
        if arg.has_default_value():
            continue
        kind = str(arg.type)
        if kind == "Tensor":
            args.append(F(2, 3))
        elif kind in ("Scalar", "number", "float"):
            args.append(0.5)
        else:
            raise KeyError(f"aten.{name}: no example (argument {arg.name}: {kind})")
    return Example(tuple(args))


def tensors_of(args: tuple[Any, ...]) -> list[torch.Tensor]:
    """The example's tensors, in order (inside lists too): the program's inputs."""
    flat: list[torch.Tensor] = []
    for a in args:
        if isinstance(a, torch.Tensor):
            flat.append(a)
        elif isinstance(a, (list, tuple)):
            flat += [t for t in a if isinstance(t, torch.Tensor)]
    return flat


def program_of(op: Any, ex: Example) -> Callable[..., Any]:
    """A function of the example's tensors that calls `op` with its constants in place."""
    def program(*inputs: torch.Tensor) -> Any:
        it = iter(inputs)

        def fill(a: Any) -> Any:
            if isinstance(a, torch.Tensor):
                return next(it)
            if isinstance(a, (list, tuple)):
                return type(a)(fill(t) for t in a)
            return a

        args = tuple(fill(a) for a in ex.args)
        if ex.program is not None:
            return ex.program(op, *args)
        return op(*args, **ex.kwargs)
    return program
