"""The model zoo of issue 17: models from the libraries users have (timm, torchvision,
transformers, kornia, Keras, Flax), small configs and random weights, each compiled
for all four targets and checked against its source.

The entries live in one file per family (`model_zoo_<family>.py`); this file is the
table of them. `scripts/zoo.py` runs all of it and writes `docs/zoo.md`;
`tests/test_model_zoo.py` runs `CI` in CI and checks that the doc lists every model.
"""

from __future__ import annotations

from model_zoo_core import TARGETS, Built, Model, Result, check
from model_zoo_flax import FLAX
from model_zoo_hf import HF
from model_zoo_keras import KERAS_APPLICATIONS, KERAS_LAYERS
from model_zoo_kornia import KORNIA
from model_zoo_vision import TIMM, TORCHVISION

FAMILIES: dict[str, list[Model]] = {
    "timm": TIMM,
    "torchvision": TORCHVISION,
    "transformers": HF,
    "kornia": KORNIA,
    "keras.applications": KERAS_APPLICATIONS,
    "keras": KERAS_LAYERS,
    "flax": FLAX,
}
MODELS = [m for family in FAMILIES.values() for m in family]
BY_NAME = {m.name: m for m in MODELS}
assert len(BY_NAME) == len(MODELS), "two zoo entries share a name"

KORNIA_CI = ("kornia.filters.gaussian_blur2d", "kornia.color.rgb_to_hsv",
             "kornia.enhance.adjust_gamma", "kornia.geometry.transform.warp_affine")
"""The kornia batch of the CI subset: a filter, a color space, an enhancement, a warp."""
CI = ("vit_tiny_patch16_224", "tv_squeezenet1_1", "bert", "gpt2", *KORNIA_CI,
      "MobileNetV3Small", "keras_upsampling2d", "flax_nnx_cnn_dropout_batchnorm")
"""The CI subset (`tests/test_model_zoo.py`): one model of each family, the quicker of
each (a timm transformer, a torchvision CNN), to stay near 90 s on 2 cores."""

__all__ = ["BY_NAME", "CI", "FAMILIES", "MODELS", "TARGETS", "Built", "Model", "Result",
           "check"]
