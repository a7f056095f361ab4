"""torch's global-generator draws (`importers/torch_random.py`) on every target: torch's
shapes, dtypes and distributions from the program's random key, a fresh key per call."""

from __future__ import annotations

import numpy as np
import torch
from zoo_common import TARGETS

import ivy_ir


def _draws(x):
    return torch.rand(400, 3) + x, torch.randn_like(x.expand(400, 3)), torch.randperm(40)


def test_draws_on_every_target():
    module = ivy_ir.trace(_draws, (torch.zeros(3),))
    for target in TARGETS:
        compiled = ivy_ir.compile(module, target=target)
        first, second = ([np.asarray(o.detach() if hasattr(o, "detach") else o)
                          for o in compiled(np.zeros(3, np.float32))] for _ in range(2))
        u, z, perm = first
        assert (u.dtype, z.dtype, perm.dtype) == (np.float32, np.float32, np.int64), target
        assert u.shape == z.shape == (400, 3) and 0 <= u.min() and u.max() < 1, target
        assert abs(u.mean() - 0.5) < 0.05 and abs(z.mean()) < 0.15, target
        assert 0.85 < z.std() < 1.15, target
        np.testing.assert_array_equal(np.sort(perm), np.arange(40), err_msg=target)
        assert not np.array_equal(u, second[0]), f"{target}: the same draws twice"
