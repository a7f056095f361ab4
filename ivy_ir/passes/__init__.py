"""Pass registry and pipelines.

Every pass is an xDSL `ModulePass`, registered here by its CLI name for both
`ivy-opt` and `ivy_ir.compile(passes=...)`. A pipeline is a textual spec such as
"canonicalize,cse,dce" (options as `pass{opt=v}`), or the name of a preset.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes
from xdsl.utils.exceptions import VerifyException

from ..core.context import make_context
from ..core.module import Module
from .canonicalize import CanonicalizePass
from .channels_last import ChannelsLastPass
from .decompose import DecomposePass
from .fuse_elementwise import FuseElementwisePass
from .recompose import RecomposePass
from .strip_wrappers import StripWrappersPass

IVY_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    p.name: (lambda p=p: p) for p in (DecomposePass, ChannelsLastPass, RecomposePass,
                                      CanonicalizePass, StripWrappersPass,
                                      FuseElementwisePass)
}
"""Passes of this project; with xDSL's built-ins (`cse`, `dce`, ...) they make up what a
pipeline may name. Our `canonicalize` replaces xDSL's: it runs xDSL's patterns and the
ivy rules in one walk."""

DEFAULT_ORDER = ("strip-wrappers", "canonicalize", "recompose", "canonicalize", "cse", "dce")
"""The intended target-independent pipeline: drop the identity wrappers importers
leave, simplify, recompose composite ops from their expansions (their fused kernels
are faster), simplify what that exposed, merge duplicates, drop dead ops. Elementwise
fusion depends on the target, so it is not here: eager lowerings run
`fuse-elementwise` themselves (`Target.fuse_elementwise`: torch without
torch.compile), while XLA (jax, TF with jit_compile) and inductor fuse on their own."""

PRESETS = {"default": ",".join(DEFAULT_ORDER), "none": ""}
"""Named pipelines (`compile(passes=...)`, `ivy-opt -p`)."""


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {**get_all_passes(), **IVY_PASSES}


def run_pipeline(module: Module, passes: str = "default", print_ir_after_all: bool = False,
                 timings: dict[str, float] | None = None,
                 printer: Callable[[str], Any] = print, verify_each: bool = True) -> Module:
    """Run a pipeline on a copy of `module`, verifying after every pass, or with
    `verify_each=False` (`compile`: verifying a large model takes ~0.1 s a time) once at
    the end; a failure then runs the pipeline again verifying each pass, so the error
    names the pass that broke the IR either way."""
    spec = PRESETS.get(passes, passes)
    out = module.clone()
    if not spec.strip():
        return out
    last = [time.perf_counter()]

    def after(prev: ModulePass | None, op: Any, _next: ModulePass | None) -> None:
        if prev is None:
            last[0] = time.perf_counter()
            return
        if verify_each:
            try:
                op.verify()
            except VerifyException as exc:
                raise VerifyException(f"after pass '{prev.name}': {exc}") from None
        now = time.perf_counter()
        if timings is not None:
            timings[prev.name] = timings.get(prev.name, 0.0) + now - last[0]
        if print_ir_after_all:
            printer(f"// -----// IR after {prev.name} //----- //\n{out}")
        last[0] = time.perf_counter()

    pipeline = PassPipeline.parse_spec(available_passes(), spec, callback=after)
    pipeline.apply(make_context(), out.op)
    if not verify_each:
        try:
            out.op.verify()
        except VerifyException:
            return run_pipeline(module, passes, verify_each=True)
    return out
