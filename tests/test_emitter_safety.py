"""The emitter never pastes IR names or strings into generated code as code."""

from __future__ import annotations

import ast

import numpy as np
import pytest

import ivy_ir

HOSTILE = [
    "x'); __import__('os').system('echo pwned'); ('",
    'a"]\nimport os\nos.system("echo pwned")\n#',
    "__import__('builtins').exec('raise SystemExit')",
    "weight\\'\n\t\r",
]


def _ir(name: str) -> str:
    quoted = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\t", "\\t").replace("\r", "\\0D")
    return f'''
func.func @"main'); import os; ('"(%x: tensor<2xf32>, %__class__: tensor<2xf32> {{ivy.param = "{quoted}"}}) -> tensor<2xf32> {{
  %import = ivy.add %x, %__class__ : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %def = ivy.einsum %import, %import {{equation = "i,i->i"}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %def : tensor<2xf32>
}}
'''


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_hostile_names_stay_data(target):
    for name in HOSTILE:
        module = ivy_ir.parse(_ir(name))
        assert module.args()[1].param == name
        c = ivy_ir.lower(module, target=target, params={name: np.array([1.0, 2.0], np.float32)})
        tree = ast.parse(c.source)
        calls = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
                 for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert not calls & {"system", "exec", "eval", "__import__"}
        assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) and
                       any(a.name == "os" for a in n.names) for n in ast.walk(tree))
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
        assert name in strings  # the key survives as an inert literal
        x = np.array([3.0, 4.0], np.float32)
        got = c(x)
        got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
        np.testing.assert_allclose(got, (x + [1.0, 2.0]) ** 2)
