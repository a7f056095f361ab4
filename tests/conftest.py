"""Test-wide settings: in CI (CI=true) hypothesis is derandomized, so a submission's
run explores the same examples every time; locally it keeps searching randomly."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
