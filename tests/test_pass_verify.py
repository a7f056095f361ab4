"""A pass that leaves IR which does not verify is named in the error, whether the
pipeline verifies after every pass (`ivy-opt`, the default) or once at the end
(`compile`, where verifying a large model after each pass cost a fifth of its time)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

import ivy
import ivy_ir
from ivy_ir.passes import IVY_PASSES, run_pipeline


@dataclasses.dataclass(frozen=True)
class Retype(ModulePass):
    """Gives every `ivy.exp` an attribute it does not have."""

    name = "retype"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for exp in [o for o in op.walk() if o.name == "ivy.exp"]:
            exp.properties["scale"] = IntegerAttr(7, i64)


@pytest.fixture
def module(monkeypatch: pytest.MonkeyPatch) -> ivy_ir.Module:
    monkeypatch.setitem(IVY_PASSES, "retype", lambda: Retype)
    return ivy_ir.trace(lambda x: ivy.exp(x) + 1.0, (np.ones((2, 3), np.float32),))


@pytest.mark.parametrize("verify_each", [True, False])
def test_the_pass_that_breaks_the_ir_is_named(module: ivy_ir.Module, verify_each: bool) -> None:
    with pytest.raises(VerifyException, match=r"after pass 'retype': property 'scale' .*'ivy\.exp'"):
        run_pipeline(module, "canonicalize,retype,cse", verify_each=verify_each)


def test_verifying_once_gives_the_same_program(module: ivy_ir.Module) -> None:
    each = run_pipeline(module, verify_each=True)
    once = run_pipeline(module, verify_each=False)
    assert str(each) == str(once)
