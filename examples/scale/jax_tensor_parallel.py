"""Tensor parallelism for a program compiled by ivy_ir, on JAX's own engine.

A torch MLP block (`fc1`: 32 -> 128, ReLU, `fc2`: 128 -> 32) is compiled to JAX with
`ivy_ir.compile`; `c.params` is a flat dict keyed by the source's dotted names, so a
sharding annotation is a dict of `PartitionSpec`s over those names (Megatron's split:
`fc1` by output features, `fc2` by input features, over the mesh axis `"model"`):

1. `jax.jit(c.apply, in_shardings=..., out_shardings=...)` with the weights placed by
   `jax.device_put` on `NamedSharding`s: XLA's partitioner (GSPMD) runs each device's
   slice of both matmuls and inserts the one all-reduce; the output and the gradients
   (which come back sharded like the weights) equal the unsharded program's;
2. `jax.shard_map` with the same specs: each device runs a program compiled at its
   shard's shapes (ivy_ir programs have static shapes) and the partial sums are
   combined by `lax.psum`, as a hand-written Megatron layer does;
3. no sharding arguments at all: `c.params = jax.device_put(c.params, shardings)`, then
   `c(x)`. `jax.jit` partitions a call by the shardings of its committed inputs, so
   placing the parameters is the whole annotation.

The 8 devices are simulated on the host CPU, set before JAX initialises: run this
file in a fresh process.

    python examples/scale/jax_tensor_parallel.py     # exit status 1 on a mismatch
"""

from __future__ import annotations

import os
import sys
import time

DEVICES = 8
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           f" --xla_force_host_platform_device_count={DEVICES}").strip()

import jax  # noqa: E402  (the device count above must precede JAX's initialisation)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import ivy_ir  # noqa: E402

BATCH, WIDTH, HIDDEN = 16, 32, 128
TOLERANCE = 1e-5
"""Float32 summation order differs once the hidden dimension is split 8 ways."""

SHARDING = {
    "fc1.weight": P("model", None),  # (HIDDEN, WIDTH): column parallel, by output
    "fc1.bias": P("model"),
    "fc2.weight": P(None, "model"),  # (WIDTH, HIDDEN): row parallel, by input
    "fc2.bias": P(),                 # added once, after the all-reduce
}


class Block(torch.nn.Module):
    """A transformer's MLP block, the layer tensor parallelism is usually shown on."""

    def __init__(self, hidden: int = HIDDEN, bias: bool = True):
        super().__init__()
        self.fc1 = torch.nn.Linear(WIDTH, hidden)
        self.fc2 = torch.nn.Linear(hidden, WIDTH, bias=bias)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def max_difference(a, b) -> float:
    return max(float(np.max(np.abs(np.asarray(u) - np.asarray(v))))
               for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def main() -> int:
    start = time.perf_counter()
    assert len(jax.devices()) == DEVICES, jax.devices()
    torch.manual_seed(0)
    x = torch.randn(BATCH, WIDTH)
    c = ivy_ir.compile(Block(), target="jax", args=(x,))
    assert set(c.params) == set(SHARDING), sorted(c.params)
    x = jnp.asarray(x.numpy())
    y = jnp.asarray(np.random.default_rng(0).standard_normal((BATCH, WIDTH), np.float32))

    def loss(params, x, y):
        return jnp.mean((c.apply(params, x) - y) ** 2)

    want_out = c.apply(c.params, x)
    want_grads = jax.grad(loss)(c.params, x, y)

    # 1. GSPMD: weights placed by their specs, jit told the shardings
    mesh = Mesh(np.array(jax.devices()), ("model",))
    shardings = {name: NamedSharding(mesh, spec) for name, spec in SHARDING.items()}
    replicated = NamedSharding(mesh, P())
    params = jax.device_put(c.params, shardings)
    local = {name: p.addressable_shards[0].data.shape for name, p in params.items()}
    assert local["fc1.weight"] == (HIDDEN // DEVICES, WIDTH), local
    forward = jax.jit(c.apply, in_shardings=(shardings, replicated),
                      out_shardings=replicated)
    grad = jax.jit(jax.grad(loss), in_shardings=(shardings, replicated, replicated),
                   out_shardings=shardings)
    out, grads = forward(params, x), grad(params, x, y)
    assert grads["fc2.weight"].sharding.spec == SHARDING["fc2.weight"]

    # 2. shard_map: the per-device program, compiled at the shard's shapes
    shard = ivy_ir.compile(Block(HIDDEN // DEVICES, bias=False), target="jax",
                           args=(torch.randn(BATCH, WIDTH),))
    specs = {name: SHARDING[name] for name in shard.params}

    def body(local_params, bias, x):
        return jax.lax.psum(shard.apply(local_params, x), "model") + bias
    mapped = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(specs, P(), P()),
                                   out_specs=P()))
    mapped_out = mapped({k: params[k] for k in specs}, params["fc2.bias"], x)

    # 3. the compiled object itself, its parameters placed
    c.params = params
    placed_out = c(x)

    figures = {"jit-shardings output": max_difference(want_out, out),
               "jit-shardings gradients": max_difference(want_grads, grads),
               "shard_map output": max_difference(want_out, mapped_out),
               "placed c.params output": max_difference(want_out, placed_out)}
    for name, diff in figures.items():
        print(f"{name}: {DEVICES}-way tensor parallel, max difference vs unsharded "
              f"{diff:.3g}")
    print(f"local fc1.weight shard {local['fc1.weight']}, fc2.weight shard "
          f"{local['fc2.weight']}; elapsed {time.perf_counter() - start:.1f} s")
    if not all(diff <= TOLERANCE for diff in figures.values()):
        print(f"MISMATCH: the sharded layer differs from the unsharded one by more than "
              f"{TOLERANCE}", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
