"""The op registry: the spec parses, and everything derived from it is complete."""

from __future__ import annotations

import inspect
import re

import pytest

import ivy
from ivy_ir.core.decompose import DECOMPOSITIONS
from ivy_ir.dialect import COMPOSITE, ELEMENTWISE, OP_CLASSES, SPECS
from ivy_ir.dialect.ops import INFER_RULES as RULES
from ivy_ir.dialect.spec import SpecError, parse_spec


def test_every_spec_op_has_a_class_rule_and_facade_function():
    assert set(OP_CLASSES) == set(SPECS)
    assert {s.infer for s in SPECS.values()} <= set(RULES)
    for name, cls in OP_CLASSES.items():
        assert cls.name == f"ivy.{name}"
        # ivy.constant's value is data, not an argument: the facade makes one with asarray
        assert name == "constant" or callable(getattr(ivy, name))


def test_every_composite_op_has_a_decomposition():
    assert set(DECOMPOSITIONS) == set(COMPOSITE)


def test_categories_come_from_tags():
    assert {"add", "exp", "where", "gelu"} <= ELEMENTWISE
    assert "matmul" not in ELEMENTWISE
    assert "softmax" in COMPOSITE


def test_facade_signature_follows_the_spec():
    sig = inspect.signature(ivy.layer_norm)
    kinds = {n: p.kind for n, p in sig.parameters.items()}
    assert list(sig.parameters)[:3] == ["x", "weight", "bias"]
    assert kinds["x"] is inspect.Parameter.POSITIONAL_ONLY
    # attributes are positional too where no required one follows a default (as in 2021)
    assert kinds["eps"] is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert sig.parameters["eps"].default == 1e-05
    assert "ops.spec" in ivy.layer_norm.__doc__


@pytest.mark.parametrize("text, message", [
    ("foo(x: float)\n", "no infer=<rule> tag"),
    ("foo(x: floaty) | infer=same\n", "unknown dtype class 'floaty'"),
    ("foo(x: float, *, k: integer) | infer=same\n", "unknown kind 'integer'"),
    ("foo(x: float) | infer=same\nfoo(y: float) | infer=same\n", "declared twice"),
    ("foo(x: float, *, m: str{\"a\"} = \"b\") | infer=same\n", "not one of its choices"),
    ("foo(x float) | infer=same\n", "ops.spec"),
    ("foo(x: float) | infer=same elementwsie\n", "unknown tag(s) elementwsie"),
])
def test_malformed_spec_is_reported(text, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        parse_spec(text)


def test_spec_line_numbers_point_at_the_declaration():
    specs = parse_spec("# comment\n\nfoo(x: float) | infer=same\nbar(x: num) | infer=same\n")
    assert (specs["foo"].line, specs["bar"].line) == (3, 4)


def test_every_target_lowers_every_op():
    from lowerings import TARGETS, get_target
    from lowerings.emitter import missing_rules

    for target in TARGETS:
        assert missing_rules(get_target(target), set(DECOMPOSITIONS)) == [], target
