"""The zoo's torch image models: timm and torchvision architectures with random weights
and 10 classes, on 2 images of 32 px where the architecture allows (64 px where its
strides, windows or attention-bias tables need more; 75 px for Inception's stem).

Batch-norm running statistics are randomized (not the identity of a fresh model), so
the eval-mode normalization is checked with teeth, as in `tests/transpile_zoo.py`, and
so are the parameters a fresh model holds at zero (`randomize_zeros`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from model_zoo_core import Built, Model
from transpile_zoo import register_torchvision_schemas


def image(*shape: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def randomize_batchnorm(model: Any) -> None:
    import torch
    g = torch.Generator().manual_seed(2)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
            m.running_mean.copy_(torch.rand(m.num_features, generator=g) - 0.5)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)


def randomize_zeros(model: Any) -> None:
    """Random values for every parameter a fresh model holds at zero: heads that start
    at zero (timm's MLP-Mixer and ResMLP) would make every output zero, the last
    batch norm of a residual block at zero (`zero_init_last`) would switch its branch
    off, zero biases would go unchecked."""
    import torch
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point() and not p.any():
                p.copy_(torch.randn(p.shape, generator=g) * 0.1)


def torch_model(make: Callable[[], Any], args: Callable[[], tuple[Any, ...]],
                kwargs: Callable[[], dict[str, Any]] = dict) -> Callable[[], Built]:
    """A builder: a seeded torch model in eval mode, its inputs, and its own forward."""
    def build() -> Built:
        import torch
        register_torchvision_schemas()  # before timm, transformers, torchvision import
        torch.manual_seed(0)
        model = make().eval()
        randomize_batchnorm(model)
        randomize_zeros(model)
        a, kw = args(), kwargs()

        def reference() -> Any:
            with torch.no_grad():
                return model(*a, **kw)
        return Built(model, a, reference, kw)
    return build


def _images(size: int) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        import torch
        return (torch.from_numpy(image(2, 3, size, size)),)
    return make


def _timm(name: str, size: int = 32, **kwargs: Any) -> Model:
    make = lambda: importlib.import_module("timm").create_model(  # noqa: E731 - late import
        name, pretrained=False, num_classes=10, **kwargs)
    return Model(name, "timm", torch_model(make, _images(size)), "timm")


def _torchvision(name: str, size: int = 32, task: str = "", **kwargs: Any) -> Model:
    """A torchvision classifier, or a model of `task` (`segmentation`: its `out` and
    no pretrained backbone; `video`: 4 frames of `size` px)."""
    module = "torchvision.models" + (f".{task}" if task else "")
    extra = {"weights_backbone": None} if task == "segmentation" else {}
    make = lambda: getattr(importlib.import_module(module), name)(  # noqa: E731
        weights=None, num_classes=10, **extra, **kwargs)
    inputs = _images(size) if task != "video" else \
        lambda: (importlib.import_module("torch").from_numpy(image(1, 3, 4, size, size)),)
    return Model(f"tv_{name}", "torchvision", torch_model(make, inputs), "torchvision")


TIMM = [
    _timm("resnet10t"),
    _timm("resnet50d"),
    _timm("mobilenetv3_small_050"),
    _timm("mobilenetv4_conv_small"),
    _timm("efficientnet_b0"),
    _timm("regnetx_002"),
    _timm("densenet121"),
    _timm("ghostnet_050"),
    _timm("lcnet_050"),
    _timm("rexnet_100"),
    _timm("repvgg_a0"),
    _timm("convnext_atto"),
    _timm("poolformer_s12"),
    _timm("vit_tiny_patch16_224", img_size=32),
    _timm("deit_tiny_patch16_224", img_size=32),
    _timm("xcit_nano_12_p16_224", img_size=32),
    _timm("mixer_s16_224", img_size=32),
    _timm("resmlp_12_224", img_size=32),
    # 64 px: a window of 2 at every stage of swin, levit's attention-bias tables, and
    # the stride-32 stages of the mobile hybrids and HRNet's four resolutions
    _timm("swin_tiny_patch4_window7_224", 64, img_size=64, window_size=2),
    _timm("levit_128s", 64, img_size=64),
    _timm("coat_lite_tiny", 64, img_size=64),
    _timm("mobilevit_xxs", 64),
    _timm("edgenext_xx_small", 64),
    _timm("efficientvit_b0", 64),
    _timm("fastvit_t8", 64),
    _timm("hrnet_w18_small", 64),
    # at 32 px VoVNet's last ceil-mode max pool has a 3-wide window over a 2-wide map
    _timm("ese_vovnet19b_dw"),
    _timm("resnest14d"),
    _timm("res2net50_14w_8s"),
    _timm("nfnet_l0"),
    _timm("sequencer2d_s"),
    _timm("volo_d1_224", img_size=32),
    _timm("eva02_tiny_patch14_224", 28, img_size=28),
    _timm("mvitv2_tiny", img_size=32),
    _timm("davit_tiny"),
    _timm("mambaout_femto"),
]

TORCHVISION = [
    _torchvision("resnet18"),
    _torchvision("resnext50_32x4d"),
    _torchvision("mobilenet_v2"),
    _torchvision("mobilenet_v3_small"),
    _torchvision("squeezenet1_1", 64),
    _torchvision("shufflenet_v2_x0_5"),
    _torchvision("mnasnet0_5"),
    _torchvision("efficientnet_b0"),
    _torchvision("regnet_y_400mf"),
    _torchvision("densenet121"),
    _torchvision("vgg11"),
    _torchvision("googlenet", 64, aux_logits=False, init_weights=True),
    # torch's default init: torchvision's own (truncated normal, std 0.1, for every
    # conv) grows the logits to ~1e9 through the 94 convolutions of random weights
    _torchvision("inception_v3", 75, aux_logits=False, init_weights=False),
    _torchvision("swin_t", 64),
    _torchvision("vit_b_16", image_size=32),
    _torchvision("swin_v2_t", 64),
    _torchvision("lraspp_mobilenet_v3_large", 64, "segmentation"),
    _torchvision("fcn_resnet50", 32, "segmentation", aux_loss=False),
    _torchvision("r2plus1d_18", 32, "video"),
    _torchvision("r3d_18", 32, "video"),
]
