"""The ONNX importer's control flow (`importers/onnx_control.py`): If, Loop and Scan
against ONNX's reference evaluator (or the spec where the evaluator departs from it)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_cases import check, make_model, tensor_info  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import UnsupportedOpsError  # noqa: E402


def _run_both(model: onnx.ModelProto, feeds: dict[str, np.ndarray], target: str = "numpy"
              ) -> None:
    expected = ReferenceEvaluator(model).run(None, feeds)
    got = ivy_ir.compile(model, target=target, args=tuple(feeds.values()))(*feeds.values())
    check(got, [np.asarray(e) for e in expected])


def test_if_on_a_traced_condition_is_a_cond() -> None:
    then = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["t"])], "then", [],
                             [tensor_info("t", [3])])
    orelse = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [tensor_info("e", [3])])
    model = make_model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                    helper.make_node("Greater", ["s", "zero"], ["p"]),
                    helper.make_node("If", ["p"], ["y"], then_branch=then, else_branch=orelse)],
                   [tensor_info("x", [3])], [tensor_info("y", [3])],
                   [numpy_helper.from_array(np.asarray(0, np.float32), "zero")])
    assert "ivy.cond" in str(ivy_ir.trace(model, args=(np.ones(3, np.float32),)))
    for sign in (1, -1):
        _run_both(model, {"x": sign * np.arange(1, 4, dtype=np.float32)})


def _loopmodel(with_scan: bool, with_cond: bool, cond: str = "go") -> onnx.ModelProto:
    """acc += x * i, for i < M (and while sum(acc) < 20 when `with_cond`), stacking acc."""
    i_f = helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT)
    nodes = [i_f, helper.make_node("Mul", ["x", "i_f"], ["step"]),
             helper.make_node("Add", ["acc_in", "step"], ["acc_out"])]
    if with_cond:
        nodes += [helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
                  helper.make_node("Less", ["total", "limit"], ["c_out"])]
    else:
        nodes.append(helper.make_node("Identity", ["c_in"], ["c_out"]))
    outs = [tensor_info("c_out", [], TensorProto.BOOL), tensor_info("acc_out", [2])]
    if with_scan:
        nodes.append(helper.make_node("Identity", ["acc_out"], ["stacked"]))
        outs.append(tensor_info("stacked", [2]))
    body = helper.make_graph(nodes, "body", [tensor_info("i", [], TensorProto.INT64),
                                             tensor_info("c_in", [], TensorProto.BOOL),
                                             tensor_info("acc_in", [2])], outs)
    loop_outs = ["acc", "stack"] if with_scan else ["acc"]
    inits = [numpy_helper.from_array(np.asarray(5, np.int64), "M"),
             numpy_helper.from_array(np.asarray(True), "go"),
             numpy_helper.from_array(np.asarray(20.0, np.float32), "limit"),
             numpy_helper.from_array(np.zeros(2, np.float32), "acc0")]
    loop = helper.make_node("Loop", ["M", cond, "acc0"], loop_outs, body=body)
    return make_model([loop], [tensor_info("x", [2])], [tensor_info(o, None) for o in loop_outs], inits)


@pytest.mark.parametrize("with_scan,with_cond", [(False, False), (False, True), (True, False)])
def test_loop(with_scan: bool, with_cond: bool) -> None:
    model = _loopmodel(with_scan, with_cond)
    kind = "ivy.scan" if with_scan else "ivy.while_loop"
    assert kind in str(ivy_ir.trace(model, args=(np.ones(2, np.float32),)))
    _run_both(model, {"x": np.asarray([1.0, 2.0], np.float32)})


def test_loop_without_condition_input() -> None:
    """ONNX's reference evaluator does not run a Loop whose cond is omitted; the spec
    runs it M times."""
    x = np.asarray([1.0, 2.0], np.float32)
    acc, stack = ivy_ir.compile(_loopmodel(True, False, cond=""), args=(x,))(x)
    np.testing.assert_allclose(acc, 10 * x)
    np.testing.assert_allclose(stack, np.cumsum(np.arange(5))[:, None] * x)


def test_loop_with_scan_outputs_that_may_stop_early_is_reported() -> None:
    model = _loopmodel(True, True)
    with pytest.raises(UnsupportedOpsError, match="condition may turn false"):
        ivy_ir.trace(model, args=(np.ones(2, np.float32),))


def test_scan_axes_and_directions() -> None:
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "row"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "row"], ["y"])], "body",
        [tensor_info("s_in", [3]), tensor_info("row", [3])], [tensor_info("s_out", [3]), tensor_info("y", [3])])
    scan = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1],
                            scan_output_axes=[1], scan_output_directions=[1])
    model = make_model([scan], [tensor_info("s0", [3]), tensor_info("x", [3, 4])],
                   [tensor_info("s", [3]), tensor_info("ys", [3, 4])])
    rng = np.random.default_rng(2)
    s0 = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    state, ys = s0, []
    for row in x.T[::-1]:  # the scan axis is 1, walked backwards
        state = state + row
        ys.append(state * row)
    expected = [state, np.stack(ys[::-1], axis=1)]  # outputs reversed back, on axis 1
    for target in ("numpy", "jax"):
        check(ivy_ir.compile(model, target=target, args=(s0, x))(s0, x), expected)
