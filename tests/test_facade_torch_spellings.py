"""The torch backend's spellings give the Array API standard's semantics where torch's
own functions differ (default dtypes, promotion, Python scalars, dtypes torch lacks
kernels for, special values). The conformance suite checks far more; these pin the
differences down quickly."""

import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ivy  # noqa: E402

T = ivy.torch


def test_creation_defaults_to_the_namespace_default_dtypes():
    defaults = T.__array_namespace_info__().default_dtypes()
    assert defaults["real floating"] is torch.float64
    assert T.asarray(1.5).dtype is torch.float64
    assert T.asarray([1, 2]).dtype is torch.int64
    assert T.asarray([1, 2.5]).dtype is torch.float64
    assert T.asarray([[1j]]).dtype is torch.complex128
    assert T.asarray([True]).dtype is torch.bool
    for fn in (T.ones, T.zeros, T.empty):
        assert fn((2,)).dtype is torch.float64
    assert T.full(3, 1.5).dtype is torch.float64 and T.full((), 2).dtype is torch.int64
    assert T.eye(2, k=1).dtype is torch.float64
    assert T.arange(3).dtype is torch.int64 and T.arange(0.5, 2).dtype is torch.float64
    assert T.linspace(0, 1, 3).dtype is torch.float64
    assert T.fft.fftfreq(4).dtype is torch.float64
    t = torch.ones(2, dtype=torch.float32)
    assert T.asarray(t) is t  # an array keeps its dtype and is not copied


def test_creation_edge_cases():
    assert T.arange(5, 0, 1).shape == (0,)  # torch refuses a step pointing away
    assert T.linspace(0, 1, 4, endpoint=False).tolist() == [0, 0.25, 0.5, 0.75]
    assert T.eye(2, 3, k=-1).tolist() == [[0, 0, 0], [1, 0, 0]]
    assert T.eye(2, k=2**70).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(OverflowError):
        T.asarray(2**64)


def test_promotion_follows_the_standard_not_torch():
    f32 = torch.ones(3, dtype=torch.float32)
    f64_0d = torch.tensor(2.0, dtype=torch.float64)
    assert (f32 + f64_0d).dtype is torch.float32  # torch: the 0-d operand yields
    assert T.add(f32, f64_0d).dtype is torch.float64  # the standard: it does not
    assert T.matmul(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)).dtype \
        is torch.float64
    i8, u8 = torch.ones(2, dtype=torch.int8), torch.ones(2, dtype=torch.uint8)
    assert T.multiply(i8, u8).dtype is torch.int16
    assert T.where(torch.tensor([True, False, True]), f32, f64_0d).dtype is torch.float64


def test_python_scalars_take_the_array_dtype_on_either_side():
    x = torch.tensor([1.0, 4.0], dtype=torch.float32)
    assert T.subtract(10, x).tolist() == [9, 6] and T.subtract(10, x).dtype is torch.float32
    assert T.maximum(x, 2).tolist() == [2, 4]  # torch.maximum takes no scalar
    assert T.atan2(1.0, x).dtype is torch.float32
    assert T.logical_and(True, torch.tensor([True, False])).tolist() == [True, False]
    assert T.add(torch.tensor([1], dtype=torch.int8), 2).dtype is torch.int8


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_dtypes_torch_lacks_kernels_for_still_compute(dtype):
    d = getattr(torch, dtype)
    x = T.asarray([3, 1, 2], dtype=d)
    assert T.add(x, x).tolist() == [6, 2, 4] and T.add(x, x).dtype is d
    assert T.add(x, T.asarray([1, 1, 1], dtype=torch.uint8)).dtype is d
    assert T.less(x, 2).tolist() == [False, True, False]
    assert T.max(x).item() == 3 and T.argmin(x).item() == 1
    assert T.sum(x).dtype is torch.uint64 and T.sum(x).item() == 6
    assert T.cumulative_sum(x).tolist() == [3, 4, 6]
    assert sorted(T.unique_values(x).tolist()) == [1, 2, 3]
    assert T.flip(x).tolist() == [2, 1, 3] and T.tril(T.reshape(x[:2], (1, 2))).dtype is d
    assert T.arange(3, dtype=d).dtype is d and T.eye(2, dtype=d).dtype is d
    assert T.bitwise_invert(T.asarray([0], dtype=d)).item() == 2 ** (8 * d.itemsize) - 1


def test_accumulations_widen_integers_to_the_default_ones():
    assert T.sum(torch.ones(3, dtype=torch.int8)).dtype is torch.int64
    assert T.sum(torch.ones(3, dtype=torch.uint8)).dtype is torch.uint64
    assert T.prod(torch.ones(3, dtype=torch.float32)).dtype is torch.float32
    assert T.linalg.trace(torch.ones(2, 2, dtype=torch.int32)).dtype is torch.int64
    assert T.cumulative_sum(torch.ones(3, dtype=torch.uint8), include_initial=True).tolist() \
        == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        T.cumulative_sum(torch.ones(2, 2))  # axis is required beyond 1-d


def test_reductions_take_none_negative_and_empty_axes():
    x = torch.arange(6.0).reshape(2, 3)
    assert T.sum(x, axis=()).tolist() == x.tolist()  # torch reads dim=() as all axes
    assert T.max(x, axis=(), keepdims=True).shape == (2, 3)
    assert T.prod(x + 1, axis=(0, -1), keepdims=True).shape == (1, 1)
    assert T.argmax(x, keepdims=True).shape == (1, 1)
    assert T.all(torch.tensor([1, 2], dtype=torch.uint8)).dtype is torch.bool
    assert T.count_nonzero(x, axis=-1, keepdims=True).tolist() == [[2], [3]]
    assert T.var(x, axis=None, correction=1).item() == pytest.approx(3.5)


def test_special_values_follow_the_standard():
    inf = math.inf
    fd = T.floor_divide(torch.tensor([inf, 1.0, -1.0]), torch.tensor([2.0, -inf, inf]))
    assert fd[0].item() == inf and str(fd[1].item()) == "-0.0" and str(fd[2].item()) == "-0.0"
    r = T.remainder(torch.tensor([-0.0, 0.0]), torch.tensor([5.0, -5.0]))
    assert [math.copysign(1, v) for v in r.tolist()] == [1, -1]
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        s = T.sign(torch.tensor([math.nan, -0.0, 0.0, inf, -inf, -2.5, 1e-30, 0.25],
                                dtype=dtype)).tolist()
        assert math.isnan(s[0]) and s[1:] == [0, 0, 1, -1, -1, 1 if dtype in (
            torch.float32, torch.float64, torch.bfloat16) else 0, 1]
        assert math.copysign(1, s[1]) == 1  # sign(-0) is +0
    z = T.expm1(torch.tensor([complex(inf, 0), complex(-0.0, 0.0)], dtype=torch.complex128))
    assert z[0].item() == complex(inf, 0) and math.copysign(1, z[1].real.item()) == 1
    assert T.round(torch.tensor([1.5 + 2.5j])).tolist() == [2 + 2j]


def test_shapes_and_errors_of_the_standard():
    with pytest.raises(ValueError):
        T.squeeze(torch.ones(2, 1), axis=0)  # torch would leave the axis
    with pytest.raises(ValueError):
        T.nonzero(torch.tensor(1.0))
    with pytest.raises(ValueError):
        T.reshape(torch.ones(2, 3).T, (6,), copy=False)
    a = torch.eye(3, dtype=torch.float64).expand(4, 3, 3)
    a3, b3 = a[:3], torch.ones(3, 3, dtype=torch.float64)
    assert torch.linalg.solve(a3, b3).shape == (3, 3)  # torch: a batch of 3 vectors
    assert T.linalg.solve(a3, b3).shape == (3, 3, 3)  # the standard: one matrix
    assert T.linalg.solve(a, torch.ones(3, dtype=torch.float64)).shape == (4, 3)
    one = torch.full((1, 1, 1), 2.0, dtype=torch.float64)  # a vector b with a batch of 1:
    assert T.linalg.solve(one, torch.tensor([3.0], dtype=torch.float64)).tolist() == [[1.5]]
    assert T.linalg.solve(torch.eye(3), torch.ones(3, 3)).shape == (3, 3)
    assert T.linalg.cross(torch.ones(2, 3), torch.ones(3)).shape == (2, 3)
    assert T.concat([torch.ones(2, 2), torch.ones(1)], axis=None).shape == (5,)
    assert T.take(torch.arange(5), torch.tensor([-1, 0])).tolist() == [4, 0]
    out = T.unique_all(torch.tensor([3.0, 1.0, 3.0]))
    assert out.values.tolist() == [1, 3] and out.indices.tolist() == [1, 0]
    assert out.inverse_indices.tolist() == [1, 0, 1] and out.counts.tolist() == [1, 2]
    assert T.unique_counts(torch.tensor([1j, 1j])).counts.tolist() == [2]  # NumPy does it


def test_linspace_of_arrays_puts_the_points_last():
    out = T.linspace(torch.tensor([0.0, 10.0]), torch.tensor([1.0, 20.0]), 3)
    assert out.tolist() == [[0, 0.5, 1], [10, 15, 20]]


def test_traced_calls_still_record_ops():
    import ivy_ir

    def f(a, b):
        return T.add(T.sum(a, axis=0), b)

    mod = ivy_ir.trace(f, (torch.ones(2, 3).numpy(), torch.ones(3).numpy()), source="ivy")
    assert "ivy.add" in str(mod) and "ivy.sum" in str(mod)


def test_every_spelling_uses_its_own_parameters():
    """A spelling names only its function's parameters and what the backend binds, and
    passes on every parameter that can change a result."""
    import ast

    from ivy.catalogue import CATALOGUE
    from ivy.rescue import Rescued
    from ivy.spellings_torch import TORCH_SPELLINGS

    def names_in(expr: str) -> set[str]:
        return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}

    env = T.functions["add"].__globals__
    for name, spelled in TORCH_SPELLINGS.items():
        params = {p.name for p in CATALOGUE[name].params}
        body, rescue = spelled if isinstance(spelled, Rescued) else (spelled, "None")
        names = names_in(body)
        assert (names | names_in(rescue)) - params - set(env) <= {
            "list", "type", "int", "getattr", "NotImplemented"}, name
        assert params - names <= {"device", "copy", "stable"}, name
        assert T.origin[name] == "spelling"


def test_a_rescued_spelling_mends_only_the_dtypes_torch_lacks():
    """uint32 `abs`/`add` fail in torch and are computed by NumPy; other failures are
    torch's own errors, and calls torch computes never reach the rescue."""
    big = np.array([1, 2**32 - 1], np.uint32)
    x = torch.asarray(big.astype(np.int64)).to(torch.uint32)
    np.testing.assert_array_equal(T.add(x, x).to(torch.int64).numpy(),
                                  (big + big).astype(np.int64))
    assert T.add(x, x).dtype == torch.uint32
    np.testing.assert_array_equal(T.negative(x).to(torch.int64).numpy(),
                                  np.negative(big).astype(np.int64))
    with pytest.raises(RuntimeError, match="Negation.*bool tensor"):
        T.negative(torch.tensor([True]))


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "mean", "std", "var"])
def test_reductions_along_an_axis_of_a_dtype_torch_lacks_are_rescued(name):
    """These reductions call torch with no dtype test; torch refuses uint32 and only
    that failing call goes to NumPy (the result of `mean`/`std`/`var` is float64)."""
    big = np.array([[1, 2**32 - 1, 7], [5, 3, 2**31]], np.uint32)
    x = torch.asarray(big.astype(np.int64)).to(torch.uint32)
    floats = name in ("mean", "std", "var")
    got = getattr(T, name)(x, axis=1)
    want = getattr(np, name)(big.astype(np.float64) if floats else big, axis=1)
    assert got.dtype is (torch.float64 if floats else torch.int64 if name.startswith("arg")
                         else torch.uint32)
    wide = (torch.float64, np.float64) if floats else (torch.int64, np.int64)
    np.testing.assert_array_equal(got.to(wide[0]).numpy(), want.astype(wide[1]))
    with pytest.raises(IndexError, match="out of"):
        getattr(T, name)(x, axis=5)


def test_binary_functions_take_tensor_subclasses_in_one_call():
    """An `nn.Parameter` and a tensor of one dtype need no promotion: torch's own call,
    which records for autograd as usual."""
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    out = T.multiply(w, torch.tensor([3.0, 4.0]))
    out.sum().backward()
    assert out.tolist() == [3, 8] and w.grad.tolist() == [3, 4]
    assert T.add(w, torch.tensor(1.0, dtype=torch.float64)).dtype is torch.float64


def test_importing_the_spellings_loads_no_torch():
    code = ("import sys, ivy.spellings_torch, ivy.spellings_torch_kernels, "
            "ivy.spellings_torch_creation; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
