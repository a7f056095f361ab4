"""Compiling and running never changes a framework's global configuration.

The user's process keeps its JAX x64 mode, torch default dtype and thread counts, TF
execution mode and Keras float type, and NumPy's error and print settings, whatever
ivy_ir imports from, lowers to, or the facade runs on. Checked in a fresh interpreter,
so that nothing this test session imported earlier hides a change.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    import jax, jax.numpy as jnp, torch, tensorflow as tf

    def state():
        return {
            "jax_enable_x64": bool(jax.config.jax_enable_x64),
            "jax_default_matmul_precision": str(jax.config.jax_default_matmul_precision),
            "jnp.arange dtype": str(jnp.arange(3).dtype),
            "torch default dtype": str(torch.get_default_dtype()),
            "torch threads": torch.get_num_threads(),
            "torch interop threads": torch.get_num_interop_threads(),
            "torch grad enabled": torch.is_grad_enabled(),
            "tf eager": tf.executing_eagerly(),
            "tf functions eagerly": tf.config.functions_run_eagerly(),
            "keras floatx": tf.keras.backend.floatx(),
            "numpy errstate": np.geterr(),
            "numpy printoptions": repr(sorted(np.get_printoptions().items())),
        }

    before = state()
    import ivy, ivy_ir
    x64 = np.linspace(-1, 1, 6)
    x32 = x64.astype(np.float32)
    sources = {
        "numpy": (lambda x: np.tanh(x) * 2 + x.sum(), (x64,)),
        "jax": (lambda x: jnp.tanh(x) * 2 + x.sum(), (x32,)),
        "torch": (torch.nn.Sequential(torch.nn.Linear(6, 3), torch.nn.ReLU()),
                  (torch.ones(2, 6),)),
        "tensorflow": (lambda x: tf.tanh(x) * 2, (tf.constant(x32),)),
        "ivy": (lambda x: ivy.tanh(x) * 2 + ivy.sum(x), (x64,)),
    }
    for name, (fn, args) in sources.items():
        for target in ("numpy", "jax", "torch", "tensorflow"):
            c = ivy_ir.compile(fn, target=target, args=args)
            c(*[np.asarray(a) for a in args])
    for backend in ("numpy", "jax", "torch", "tensorflow"):
        ivy.set_backend(backend)
        ivy.add(ivy.asarray([1.0, 2.0]), 1.0)
        ivy.unset_backend()
    print(json.dumps({"before": before, "after": state()}))
''')


def test_compiling_and_running_everywhere_leaves_global_config_alone():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    changed = {k: (v, result["after"][k]) for k, v in result["before"].items()
               if result["after"][k] != v}
    assert not changed, f"global configuration changed (before, after): {changed}"
    assert result["before"]["jax_enable_x64"] is False  # the default, so a flip would show
