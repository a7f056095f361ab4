"""`lax.dynamic_slice` / `dynamic_update_slice` with start indices known only at run
time (`x[i]` with a traced `i`, a KV cache written at step `t`): gathered and masked
windows on every target, starts clamped into range as XLA clamps them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ivy_ir

X = jnp.arange(30.0, dtype=jnp.float32).reshape(5, 6)
UPDATE = -jnp.ones((2, 3), jnp.float32)
CACHE, STEP = jnp.zeros((2, 8, 4), jnp.float32), jnp.ones((2, 1, 4), jnp.float32)

PROGRAMS = {
    "slice": (lambda x, i: jax.lax.dynamic_slice(x, (i, 1), (2, 3)), (X,)),
    "slice_both_axes": (lambda x, i: jax.lax.dynamic_slice(x, (i, i), (2, 3)), (X,)),
    "row": (lambda x, i: x[i], (X,)),
    "update": (lambda x, u, i: jax.lax.dynamic_update_slice(x, u, (i, 2)), (X, UPDATE)),
    "update_both_axes": (lambda x, u, i: jax.lax.dynamic_update_slice(x, u, (i, i)),
                         (X, UPDATE)),
    "kv_cache_write": (lambda c, new, t: jax.lax.dynamic_update_slice(c, new, (0, t, 0)),
                       (CACHE, STEP)),
}
STARTS = [2, 0, 4, 9, -3]
"""In range, both ends, and past either end (clamped)."""


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_runtime_start_matches_jax(name, target):
    fn, arrays = PROGRAMS[name]
    start = jnp.int32(1)
    c = ivy_ir.compile(fn, target=target, args=(*arrays, start))
    assert "ivy.take" in str(c.ir_module.op)  # a gathered window, not a baked slice
    for i in STARTS:
        want = jax.jit(fn)(*arrays, jnp.int32(i))
        got = c(*[np.asarray(a) for a in arrays], np.int32(i))
        got = got.detach() if hasattr(got, "detach") else got
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"start {i}")
