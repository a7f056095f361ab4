"""A Flax model, transpiled to torch by ivy_ir, trained on torch's own distributed
engines: `DistributedDataParallel` and FSDP2 (`fully_shard`), 2 CPU processes on gloo.

Each process does what a `torchrun` worker does: join the process group, build the
model (here: compile a Flax linen MLP to torch, `c.module` an `nn.Module` named as the
Flax tree), wrap it and train on its half of each batch (5 SGD steps). Rank 0 also
trains the same module on the whole batches in one process; the three runs must end
with the same parameters, since averaging the two halves' mean-loss gradients gives
the whole batch's.

- DDP wraps `c.module` as it is: DDP keeps the module's parameter tensors and
  all-reduces their gradients.
- FSDP2 replaces a module's parameters by sharded DTensors and, during forward, by
  gathered tensors, while `c.module.forward` runs on the tensors it was compiled with.
  So FSDP wraps `Functional`, which passes the module's current tensors to
  `c.apply(params, x)` on each call (on the bare `c.module` the sharded parameters
  would get no gradients).
- FSDP1 (`FullyShardedDataParallel`) refuses to run without an accelerator on this
  build; its error is printed.

Run as it is, the file starts its processes with `torch.multiprocessing.spawn` (the
process group is set up before anything else in them); under torchrun each process
it starts is one worker:

    python examples/scale/torch_ddp.py     # exit status 1 on a mismatch
    torchrun --standalone --nproc-per-node=2 examples/scale/torch_ddp.py
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WORLD, BATCH, FEATURES, STEPS, LR = 2, 16, 16, 5, 0.1
TOLERANCE = 1e-6
"""Float32: the gradient all-reduce sums in another order than one process does."""


class Functional(torch.nn.Module):
    """`c.module`'s parameters read from its tables at each call and passed to
    `c.apply`: FSDP swaps the tables' tensors, which the compiled forward does not see."""

    def __init__(self, compiled: Any):
        super().__init__()
        self.net = compiled.module
        self.run = compiled.apply

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run({**dict(self.net.named_buffers()),
                         **dict(self.net.named_parameters())}, x)


def compile_flax_mlp(x: np.ndarray) -> Any:
    """The source: a Flax linen MLP, initialised from the same key in every process,
    compiled to torch. Imported here so the parent process loads only torch."""
    import flax.linen as nn
    import jax

    import ivy_ir

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            hidden = nn.relu(nn.Dense(64)(x))  # Dense_0: kernel (FEATURES, 64)
            return nn.Dense(1)(hidden)

    variables = MLP().init(jax.random.key(0), x)
    return ivy_ir.compile(MLP().apply, target="torch", params=variables, args=(x,))


def train(model: torch.nn.Module, batches, rows: slice) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    for x, y in batches:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x[rows]), y[rows])
        loss.backward()
        optimizer.step()


def full(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The parameters as whole tensors (FSDP2's are sharded DTensors)."""
    return {k.removeprefix("net."): (p.full_tensor() if hasattr(p, "full_tensor") else p)
            .detach().clone() for k, p in module.named_parameters()}


def run() -> dict[str, Any] | None:
    """One worker's whole job; rank 0 returns the figures. The process group reads
    RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT from the environment, which torchrun
    sets, or `spawned` below."""
    dist.init_process_group("gloo")
    from torch.distributed.fsdp import FullyShardedDataParallel, fully_shard
    from torch.nn.parallel import DistributedDataParallel

    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)  # the same batches in every process
    batches = [(torch.tensor(rng.standard_normal((BATCH, FEATURES), np.float32)),
                torch.tensor(rng.standard_normal((BATCH, 1), np.float32)))
               for _ in range(STEPS)]
    c = compile_flax_mlp(batches[0][0].numpy())
    initial = {k: v.clone() for k, v in c.module.state_dict().items()}
    mine = slice(rank * BATCH // world, (rank + 1) * BATCH // world)

    reference = None
    if rank == 0:  # one process, whole batches (the others wait at DDP's broadcast)
        train(c.module, batches, slice(None))
        reference = full(c.module)
        c.module.load_state_dict(initial)

    ddp = DistributedDataParallel(c.module)
    train(ddp, batches, mine)
    data_parallel = full(c.module)
    del ddp
    c.module.load_state_dict(initial)

    sharded = Functional(c)
    fully_shard(sharded)
    shard_rows = sharded.net.params.Dense_0.kernel.to_local().shape[0]
    train(sharded, batches, mine)
    fsdp = full(sharded)

    try:
        FullyShardedDataParallel(Functional(compile_flax_mlp(batches[0][0].numpy())))
        fsdp1 = "ran"
    except RuntimeError as error:
        fsdp1 = f"RuntimeError: {error}"
    dist.destroy_process_group()
    if rank != 0:
        return None
    moved = max(float((reference[k] - initial[k]).abs().max()) for k in reference)
    diffs = {name: max(float((reference[k] - run[k]).abs().max()) for k in reference)
             for name, run in (("ddp", data_parallel), ("fsdp2", fsdp))}
    return {"diffs": diffs, "moved": moved, "fsdp1": fsdp1, "shard_rows": shard_rows,
            "world": world}


def spawned(rank: int, port: int, results: Any) -> None:
    """A process of `torch.multiprocessing.spawn`, set up as torchrun sets a worker."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(WORLD))
    out = run()
    if out is not None:
        results.put(out)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def report(out: dict[str, Any], start: float) -> int:
    for name, diff in out["diffs"].items():
        print(f"{name}: {out['world']} gloo processes, max parameter difference vs one "
              f"process {diff:.3g} (parameters moved by up to {out['moved']:.3g})")
    print(f"fsdp2: Dense_0.kernel rows held per process {out['shard_rows']} of {FEATURES}")
    print(f"fsdp1: {out['fsdp1']}")
    print(f"elapsed {time.perf_counter() - start:.1f} s")
    if not all(d <= TOLERANCE for d in out["diffs"].values()) or not out["moved"] > 1e-3:
        print(f"MISMATCH: distributed training differs from one process by more than "
              f"{TOLERANCE} (or training did not move the parameters)", file=sys.stderr)
        return 1
    print("OK")
    return 0


def main() -> int:
    start = time.perf_counter()
    if "LOCAL_RANK" in os.environ:  # started by torchrun: this process is one worker
        out = run()
        return 0 if out is None else report(out, start)
    results = mp.get_context("spawn").SimpleQueue()
    mp.spawn(spawned, args=(free_port(), results), nprocs=WORLD, join=True)
    return report(results.get(), start)


if __name__ == "__main__":
    sys.exit(main())
