"""Test-wide settings: in CI (CI=true) hypothesis is derandomized, so a submission's
run explores the same examples every time; locally it keeps searching randomly. Where
the CUDA-built torchvision wheel sits beside the CPU torch (the benchmarks' extra), its
operator schemas are declared first, so that transformers and timm, which import
torchvision, import."""

from __future__ import annotations

import importlib.util
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

if importlib.util.find_spec("torchvision") is not None:
    from transpile_zoo import register_torchvision_schemas

    register_torchvision_schemas()
