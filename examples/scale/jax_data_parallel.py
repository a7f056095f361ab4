"""Data-parallel training of a transpiled torch transformer on JAX's own engine.

A 2-layer `torch.nn.TransformerEncoder` (d_model 32) is transpiled to a JAX
`(params, apply)` pair and trained for 5 SGD steps three ways on the same batches:

1. on one device (`jax.jit` without shardings), the reference;
2. data parallel under `jax.jit(in_shardings=..., out_shardings=...)` over a `Mesh` of 8
   devices: the batch is split on the `"data"` axis, the parameters replicated, and
   XLA's partitioner (GSPMD) inserts the gradient all-reduce itself;
3. data parallel under `jax.shard_map`: each device runs the program on its local
   batch and the gradients are summed by JAX, as hand-written JAX does. ivy_ir
   programs have static shapes, so this variant is transpiled at the per-device batch
   (BATCH // 8): the same weights, the same names.

Nothing here is specific to ivy_ir beyond the transpile call: `apply` is a pure JAX
function and `params` a pytree, which is what makes the frameworks' engines apply.
The 8 devices are simulated on the host CPU (`--xla_force_host_platform_device_count`),
which must be set before JAX initialises: run this file in a fresh process.

`--processes N` runs the multi-host recipe on this host: N processes of 8 // N devices
each join through `jax.distributed.initialize` (CPU collectives over gloo), the `Mesh`
spans all their devices, and each process feeds its rows of each batch
(`jax.make_array_from_process_local_data`); steps 1-3 are unchanged.

    python examples/scale/jax_data_parallel.py     # exit status 1 on a mismatch
    python examples/scale/jax_data_parallel.py --processes 2
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

DEVICES = 8
ARGS = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ARGS.add_argument("--processes", type=int, default=1)
ARGS.add_argument("--process-id", type=int, default=None, help=argparse.SUPPRESS)
ARGS.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)
OPTIONS = ARGS.parse_args()
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_"
                           f"device_count={DEVICES // OPTIONS.processes}").strip()

import jax  # noqa: E402  (the device count above must precede JAX's initialisation)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import ivy  # noqa: E402

BATCH, TOKENS, WIDTH, STEPS, LR = 16, 8, 32, 5, 0.05
TOLERANCE = 1e-5
"""Float32 summation order differs between one device and an 8-way all-reduce."""


class Encoder(torch.nn.Module):
    """The source model: `nn.TransformerEncoder` (2 layers, 4 heads) and a regression
    head over the mean token, written as a torch user would."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(WIDTH, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x):
        return self.head(self.encoder(x).mean(1))


def sgd_step(apply):
    """One SGD step on the mean squared error, a pure function of (params, x, y)."""
    def loss(params, x, y):
        return jnp.mean((apply(params, x) - y) ** 2)

    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return jax.tree.map(lambda p, g: p - LR * g, params, grads)
    return step


def shard_map_step(apply, mesh):
    """The same step written per device. The loss is the `pmean` of the local losses,
    the global mean; the parameters enter replicated (`P()`), so JAX's transpose of
    their broadcast to the devices sums the local gradients (a `psum` it inserts
    itself, as it tracks which values vary per device)."""
    def body(params, x, y):
        def loss(p):
            return jax.lax.pmean(jnp.mean((apply(p, x) - y) ** 2), "data")
        grads = jax.grad(loss)(params)
        return jax.tree.map(lambda p, g: p - LR * g, params, grads)
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=P()))


def train(step, params, batches, place=lambda a: a):
    """(trained params, seconds): the time includes XLA compiling the step, once."""
    start = time.perf_counter()
    for x, y in batches:
        params = step(params, place(x), place(y))
    return jax.block_until_ready(params), time.perf_counter() - start


def max_difference(a, b) -> float:
    """Over replicated arrays: each process reads its first local copy (a multi-process
    array is not readable as a whole by one process)."""
    return max(float(np.max(np.abs(np.asarray(u.addressable_data(0)) -
                                   np.asarray(v.addressable_data(0)))))
               for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def main() -> int:
    start = time.perf_counter()
    if OPTIONS.processes > 1:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(f"127.0.0.1:{OPTIONS.port}", OPTIONS.processes,
                                   OPTIONS.process_id)
    assert len(jax.devices()) == DEVICES, jax.devices()
    torch.manual_seed(0)
    model = Encoder().eval()
    example = torch.randn(BATCH, TOKENS, WIDTH)
    params, apply = ivy.transpile(model, source="torch", to="jax", args=(example,))
    _, apply_local = ivy.transpile(model, source="torch", to="jax",
                                   args=(example[:BATCH // DEVICES],))
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((BATCH, TOKENS, WIDTH), np.float32),
                rng.standard_normal((BATCH, 1), np.float32)) for _ in range(STEPS)]
    print(f"transpiled in {time.perf_counter() - start:.1f} s")

    # 1. one device (of this process)
    single, single_s = train(jax.jit(sgd_step(apply)), params, batches)

    # 2. data parallel by shardings: the batch split 8 ways, parameters replicated
    mesh = Mesh(np.array(jax.devices()), ("data",))
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    rows = BATCH // jax.process_count()
    mine = slice(jax.process_index() * rows, (jax.process_index() + 1) * rows)

    def place(a):  # this process's rows of the global batch
        return jax.make_array_from_process_local_data(split, a[mine])
    x0 = place(batches[0][0])
    shard_shapes = {s.data.shape for s in x0.addressable_shards}
    assert shard_shapes == {(BATCH // DEVICES, TOKENS, WIDTH)}, shard_shapes
    step = jax.jit(sgd_step(apply), in_shardings=(replicated, split, split),
                   out_shardings=replicated)
    sharded, sharded_s = train(step, jax.device_put(params, replicated), batches, place)
    devices = {d for leaf in jax.tree.leaves(sharded) for d in leaf.sharding.device_set}

    # 3. data parallel by shard_map, the program transpiled at the per-device batch
    mapped, mapped_s = train(shard_map_step(apply_local, mesh),
                             jax.device_put(params, replicated), batches, place)

    moved = max_difference(single, params)
    failed = False
    print(f"one device: {STEPS} steps in {single_s:.1f} s")
    for name, trained, seconds in (("jit-shardings", sharded, sharded_s),
                                   ("shard_map", mapped, mapped_s)):
        diff = max_difference(single, trained)
        print(f"{name}: {DEVICES} devices in {jax.process_count()} process(es), max "
              f"parameter difference vs one device {diff:.3g} (parameters moved by up to "
              f"{moved:.3g}); {STEPS} steps in {seconds:.1f} s")
        failed |= not diff <= TOLERANCE
    if len(devices) != DEVICES:
        print(f"MISMATCH: parameters live on {len(devices)} devices, not {DEVICES}",
              file=sys.stderr)
        return 1
    print(f"elapsed {time.perf_counter() - start:.1f} s")
    if failed or not moved > 1e-3:
        print(f"MISMATCH: data-parallel training differs from one device by more than "
              f"{TOLERANCE} (or training did not move the parameters)", file=sys.stderr)
        return 1
    print("OK")
    return 0


def launch(processes: int) -> int:
    """Start the processes as a cluster's launcher would (one per host there); the
    first one's report is this run's, and any failing process fails it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, __file__, "--processes", str(processes), "--port", str(port)]
    workers = [subprocess.Popen([*command, "--process-id", str(i)],
                                stdout=None if i == 0 else subprocess.DEVNULL)
               for i in range(processes)]
    codes = [w.wait() for w in workers]
    return next((code for code in codes if code), 0)


if __name__ == "__main__":
    if OPTIONS.processes > 1 and OPTIONS.process_id is None:
        sys.exit(launch(OPTIONS.processes))
    sys.exit(main())
