"""The IR's own reverse mode (`ivy_ir/core/reverse.py`, rules in `vjp.py`): gradients
built as IR, run on NumPy (which has no autodiff), against torch autograd through the
same program lowered to torch, in float64."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import ivy_ir
from ivy_ir.core.reverse import DerivativeError, gradients
from ivy_ir.core.tracer import OPS as F
from ivy_ir.core.vjp import EXPANSIONS, VJPS
from ivy_ir.core.vjp_linalg import LINALG
from ivy_ir.core.vjp_more import MORE

torch = pytest.importorskip("torch")


def _pos(x):
    return F.add(F.abs(x), 0.5)


def _inputs(shapes: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(sum(map(math.prod, shapes)))
    return tuple(rng.uniform(-1.5, 1.5, s) for s in shapes)


def _spd(x):
    """A symmetric positive definite matrix (stack) from any square input."""
    return F.add(F.matmul(x, F.permute_dims(x, axes=[*range(x.ndim - 2), x.ndim - 1,
                                                     x.ndim - 2])), np.eye(x.shape[-1]))


def _zeros_at(shape: tuple[int, ...], where: list[list[int]]) -> np.ndarray:
    """What to subtract from the test input of `shape` to make it exactly zero where
    `where` is 1, keeping its derivative there (a mask would multiply that away)."""
    return _inputs((shape,))[0] * np.array(where)


CASES = {
    "arithmetic": ((lambda x, y: F.divide(F.subtract(F.multiply(x, y), F.add(x, 1.5)),
                                          F.add(F.square(y), 1)), (3, 4), (4,))),
    "pow_reciprocal": (lambda x, y: F.add(F.pow(_pos(x), y), F.reciprocal(_pos(y))),
                       (2, 3), (2, 3)),
    "extrema_where": (lambda x, y: F.where(F.greater(x, 0), F.maximum(x, y),
                                           F.minimum(F.negative(x), y)), (5,), (2, 5)),
    "exp_log": (lambda x: F.add(F.add(F.exp(x), F.expm1(x)), F.add(
        F.add(F.log(_pos(x)), F.log1p(_pos(x))), F.add(F.log2(_pos(x)), F.log10(_pos(x))))),
                (2, 3)),
    "roots": (lambda x: F.add(F.sqrt(_pos(x)), F.rsqrt(_pos(x))), (4,)),
    "trig": (lambda x: F.add(F.add(F.sin(x), F.cos(x)), F.add(F.tan(F.multiply(x, 0.4)),
                                                              F.atan(x))), (3, 2)),
    "hyperbolic": (lambda x: F.add(F.add(F.sinh(x), F.cosh(x)), F.tanh(x)), (6,)),
    "inverse_trig": (lambda x: F.add(F.asin(F.multiply(F.tanh(x), 0.7)),
                                     F.acos(F.multiply(F.tanh(x), 0.6))), (5,)),
    "activations": (lambda x: F.add(F.add(F.sigmoid(x), F.relu(x)), F.add(
        F.add(F.erf(x), F.erfc(F.multiply(x, 3.0))), F.clip(x, min=-0.5, max=0.7))), (3, 3)),
    "abs_astype": (lambda x: F.astype(F.multiply(F.abs(x), F.astype(x, dtype="float32")),
                                      dtype="float64"), (4,)),
    "softmaxes": (lambda x: F.multiply(F.softmax(x, axis=0), F.log_softmax(x, axis=-1)),
                  (3, 4)),
    "reductions": (lambda x: F.add(F.sum(F.square(x), axis=[1]), F.mean(
        F.sin(x), axis=[0, 1], keepdims=False)), (2, 3, 4)),
    "shapes": (lambda x: F.permute_dims(F.reshape(F.expand_dims(F.squeeze(
        F.broadcast_to(x, shape=[2, 1, 3]), axis=[1]), axis=[0]), shape=[3, 2]),
        axes=[1, 0]), (1, 3)),
    "slices_concat": (lambda x: F.square(F.concat([
        F.slice(x, start=[1, 0], stop=[6, 4], step=[2, 3]),
        F.slice(x, start=[-2, 3], stop=[0, 0], step=[-2, -1])], axis=1)), (7, 5)),
    "matmul": (lambda a, b, v: F.add(F.matmul(F.matmul(a, b), v), F.matmul(v, F.matmul(
        F.permute_dims(b, axes=[0, 2, 1]), F.permute_dims(a, axes=[1, 0])))),
               (2, 3), (2, 3, 3), (3,)),
    "composites": (lambda x, w, b: F.gelu(F.layer_norm(F.linear(x, w, b), None, None,
                                                       axis=[-1], eps=1e-5)), (4, 3), (5, 3),
                   (5,)),
    "conv": (lambda x, w, b: F.square(F.conv(x, w, b, strides=[2, 3], padding=[1, 0, 2, 1],
                                             dilations=[2, 1], groups=2)),
             (2, 4, 9, 8), (6, 2, 3, 2), (6,)),
    "conv_channels_last": (lambda x, w: F.square(F.conv(
        x, w, None, strides=[1, 2], padding=[0, 1, 1, 1], dilations=[1, 2], groups=2,
        layout="channels_last")), (2, 7, 8, 4), (3, 2, 2, 6)),
    "conv_transpose": (lambda x, w, b: F.square(F.conv_transpose(
        x, w, b, strides=[2, 3], padding=[1, 0, 2, 1], output_padding=[1, 2],
        dilations=[2, 1], groups=2)), (2, 4, 5, 4), (4, 3, 3, 2), (6,)),
    "conv_transpose_channels_last": (lambda x, w: F.sin(F.conv_transpose(
        x, w, None, strides=[2, 1], padding=[0, 1, 1, 0], output_padding=[1, 0],
        dilations=[1, 2], groups=1, layout="channels_last")), (2, 4, 5, 3), (2, 3, 4, 3)),
    "extreme_reductions": (lambda x: F.multiply(  # each maximum attained twice: shared
        F.max(F.concat([x, x], axis=1), axis=[1]), F.min(F.sin(x), axis=None)), (3, 4)),
    "embedding": (lambda w: F.square(F.embedding(np.array([[0, 2], [2, 1]]), w)), (3, 4)),
    "cumsum": (lambda x: F.square(F.cumsum(x, axis=1)), (3, 4)),
    "take_last_axis": (lambda x: F.square(F.take(x, np.array([3, 0, 3]), axis=2)),
                       (2, 3, 4)),
    "gathers": (lambda x: F.add(  # repeated and negative indices
        F.sum(F.square(F.take(x, np.array([[2, 0], [-1, 2]]), axis=1))),
        F.sum(F.multiply(F.sin(F.gather_nd(x, np.array([[0, 1], [2, 0], [0, 1]]))),
                         F.sum(F.take(x, np.array(1), axis=0))))), (3, 4)),
    "pad_stack": (lambda x: F.square(F.stack([F.pad(x, pad_width=[1, 0, 2, 1], value=0.5),
                                              F.sin(F.pad(x, pad_width=[0, 1, 0, 3]))],
                                             axis=1)), (3, 2)),
    "max_pool": (lambda x: F.square(F.max_pool(
        x, kernel=[3, 2], strides=[2, 2], padding=[1, 0, 1, 1], dilations=[1, 2],
        ceil_mode=True)), (2, 3, 9, 8)),
    "max_pool_channels_last": (lambda x: F.square(F.max_pool(
        x, kernel=[2, 2], strides=[2, 3], padding=[0, 0, 0, 0], layout="channels_last")),
                               (2, 9, 8, 3)),
    "avg_pool_ceil_counting_pads": (lambda x: F.square(F.avg_pool(
        x, kernel=[3, 3], strides=[2, 2], padding=[1, 1, 1, 0], ceil_mode=True)),
                                    (2, 3, 9, 8)),
    "avg_pool_unreached_padding": (lambda x: F.square(F.avg_pool(  # no window reaches
        x, kernel=[2, 2], strides=[2, 2], padding=[0, 1, 0, 1])), (2, 3, 8, 8)),  # the end
    "avg_pool_not_counting_pads": (lambda x: F.square(F.avg_pool(
        x, kernel=[3, 2], strides=[2, 1], padding=[1, 0, 1, 1], count_include_pad=False,
        layout="channels_last")), (2, 9, 8, 3)),
    "inverse_hyperbolic_lgamma": (lambda x: F.add(F.add(F.asinh(x), F.acosh(F.add(
        F.abs(x), 1.5))), F.add(F.atanh(F.multiply(F.tanh(x), 0.7)), F.lgamma(_pos(x)))),
                                  (2, 3)),
    "atan2_remainder": (lambda x, y: F.add(F.atan2(x, y), F.remainder(x, F.add(_pos(y), 0.3))),
                        (2, 3), (3,)),
    "products_with_zeros": (lambda x: F.add(  # one zero in a row, two in another
        F.sum(F.prod(F.subtract(x, _zeros_at((3, 4), [[0, 1, 0, 0], [0] * 4, [1, 0, 1, 0]])),
                     axis=[1])), F.prod(F.sin(x), axis=None)), (3, 4)),
    "products_of_axes": (lambda x: F.square(F.prod(x, axis=[0, 2], keepdims=True)), (2, 3, 2)),
    "statistics": (lambda x: F.add(F.sum(F.var(x, axis=[1], correction=1.0)), F.std(
        F.sin(x), axis=None)), (3, 4)),
    "norms": (lambda x: F.add(F.add(F.sum(F.vector_norm(x, ord=2.0, axis=[1])),
                                    F.vector_norm(x, ord=3.0, axis=None)),
                              F.add(F.sum(F.vector_norm(F.sin(x), ord=float("inf"), axis=[0])),
                                    F.vector_norm(x, ord=1.0, axis=None))), (3, 4)),
    "layouts": (lambda x: F.add(F.square(F.roll(F.flip(x, axis=[1]), shift=[1, -2],
                                                axis=[0, 1])),
                                F.sum(F.sin(F.tile(x, reps=[2, 1, 3])), axis=[0, 2],
                                      keepdims=True)[0]), (3, 4)),
    "triangles_split": (lambda x: F.add(F.tril(F.square(x), k=-1), F.triu(
        F.concat(list(reversed(F.split(F.sin(x), sizes=[1, 3], axis=1))), axis=1), k=1)),
                        (4, 4)),
    "take_along_axis": (lambda x: F.square(F.take_along_axis(  # repeated and negative
        x, np.array([[0, -1, 0], [2, 2, 1]]), axis=1)), (2, 4)),
    "scatter_add": (lambda x, u: F.square(F.scatter_add(
        x, np.array([[1], [0], [1]]), u)), (2, 3), (3, 3)),
    "scatter_extremes": (lambda x, u: F.add(  # ties at place 1 between x and updates
        F.square(F.scatter_min(x, np.array([[1], [0], [1], [1]]), F.concat(
            [u, F.slice(x, start=[1, 0], stop=[2, 3], step=[1, 1])], axis=0))),
        F.sin(F.scatter_max(x, np.array([[0], [0]]), F.slice(
            u, start=[0, 0], stop=[2, 3], step=[1, 1])))), (2, 3), (3, 3)),
    "scatter_mul": (lambda v: (lambda w: F.sin(F.scatter_mul(  # x: rows 0-1 of w
        F.slice(w, start=[0, 0], stop=[2, 3], step=[1, 1]), np.array([[1], [0], [1], [1], [0]]),
        F.slice(w, start=[2, 0], stop=[7, 3], step=[1, 1]))))(F.subtract(v, _zeros_at(
            (7, 3), [[0] * 3, [0] * 3, [0] * 3, [1, 0, 0], [1, 1, 0], [0, 1, 0], [0] * 3]))),
        (7, 3)),  # exact zero updates: one at a place (column 0), two (column 1), none
    "outer_vecdot": (lambda x, y, z: F.add(F.sum(F.outer(x, y)), F.sum(F.vecdot(
        F.outer(x, y), z, axis=-1))), (3,), (4,), (2, 1, 4)),
    "inverse_determinant": (lambda a: F.add(F.sum(F.inv(F.add(a, np.eye(3) * 3))),
                                            F.sum(F.det(F.add(a, np.eye(3) * 3)))), (2, 3, 3)),
    "solve": (lambda a, b, v: F.add(F.sum(F.solve(F.add(a, np.eye(3) * 3), b)), F.sum(
        F.solve(F.add(a, np.eye(3) * 3), v))), (2, 3, 3), (3, 2), (3,)),
    "running_products_with_zeros": (lambda x: F.sin(F.cumprod(F.subtract(
        x, _zeros_at((3, 5), [[0, 1, 0, 1, 0], [0] * 5, [1, 0, 0, 0, 0]])), axis=1)), (3, 5)),
    "running_products_of_columns": (lambda x: F.sin(F.cumprod(x, axis=0)), (4, 2)),
    "sorting": (lambda x: F.add(F.square(F.sort(x, axis=1, descending=True)), F.sum(F.sin(
        F.top_k(x, k=2, axis=0, largest=False)[0]))), (3, 4)),
    "repeat_diagonal": (lambda x: F.add(F.sum(F.square(F.repeat(x, repeats=2, axis=1))),
                                        F.add(F.sum(F.sin(F.repeat(x, repeats=3, axis=None))),
                                              F.sum(F.square(F.diagonal(
                                                  x, offset=1, axis1=-1, axis2=0))))),
                        (3, 4, 2)),
    "tensordot": (lambda x, y: F.square(F.tensordot(x, y, axes_x=[2, 0], axes_y=[0, 2])),
                  (2, 3, 4), (4, 5, 2)),
    "einsum": (lambda a, b, c: F.add(F.sum(F.square(F.einsum([a, b, c], equation="ij,jk,kl->il"))),
                                     F.sum(F.einsum([a, b], equation="ij,jk->j"))), (2, 3), (3, 4),
               (4, 2)),
    "einsum_summed_away": (lambda a, v: F.sin(F.einsum([a, v], equation="bij,k->bj")), (2, 3, 4),
                           (5,)),
    "matrix_norms": (lambda x: F.add(F.add(F.sum(F.matrix_norm(x, ord="fro")), F.sum(
        F.matrix_norm(x, ord="1", keepdims=True))), F.add(F.sum(F.matrix_norm(
            F.sin(x), ord="inf")), F.sum(F.matrix_norm(x, ord="-1")))), (2, 3, 4)),
    "matrix_norm_ties": (lambda a: F.add(  # every column sum (row sum) attained twice
        F.matrix_norm(F.concat([a, a], axis=1), ord="1"),
        F.matrix_norm(F.concat([a, a], axis=0), ord="-inf")), (3, 2)),
    "scatter_nd": (lambda x, u: F.sin(F.scatter_nd(x, np.array([[2], [0]]), u)), (3, 4),
                   (2, 4)),
    "adaptive_avg_pool": (lambda x: F.square(F.adaptive_avg_pool(x, output_size=[3, 2])),
                          (2, 3, 7, 5)),
    "adaptive_avg_pool_channels_last": (lambda x: F.sin(F.adaptive_avg_pool(
        x, output_size=[4, 3], layout="channels_last")), (2, 5, 7, 3)),
    "interpolate": (lambda x: F.add(F.sum(F.square(F.interpolate(
        x, size=[7, 3], mode="bilinear", align_corners=False))), F.sum(F.sin(F.interpolate(
            x, size=[2, 9], mode="nearest")))), (2, 3, 5, 4)),
    "interpolate_corners_channels_last": (lambda x: F.sin(F.interpolate(
        x, size=[6, 2], mode="bilinear", align_corners=True, layout="channels_last")),
                                          (2, 4, 5, 3)),
    "cholesky": (lambda x: F.add(F.sin(F.cholesky(_spd(x))), F.square(F.cholesky(
        _spd(x), upper=True))), (2, 3, 3)),
    "eigh": (lambda x: F.add(F.sum(F.square(F.eigh(_spd(x))[0])), F.sum(F.multiply(  # signs
        F.square(F.eigh(_spd(x))[1]), np.arange(9.0).reshape(3, 3)))), (3, 3)),  # cancel
    "lu": (lambda x: F.sin(F.lu(x)[0]), (2, 4, 4)),  # pivots [0, 1, 3, 3] and [3, 1, 3, 3]
    "matrix_exp": (lambda x: F.sin(F.matrix_exp(x)), (2, 3, 3)),
    "shared_value": (lambda x: F.multiply(F.sin(x), F.add(x, F.square(x))), (3,)),
    "composite_shared": (lambda a: F.silu(F.linear(a, a, None)), (3, 3)),
}
"""A program per family of rules: each differentiated with respect to every input."""


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_torch_autograd(name):
    f, *shapes = CASES[name]
    args = _inputs(tuple(shapes))

    def program(*xs):
        y = f(*xs)
        return (y, *gradients(y, xs))

    ours = ivy_ir.compile(program, target="numpy", args=args, source="ivy")
    got = ours(*args)
    forward = ivy_ir.compile(f, target="torch", args=args, source="ivy")
    tensors = [torch.tensor(a, requires_grad=True) for a in args]
    want = forward(*tensors)
    want.sum().backward()
    np.testing.assert_allclose(got[0], want.detach().numpy(), rtol=1e-12, atol=1e-12)
    for g, t in zip(got[1:], tensors):
        assert np.asarray(g).shape == t.shape
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_every_rule_is_exercised():
    seen = set()
    for f, *shapes in CASES.values():
        seen |= set(re.findall(r"ivy\.(\w+)", str(ivy_ir.trace(f, _inputs(tuple(shapes)),
                                                                 source="ivy"))))
    assert (set(VJPS) | set(MORE) | set(LINALG) | set(EXPANSIONS)) - seen == {"digamma"}  # see below


def test_digamma_gradient_is_trigamma():
    """Against SciPy rather than torch: torch's trigamma truncates its series at
    z**-7 after six recurrence steps, ~1e-9 off; ours is within 1e-12 (x < 0 by the
    reflection formula)."""
    special = pytest.importorskip("scipy.special")
    x = np.array([0.1, 0.5, 1.0, 2.7, 9.5, 40.0, -0.3, -1.6, -4.25])
    grad = ivy_ir.compile(lambda a: gradients(F.digamma(a), [a])[0], target="numpy",
                          args=(x,), source="ivy")(x)
    np.testing.assert_allclose(grad, special.polygamma(1, x), rtol=1e-12)


def test_a_seed_weighs_the_result_and_unused_inputs_get_zeros():
    x, unused = np.array([1.0, 2.0, 3.0]), np.array([[4.0]])

    def program(a, b):
        y = F.square(a)
        return gradients(y, [a, b], seed=F.multiply(F.ones_like(y), a))

    ga, gb = ivy_ir.compile(program, target="numpy", args=(x, unused), source="ivy")(x, unused)
    np.testing.assert_array_equal(ga, 2 * x * x)
    np.testing.assert_array_equal(gb, [[0.0]])


def test_integer_values_carry_no_gradient():
    x = np.array([0.5, 1.7, -2.2])

    def program(a):
        y = F.multiply(a, F.astype(F.astype(a, dtype="int64"), dtype="float64"))
        return gradients(y, [a])[0]

    np.testing.assert_array_equal(
        ivy_ir.compile(program, target="numpy", args=(x,), source="ivy")(x), [0.0, 1.0, -2.0])


def test_an_op_without_a_rule_is_named_with_the_users_line():
    x = np.arange(4.0)
    with pytest.raises(DerivativeError, match=r"ivy\.bessel_i0e has no derivative rule "
                                              r"\(differentiating through it at .*"
                                              r"test_reverse_mode\.py:\d+\)"):
        ivy_ir.trace(lambda a: gradients(F.bessel_i0e(F.sin(a)), [a])[0], (x,),
                     source="ivy")


def test_einsum_forms_without_a_rule_are_refused_by_name():
    x = np.ones((3, 3))
    for eq in ("ii->i", "...i->...", "ij,jk"):
        with pytest.raises(DerivativeError, match=re.escape(f"einsum {eq!r}")):
            ivy_ir.trace(lambda a, eq=eq: gradients(F.sum(F.einsum(
                [a, a] if "," in eq else [a], equation=eq)), [a])[0], (x,), source="ivy")


def _gradient_model(at: list[str]):
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Gemm", ["X", "W", "B"], ["H"], transB=1),
             helper.make_node("Relu", ["H"], ["R"]),
             helper.make_node("Softmax", ["R"], ["P"], axis=1),
             helper.make_node("ReduceSumSquare", ["P"], ["L"], keepdims=0),
             helper.make_node("Gradient", at, ["dW", "dB"], name="grad",
                              domain="ai.onnx.preview.training", xs=["W", "B"], zs=["X"],
                              y="L")]
    info = helper.make_tensor_value_info
    graph = helper.make_graph(
        nodes, "g", [info("X", TensorProto.DOUBLE, [3, 4]), info("W", TensorProto.DOUBLE, [5, 4]),
                     info("B", TensorProto.DOUBLE, [5])],
        [info(n, TensorProto.DOUBLE, None) for n in ("L", "dW", "dB")])
    return helper.make_model(graph, opset_imports=[
        helper.make_operatorsetid("", 17),
        helper.make_operatorsetid("ai.onnx.preview.training", 1)])


@pytest.mark.parametrize("target", ["numpy", "jax", "onnx"])
def test_onnx_gradient_operator_on_a_small_network(target):
    """`Gradient` of an ONNX model imports as the IR's own backward ops: every target
    runs it (ONNX export included), equal to torch autograd of the same network."""
    x, w, b = _inputs(((3, 4), (5, 4), (5,)))
    got = ivy_ir.compile(_gradient_model(["W", "B", "X"]), target=target)(x, w, b)
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    loss = (torch.softmax(torch.relu(torch.tensor(x) @ tw.T + tb), 1) ** 2).sum()
    loss.backward()
    np.testing.assert_allclose(np.asarray(got[0]), loss.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(got[1]), tw.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.asarray(got[2]), tb.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_onnx_gradient_at_other_points_is_reported():
    with pytest.raises(ivy_ir.UnsupportedOpsError,
                       match=r"Gradient \(opset 1\): inputs other than the tensors named in "
                             r"xs and zs"):
        ivy_ir.trace(_gradient_model(["B", "W", "X"]))


def test_onnx_gradient_of_a_convolution():
    """The ONNX operator's own example shape: a Conv feeding the loss, differentiated
    with respect to its weight and bias (the input held fixed, `zs`)."""
    from onnx import TensorProto, helper

    x, w, b = _inputs(((2, 3, 7, 6), (4, 3, 3, 3), (4,)))
    nodes = [helper.make_node("Conv", ["X", "W", "B"], ["H"], strides=[2, 1],
                              pads=[1, 1, 0, 1]),
             helper.make_node("Relu", ["H"], ["R"]),
             helper.make_node("ReduceSumSquare", ["R"], ["L"], keepdims=0),
             helper.make_node("Gradient", ["W", "B", "X"], ["dW", "dB"],
                              domain="ai.onnx.preview.training", xs=["W", "B"], zs=["X"],
                              y="L")]
    info = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "g", [info(n, TensorProto.DOUBLE, a.shape) for n, a in
                                           (("X", x), ("W", w), ("B", b))],
                              [info(n, TensorProto.DOUBLE, None) for n in ("L", "dW", "dB")])
    model = helper.make_model(graph, opset_imports=[
        helper.make_operatorsetid("", 17),
        helper.make_operatorsetid("ai.onnx.preview.training", 1)])
    got = ivy_ir.compile(model, target="numpy")(x, w, b)
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    loss = (torch.relu(torch.nn.functional.conv2d(  # ONNX pads: begins (1, 1), ends (0, 1)
        torch.nn.functional.pad(torch.tensor(x), (1, 1, 1, 0)), tw, tb, stride=(2, 1))) ** 2
            ).sum()
    loss.backward()
    np.testing.assert_allclose(got[0], loss.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], tw.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(got[2], tb.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_a_rule_refusing_an_attribute_names_it_with_the_users_line():
    x = np.arange(4.0)
    with pytest.raises(DerivativeError, match=r"ivy\.pad in mode 'reflect' has no derivative "
                                              r"rule \(differentiating through it at .*"
                                              r"test_reverse_mode\.py:\d+\)"):
        ivy_ir.trace(lambda a: gradients(F.pad(a, pad_width=[1, 1], mode="reflect"), [a])[0],
                     (x,), source="ivy")
