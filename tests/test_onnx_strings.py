"""ONNX's text operators: STRING tensors imported into the IR's `string` dtype.

Every ONNX node test of StringNormalizer, StringConcat, StringSplit, RegexFullMatch,
Equal on strings and ai.onnx.ml LabelEncoder with string keys, plus the `simple`
group's StringNormalizer models, run on NumPy and TensorFlow against their stored
outputs (object arrays of `str`); on torch and JAX, which have no text tensors, the text
ops run as host stages through the NumPy lowering (`lowerings/staged.py`) and the
numbers they hand on return to the framework; IR text with the text dtype round-trips
through `ivy_ir.parse`.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx_cases import make_model, node_case, node_cases, tensor_info  # noqa: E402

import ivy  # noqa: E402
import ivy_ir  # noqa: E402
from ivy_ir.core.errors import IRError, UnsupportedOpsError  # noqa: E402
from ivy_ir.onnx_backend import backend  # noqa: E402
from lowerings import LoweringError  # noqa: E402
from lowerings.runtime import host_array  # noqa: E402

TEXT_TESTS = re.compile(r"test_(strnormalizer|string_concat|string_split|regex_full_match|"
                        r"equal_string|ai_onnx_ml_label_encoder_(string|tensor))")
NAMES = sorted(n for n in node_cases() if TEXT_TESTS.match(n))


def check(got: tuple, expected: list[np.ndarray]) -> None:
    """Each output equals the stored one in dtype (object for text), shape and value."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        np.testing.assert_array_equal(g, e)
        if e.dtype == object:
            assert all(type(v) is str for v in g.flat)


def test_every_text_node_test_is_covered() -> None:
    assert len(NAMES) == 26


TF_NAMES = ["test_strnormalizer_export_monday_insensintive_upper_twodim",
            "test_strnormalizer_export_monday_empty_output", "test_string_concat_broadcasting",
            "test_string_concat_utf8", "test_string_split_maxsplit",
            "test_string_split_empty_tensor", "test_regex_full_match_email_domain",
            "test_equal_string_broadcast", "test_ai_onnx_ml_label_encoder_tensor_mapping"]
"""A case of each operator and edge on TensorFlow, whose compiles are slow (the
conformance script runs them all: `--filter 'str|regex|label_encoder'`)."""


@pytest.mark.parametrize("name", NAMES)
def test_node_numpy(name: str) -> None:
    model, inputs, outputs = node_case(name)
    check(backend("numpy").prepare(model).run(inputs), outputs)


@pytest.mark.parametrize("name", TF_NAMES)
def test_node_tensorflow(name: str) -> None:
    pytest.importorskip("tensorflow")
    model, inputs, outputs = node_case(name)
    check(backend("tensorflow").prepare(model).run(inputs), outputs)


def test_strnorm_models() -> None:
    """The `simple` group's six StringNormalizer models, with their stored data."""
    import onnx
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [c for c in load_model_tests(kind="simple") if "strnorm" in c.name]
    assert len(cases) == 6
    for case in cases:
        model = onnx.load(f"{case.model_dir}/model.onnx")
        for inputs, outputs in _data_sets(case.model_dir):
            check(backend("numpy").prepare(model).run(inputs), outputs)


def _data_sets(model_dir: str) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """The stored `test_data_set_*` inputs and outputs of a model test."""
    import glob

    import onnx
    from onnx import numpy_helper

    def read(pattern: str) -> list[np.ndarray]:
        arrays = []
        for path in sorted(glob.glob(pattern)):
            tensor = onnx.TensorProto()
            with open(path, "rb") as f:
                tensor.ParseFromString(f.read())
            arrays.append(numpy_helper.to_array(tensor))
        return arrays
    return [(read(f"{d}/input_*.pb"), read(f"{d}/output_*.pb"))
            for d in sorted(glob.glob(f"{model_dir}/test_data_set_*"))]


@pytest.mark.parametrize("target", ["torch", "jax"])
@pytest.mark.parametrize("name", NAMES)
def test_node_on_host_stages(name: str, target: str) -> None:
    model, inputs, outputs = node_case(name)
    check(tuple(np.asarray(v) for v in backend(target).prepare(model).run(inputs)), outputs)


@pytest.mark.parametrize("target", ["torch", "jax"])
def test_text_hands_numbers_back_to_the_framework(target: str) -> None:
    """Normalize, compare with a word, then arithmetic with a float initializer: the
    comparison runs on the host, the weighted sum in the framework, on its arrays."""
    nodes = [helper.make_node("StringNormalizer", ["x"], ["low"], case_change_action="LOWER"),
             helper.make_node("Equal", ["low", "word"], ["hit"]),
             helper.make_node("Cast", ["hit"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["f", "w"], ["y"])]
    init = [helper.make_tensor("word", TensorProto.STRING, [], [b"monday"]),
            helper.make_tensor("w", TensorProto.FLOAT, [3], [0.5, 2.0, 4.0])]
    model = make_model(nodes, [tensor_info("x", [3], TensorProto.STRING)],
                       [tensor_info("y", [3], TensorProto.FLOAT)], inits=init)
    x = np.array(["Monday", "tuesday", "MONDAY"], dtype=object)
    compiled = ivy_ir.compile(model, target=target, args=(x,))
    y = compiled(x)
    assert type(y).__module__.split(".")[0] in ("torch", "jax", "jaxlib")
    np.testing.assert_array_equal(np.asarray(y.detach() if target == "torch" else y),
                                  [0.5, 0.0, 4.0])
    assert "through NumPy" in compiled.source
    if target == "torch":  # the framework stage is differentiable as ever
        y.sum().backward()
        np.testing.assert_array_equal(compiled.params["w"].grad.numpy(), [1.0, 0.0, 1.0])


@pytest.mark.parametrize("target", ["torch", "jax"])
def test_text_with_named_dims_is_refused_by_name(target: str) -> None:
    """Stages cannot carry named dynamic dims, so such a program still says why."""
    model = make_model([helper.make_node("StringNormalizer", ["x"], ["y"])],
                       [tensor_info("x", ["N"], TensorProto.STRING)],
                       [tensor_info("y", None, TensorProto.STRING)])
    with pytest.raises(LoweringError, match=rf"(?s)the {target} target cannot run these ops "
                                            r"in these dtypes:\n  ivy\.string_normalize in "
                                            r"string.*named dynamic dims"):
        ivy_ir.compile(model, target=target)(np.array(["a", "B"], dtype=object))


def test_onnx_export_refuses_text() -> None:
    model, inputs, _ = node_case("test_string_concat")
    with pytest.raises(LoweringError, match=r"ivy\.string_concat.*no STRING tensors"):
        ivy_ir.compile(model, target="onnx", args=tuple(inputs))


def test_cast_to_or_from_string_is_reported() -> None:
    """Cast has no text form (number formatting is not a registry op): reported."""
    for to, elem in ((TensorProto.STRING, TensorProto.FLOAT),
                     (TensorProto.FLOAT, TensorProto.STRING)):
        model = make_model([helper.make_node("Cast", ["x"], ["y"], to=to)],
                           [tensor_info("x", [2], elem)], [tensor_info("y", [2], to)])
        with pytest.raises(UnsupportedOpsError, match=r"Cast \(opset 18\): .*string"):
            ivy_ir.trace(model)


TEXT_IR = """\
func.func @main(%x: tensor<2x!ivy.string>, %y: tensor<!ivy.string>) -> (tensor<2x!ivy.string>, tensor<2x?x!ivy.string>, tensor<2xi64>, tensor<?x!ivy.string>, tensor<2xi64>) {
  %c = ivy.string_concat %x, %y : (tensor<2x!ivy.string>, tensor<!ivy.string>) -> tensor<2x!ivy.string>
  %p, %n = ivy.string_split %c {delimiter = "\\22"} : (tensor<2x!ivy.string>) -> (tensor<2x?x!ivy.string>, tensor<2xi64>)
  %s = ivy.string_normalize %x {case = "lower", stopwords = ["A", "é"]} : (tensor<2x!ivy.string>) -> tensor<?x!ivy.string>
  %k = ivy.string_lookup %x {keys = ["b", "a"]} : (tensor<2x!ivy.string>) -> tensor<2xi64>
  func.return %c, %p, %n, %s, %k : tensor<2x!ivy.string>, tensor<2x?x!ivy.string>, tensor<2xi64>, tensor<?x!ivy.string>, tensor<2xi64>
}
"""


def test_text_ir_round_trips_and_runs() -> None:
    module = ivy_ir.parse(TEXT_IR)
    assert str(ivy_ir.parse(str(module))) == str(module)
    assert "tensor<2x?x!ivy.string>" in str(module)
    x = np.array(["a", 'B"c'], dtype=object)
    y = np.array('"z', dtype=object)
    c, parts, counts, kept, keys = ivy_ir.lower(module, target="numpy")(x, y)
    assert c.tolist() == ['a"z', 'B"c"z'] and c.dtype == object
    assert parts.tolist() == [["a", "z", ""], ["B", "c", "z"]] and counts.tolist() == [2, 3]
    assert kept.tolist() == ['b"c'] and keys.tolist() == [1, 2]


def test_only_text_ops_make_text() -> None:
    """A fill of strings has no meaning in the IR: refused by inference."""
    with pytest.raises(IRError, match="ivy.zeros: string is a text dtype"):
        ivy_ir.parse("func.func @f() -> tensor<2x!ivy.string> {\n"
                     "  %z = ivy.zeros {shape = [2], dtype = !ivy.string} : () -> "
                     "tensor<2x!ivy.string>\n  func.return %z : tensor<2x!ivy.string>\n}\n")


SPLIT_TEXT = [" A", " ", "", "a  b  c ", "  a b", "a\u00a0b c", "a\x0bb", "a\x1cb c",
              "\u3000\u00e9a\u2003 b\u00a0\u00a0c  "]


@pytest.mark.parametrize("target", ["numpy", "tensorflow"])
@pytest.mark.parametrize("maxsplit", [None, 0, 1, 2])
def test_whitespace_split_is_pythons(target: str, maxsplit: int | None) -> None:
    """No delimiter: Python's `str.split(None, maxsplit)` exactly. TF's own split skips
    no leading whitespace under `maxsplit=0` and splits only at ASCII whitespace; the
    rest after `maxsplit` splits keeps its original (Unicode) whitespace."""
    x = np.array(SPLIT_TEXT, dtype=object)
    c = ivy_ir.compile(lambda t: ivy.string_split(t, None, maxsplit), target=target, args=(x,))
    parts, counts = (host_array(v) for v in c(x))
    want = [s.split(None, -1 if maxsplit is None else maxsplit) for s in SPLIT_TEXT]
    assert counts.tolist() == [len(w) for w in want]
    assert [row[:len(w)] for row, w in zip(parts.tolist(), want)] == want
    assert all(v == "" for row, w in zip(parts.tolist(), want) for v in row[len(w):])


@pytest.mark.parametrize("target", ["numpy", "tensorflow", "jax"])
def test_regex_classes_are_re2s(target: str) -> None:
    """ONNX's RegexFullMatch is RE2, whose \\w, \\d and \\s are ASCII: Python's `re` is
    given them spelt out (`re2_patterns`), so every target answers as onnxruntime and
    TF do."""
    x = np.array(["abc_1", "\u00e9", "\u0663", " ", "\u00a0", "x y", "a.b"], dtype=object)
    want = {r"\w+": [True, False, False, False, False, False, False],
            r"\d": [False, False, False, False, False, False, False],
            r"\s": [False, False, False, True, False, False, False],
            r"[\w ]+": [True, False, False, True, False, True, False],
            r"\W": [False, True, True, True, True, False, False],
            r"[\w.]+": [True, False, False, False, False, False, True]}
    for pattern, expected in want.items():
        c = ivy_ir.compile(lambda t, p=pattern: ivy.regex_full_match(t, p), target=target,
                           args=(x,))
        assert host_array(c(x)).tolist() == expected, pattern
