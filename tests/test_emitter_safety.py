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


def test_numpy_never_overwrites_a_buffer_a_live_view_shares():
    """`np.flip`/`np.transpose`/`np.reshape` return views: the viewed temporary must not
    be reused with `out=` while a view of it (or a view of the view) is still live."""
    text = """func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>) {
  %n = ivy.negative %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = ivy.permute_dims %n {axes = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %f = ivy.flip %t : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = ivy.reshape %n {shape = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>
  %a = ivy.abs %n : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %f, %r, %a : tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>
}"""
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    f, r, a = ivy_ir.lower(ivy_ir.parse(text), "numpy")(x)
    np.testing.assert_array_equal(f, np.flip((-x).T))
    np.testing.assert_array_equal(r, (-x).reshape(6))
    np.testing.assert_array_equal(a, np.abs(x))
