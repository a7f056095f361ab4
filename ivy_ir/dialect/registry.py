"""The parsed registry and the op categories its tags define, as sets that passes and
lowerings match against."""

from __future__ import annotations

from .spec import load_specs

SPECS = load_specs()
ELEMENTWISE = frozenset(n for n, s in SPECS.items() if s.has("elementwise"))
COMMUTATIVE = frozenset(n for n, s in SPECS.items() if s.has("commutative"))
REDUCTION = frozenset(n for n, s in SPECS.items() if s.has("reduction"))
COMPOSITE = frozenset(n for n, s in SPECS.items() if s.has("composite"))
NONDIFF = frozenset(n for n, s in SPECS.items() if s.has("nondiff"))
CONTROL = frozenset(n for n, s in SPECS.items() if s.regions)
"""Control-flow ops: their bodies are regions (`ivy.cond`, `ivy.while_loop`, `ivy.scan`)."""
