"""The diagnosed causes of the zoo's failures, by model (or `model:target` where one
target fails for its own reason): `scripts/zoo.py` prints each after its failure in
`docs/zoo.md`. The fixes belong in the files named; the zoo only records them, and a
diagnosis whose model passes again is simply not printed."""

from __future__ import annotations

DIAGNOSES: dict[str, str] = {}
