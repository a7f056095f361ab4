"""Coverage of the lax primitives reachable from `jax.numpy`, `jax.nn` and `jax.random`
by the JAX importer.

Each public function's example (`jax_coverage_examples`) is staged with
`jax.make_jaxpr`; the primitives of its jaxpr, those of every sub-jaxpr (jit, custom_jvp,
cond, while, scan bodies) included, are what that function reaches. The example is
then compiled with `ivy_ir.compile(..., target="numpy")`, run, and compared with JAX
running it. Each primitive then counts as one of `STATUSES`: it imports when an example
reaching it imports and matches JAX and no failure is the importer naming it.

An example that fails without the importer naming a primitive (complex values, a wrong
value) is a gap of that function, not of a primitive: `FAILING` lists those. `GAPS`
lists the primitives that do not import, with the reason. The test checks both tables
against what happens, so a gap that closes has to leave its table (and one that opens
has to be explained).

`scripts/gen_import_matrix.py` writes `render()` into `docs/import_matrix.md`;
`tests/test_jax_coverage.py` checks it is current.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from doc_sections import section
from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn
from jax_coverage_examples import EXAMPLES, NOT_TRACED

import ivy_ir
from importers.jax_walk import INLINED
from ivy_ir.core.errors import UnsupportedOpsError

SECTION = "## JAX: lax primitives reachable from jax.numpy, jax.nn and jax.random"
RTOL, ATOL = 1e-4, 1e-5
PASSES = "none"
"""The importer's module is lowered as it is: the coverage is the importer's (the passes
have their own tests), and the pipeline would add half again to the test's time."""
FAST_XLA = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True,
            "xla_cpu_use_fusion_emitters": False}
"""XLA options for JAX's reference run: the same values, compiled in about a third of the
time (every example is compiled once, so compiling is most of the test's time)."""
PRNG = "JAX PRNG"
GAPS: dict[str, str] = {
    "random_gamma": f"{PRNG}: a per-element rejection loop over keys, no registry op",
    "eig": "no rule: a general (non-symmetric) eigendecomposition has no registry op",
    "pad": "only `jnp.roots` reaches it (a complex padding), which fails on `eig`",
    "scaled_matmul_wrapper": "cuDNN block-scaled matmul: JAX has no CPU lowering of it either",
}
"""Primitives that do not import in every use (statuses other than imports and walked),
with the reason."""
FAILING: dict[str, str] = {}
"""Examples that fail without the importer naming a primitive, with the reason."""
STATUSES = {
    "imports": "an example reaching it imports and matches JAX; no failure names it",
    "walked": "higher-order: the importer walks its body in place",
    "partial": "imports in some examples; the importer names it in the failure of others "
               "(a variant its rule refuses)",
    "missing": "the importer names it in every example reaching it that fails, and none "
               "reaching it imports",
    "blocked": "every example reaching it fails on something else: untested",
}
MAX_SHOWN = 6
_NAMED = re.compile(r"cannot import jax op '([^']+)'")
_LOCATION = re.compile(r"\S+\.py:\d+(:\d+)?: ")


@dataclass(frozen=True)
class Result:
    primitives: frozenset[str]
    """The primitives the example's jaxpr holds, in sub-jaxprs too."""
    error: str = ""
    """Why the example failed, one line; empty when it imports and matches JAX."""
    named: tuple[str, ...] = ()
    """The primitives the importer named in that failure."""


def equations(jaxpr: Jaxpr) -> Iterator[JaxprEqn]:
    """The equations of `jaxpr` and of every jaxpr among its equations' params."""
    for eqn in jaxpr.eqns:
        yield eqn
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                if isinstance(sub, (ClosedJaxpr, Jaxpr)):
                    yield from equations(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub)


@functools.cache
def classify(name: str) -> Result:
    """Stage example `name` with JAX, import it, run it on the NumPy target, compare."""
    example = EXAMPLES[name]
    try:
        eqns = list(equations(jax.make_jaxpr(example.call)(*example.args).jaxpr))
    except Exception as exc:  # noqa: BLE001 - a JAX that changed the function
        return Result(frozenset(), f"JAX does not trace it: {_first_line(exc)}")
    reached = frozenset(eqn.primitive.name for eqn in eqns)
    try:
        compiled = ivy_ir.compile(example.call, target="numpy", args=example.args,
                                  source="jax", passes=PASSES)
        with np.errstate(all="ignore"):  # NaN, infinities and zeros are inputs on purpose
            got = _leaves(compiled(*example.args))
    except UnsupportedOpsError as exc:
        return Result(reached, f"unsupported: {', '.join(sorted(exc.missing))}",
                      tuple(sorted(exc.missing)))
    except Exception as exc:  # noqa: BLE001 - the reason is the result
        line = _first_line(exc)
        return Result(reached, line, tuple(_NAMED.findall(line)))
    try:
        with jax.default_device(jax.devices("cpu")[0]):  # FAST_XLA's options are the CPU's
            want = _leaves(jax.jit(example.call).lower(*example.args).compile(FAST_XLA)(
                *example.args))
    except Exception as exc:  # noqa: BLE001 - the reason is the result
        return Result(reached, f"JAX cannot run it here: {_first_line(exc)}")
    try:
        assert len(got) == len(want), f"{len(got)} outputs, JAX gives {len(want)}"
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, \
                f"{g.shape} {g.dtype}, JAX gives {w.shape} {w.dtype}"
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
    except AssertionError as exc:
        return Result(reached, f"wrong values: {_first_line(exc)}")
    return Result(reached)


def _leaves(out: Any) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(out)]


def _first_line(exc: BaseException) -> str:
    """The message's first non-blank line, without the `file:line:` of a location
    (which would tie the document to the examples' line numbers)."""
    text = str(exc) or type(exc).__name__
    line = next((t.strip() for t in text.splitlines() if t.strip()), text)
    return _LOCATION.sub("", line)


@dataclass(frozen=True)
class Coverage:
    status: str
    functions: tuple[str, ...]
    """The example functions that reach the primitive."""
    failing: tuple[str, ...] = ()
    """Those whose failure names it (all of them when blocked)."""


@functools.cache
def coverage() -> dict[str, Coverage]:
    """Every reached primitive's status, from all examples' results."""
    results = {name: classify(name) for name in EXAMPLES}
    reached: dict[str, list[str]] = {}
    for name, result in results.items():
        for prim in result.primitives:
            reached.setdefault(prim, []).append(name)
    out = {}
    for prim, names in sorted(reached.items()):
        naming = tuple(n for n in names if prim in results[n].named)
        passing = any(not results[n].error for n in names)
        if naming:
            out[prim] = Coverage("partial" if passing else "missing", tuple(names), naming)
        elif not passing:
            out[prim] = Coverage("blocked", tuple(names), tuple(names))
        else:
            out[prim] = Coverage("walked" if prim in INLINED else "imports", tuple(names))
    return out


def gaps() -> dict[str, Coverage]:
    """The primitives that do not import in every use."""
    return {p: c for p, c in coverage().items() if c.status not in ("imports", "walked")}


def unexplained() -> dict[str, str]:
    """Failing examples whose failure names no primitive: function -> error."""
    return {n: r.error for n in EXAMPLES if (r := classify(n)).error and not r.named}


def render() -> str:
    """The JAX coverage section of `docs/import_matrix.md`."""
    cov = coverage()
    counts = {s: sum(c.status == s for c in cov.values()) for s in STATUSES}
    imported = counts["imports"] + counts["walked"]
    whole = sum(not classify(n).error for n in EXAMPLES)
    lines = [
        SECTION,
        "",
        "Generated by `scripts/gen_import_matrix.py` from `tests/jax_coverage.py` (checked by",
        "`tests/test_jax_coverage.py`). One example call per public function of `jax.numpy`,",
        "`jax.nn` and `jax.random` (`tests/jax_coverage_examples.py`: small float32, int32 and",
        "bool arrays; a legacy `PRNGKey(0)` input for `jax.random`) is staged with",
        f"`jax.make_jaxpr` (JAX {jax.__version__}); the primitives of its jaxpr and "
        "sub-jaxprs are",
        "what that function reaches. Each example is compiled with",
        f"`ivy_ir.compile(..., target=\"numpy\", passes=\"{PASSES}\")` and compared with JAX "
        f"(rtol {RTOL:g},",
        f"atol {ATOL:g}; integers and bools exactly). Functions with a data-dependent output",
        "shape are called in their static form (`size=`); the public functions without an",
        "example are listed at the end with the reason.",
        "",
        f"**{imported} of the {len(cov)} primitives reached import in every use "
        f"({100 * imported / len(cov):.1f}%); {whole} of the {len(EXAMPLES)} example "
        "functions import whole.**",
        "",
        "| status | meaning | primitives |",
        "|---|---|---|",
    ]
    lines += [f"| {s} | {m} | {counts[s]} |" for s, m in STATUSES.items()]
    lines += ["", "| primitive | status | reached from | reason when not imported |",
              "|---|---|---|---|"]
    for prim, c in cov.items():
        why = ""
        if c.status not in ("imports", "walked"):
            why = _cell(f"{GAPS.get(prim, '(not in GAPS)')}; fails in "
                        f"{_functions(c.failing)}")
        lines.append(f"| `{prim}` | {c.status} | {_functions(c.functions)} | {why} |")
    lines += ["", "Failing examples (the error's first line; where it names no primitive, "
              "the reason in `FAILING`):", "", "| function | error |", "|---|---|"]
    lines += [f"| `{n}` | {_cell(FAILING.get(n) or classify(n).error)} |"
              for n in EXAMPLES if classify(n).error]
    reasons: dict[str, list[str]] = {}
    for name, why in NOT_TRACED.items():
        reasons.setdefault(why, []).append(name)
    lines += ["", f"Without an example ({len(NOT_TRACED)}):", ""]
    lines += [f"- {why}: " + ", ".join(f"`{n}`" for n in names) + "."
              for why, names in reasons.items()]
    return "\n".join(lines) + "\n"


def _functions(names: tuple[str, ...]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_SHOWN])
    return shown + (f" (+{len(names) - MAX_SHOWN})" if len(names) > MAX_SHOWN else "")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def documented(text: str) -> str:
    """The JAX section of the document's `text`."""
    return section(text, SECTION)
