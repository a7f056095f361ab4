"""Importing `torchax` on torch 2.13, and running a torch model through it on JAX.

torchax 0.0.13 names named-tensor (`Dimname`) overloads of ATen ops, as keys of its
autocast table and in its decomposition list (`aten.prod.dim_Dimname`,
`aten.all.dimname`, `aten.unbind.Dimname`, `aten.index_copy.dimname`, ...). torch 2.13
removed those overloads, so the attribute lookups raise and the import fails. While
torchax imports and builds its default environment (which reads the decomposition
list), `import_torchax` makes a missing overload whose name mentions a
Dimname or names (`aten.norm.names_ScalarOpt_dim`, `aten.std.correction_names`)
resolve to an inert placeholder (hashable, never matched by a real op: torch's
`get_decompositions` skips it, the autocast table never sees it), then restores torch.

Importing torchax changes torch for the rest of the process (it disables
`nn.TransformerEncoder`'s fast path, renames the privateuse1 backend to `jax` and
registers its modes; later `torch.compile` calls fail), so only processes that time
torchax import it, after every other column is built.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


class RemovedOverload:
    """Stands for an ATen overload that this torch no longer has."""

    def __init__(self, packet: str, name: str) -> None:
        self.name = f"{packet}.{name}"

    def __repr__(self) -> str:
        return f"<removed overload {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"{self.name} does not exist in this torch")


def _is_named_tensor_overload(name: str) -> bool:
    """Whether `name` is a named-tensor overload's (`dimname`, `dim_Dimname`,
    `Dimname_Scalar`, `names_dim`, `names_ScalarOpt_dim`, `correction_names`, ...): the
    21 that torchax 0.0.13 names and torch 2.13 lacks all match, no existing one does."""
    return "dimname" in name.lower() or "names" in name.split("_")


def import_torchax() -> Any:
    """`import torchax` with the named-tensor overloads it names stubbed out."""
    import torch
    from torch._ops import OpOverloadPacket

    original = OpOverloadPacket.__getattr__

    def getattr_or_stub(self: Any, key: str) -> Any:
        try:
            return original(self, key)
        except AttributeError:
            if not _is_named_tensor_overload(key):
                raise
            return RemovedOverload(str(self), key)

    OpOverloadPacket.__getattr__ = getattr_or_stub  # type: ignore[method-assign]
    try:
        import torchax

        torchax.default_env()  # builds its op tables: the decomposition list is read here
    finally:
        OpOverloadPacket.__getattr__ = original  # type: ignore[method-assign]
    del torch
    return torchax


@contextlib.contextmanager
def traced_like_export() -> Iterator[None]:
    """transformers' mask helpers test `torch.all(mask == 1)` in eager mode to drop an
    all-ones padding mask, a data-dependent `bool` that `jax.jit` cannot trace (BERT
    fails under torchax with a ConcretizationTypeError). Inside this block they take
    the branch they take under `torch.export`/`torch.compile` (the one ivy_ir's torch
    importer sees): the 2-d mask expanded to an additive 4-d one."""
    try:
        from transformers import modeling_attn_mask_utils as masks
    except ImportError:
        yield
        return
    original = masks.is_torchdynamo_compiling
    masks.is_torchdynamo_compiling = lambda: True
    try:
        yield
    finally:
        masks.is_torchdynamo_compiling = original


def torchax_jit(model: Any, example: Any) -> Callable[[Any], Any]:
    """A `jax.jit`ted function of a JAX array running `model` through torchax:
    torchax's `extract_jax` (the model's forward on torchax tensors, as a pure function
    of a weight pytree and the arguments), jitted as its README does, traced (on
    `example`) with transformers' tracing branches."""
    import jax

    torchax = import_torchax()
    states, fn = torchax.extract_jax(model)
    jitted = jax.jit(fn)
    with traced_like_export():
        jax.block_until_ready(jitted(states, (example,)))

    def call(x: Any) -> Any:
        return jitted(states, (x,))

    return call
