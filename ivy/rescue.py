"""The one spelling form besides a plain expression (see `spellings.py`)."""

from __future__ import annotations

from typing import NamedTuple


class Rescued(NamedTuple):
    """A spelling that calls the framework as it is and mends only the calls that fail:
    `rescue`, an expression over the same parameters, runs when `body` raised (its value
    NotImplemented where the failure is not its case, which then takes the usual retry).
    Where the framework refuses exactly the inputs it would get wrong (torch has no
    uint32 `abs`), the common call then pays no test at all."""

    body: str
    rescue: str
