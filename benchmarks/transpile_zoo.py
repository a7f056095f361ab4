"""The torch model zoo of `transpile_speed.py` and the process setup it needs.

Every model is built from its library's own classes with random weights (nothing is
downloaded), in eval mode, with one example input (batch `BATCH`). `timm` imports
torchvision, whose PyPI wheel registers its C++ kernels for a CUDA torch: on the CPU
torch of this project they are missing, and `register_torchvision_schemas` declares the
two schemas torchvision's Python code looks up at import (no kernel: the zoo never runs
detection ops). Install the zoo with `bash scripts/setup_bench.sh`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

BATCH = 8
IMAGE = 128
"""Image side of the vision models' inputs (3 x IMAGE x IMAGE)."""
SEQ = 128
"""Tokens per sequence of the language models and of `nn.TransformerEncoder`."""
VOCAB = 1024


def fix_threads(threads: int) -> None:
    """Give NumPy's BLAS, XLA and TensorFlow `threads` intra-op threads; call before any
    of them loads (each reads its environment when it starts). torch gets its count from
    `set_torch_threads`, TensorFlow again from `tf.config` in the worker."""
    n = str(threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "TF_NUM_INTRAOP_THREADS"):
        os.environ[var] = n
    os.environ["TF_NUM_INTEROP_THREADS"] = "1"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    flags = os.environ.get("XLA_FLAGS", "")
    if threads == 1 and "multi_thread_eigen" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()




def set_torch_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set by an earlier call in this process
        pass


def register_torchvision_schemas() -> None:
    """Declare `torchvision::nms`/`qnms` where no torchvision kernel library declared
    them (CPU torch with the CUDA-built wheel), so that `import torchvision` works."""
    import torch

    missing = []
    for name in ("nms", "qnms"):
        try:
            _ = getattr(torch.ops.torchvision, name).default
        except (AttributeError, RuntimeError):
            missing.append(name)
    if not missing:
        return
    lib = torch.library.Library("torchvision", "DEF")
    for name in missing:
        lib.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBS.append(lib)  # a Library deregisters its definitions when collected


_LIBS: list[Any] = []


def _last_hidden(model: Any, **call_kwargs: Any) -> Any:
    """`model(input_ids=ids, **call_kwargs).last_hidden_state` as a plain `nn.Module`
    whose output is one tensor (what every column returns)."""
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids: Any) -> Any:
            return self.inner(input_ids=ids, **call_kwargs).last_hidden_state

    return LastHidden(model)


def _image() -> Any:
    import torch

    return torch.randn(BATCH, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(1))


def _tokens() -> Any:
    import torch

    return torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1))


def _timm(name: str, **kwargs: Any) -> Callable[[], tuple[Any, Any]]:
    def build() -> tuple[Any, Any]:
        import timm

        return timm.create_model(name, pretrained=False, **kwargs), _image()
    return build


def _bert() -> tuple[Any, Any]:
    import transformers

    transformers.logging.set_verbosity_error()  # (a `loss_type=None` notice per model)

    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=256, num_hidden_layers=4,
                                  num_attention_heads=4, intermediate_size=1024,
                                  max_position_embeddings=SEQ, attn_implementation="sdpa",
                                  # no padding token: BERT's padding warning looks into the
                                  # ids (`pad in ids`), a data-dependent `bool` under jax.jit
                                  pad_token_id=None)
    return _last_hidden(transformers.BertModel(cfg, add_pooling_layer=False)), _tokens()


def _gpt2() -> tuple[Any, Any]:
    import transformers

    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=256, n_layer=4,
                                  n_head=4, attn_implementation="sdpa")
    return _last_hidden(transformers.GPT2Model(cfg), use_cache=False), _tokens()


def _llama() -> tuple[Any, Any]:
    import transformers

    cfg = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=256, intermediate_size=688,
                                   num_hidden_layers=4, num_attention_heads=4,
                                   num_key_value_heads=2, max_position_embeddings=SEQ,
                                   attn_implementation="sdpa")
    return _last_hidden(transformers.LlamaModel(cfg), use_cache=False), _tokens()


def _encoder() -> tuple[Any, Any]:
    import torch

    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
    x = torch.randn(BATCH, SEQ, 256, generator=torch.Generator().manual_seed(1))
    return model, x


MODELS: dict[str, tuple[Callable[[], tuple[Any, Any]], str]] = {
    "resnet18": (_timm("resnet18"), f"timm resnet18, 3x{IMAGE}x{IMAGE}"),
    "mobilenetv3_small": (_timm("mobilenetv3_small_100"),
                          f"timm mobilenetv3_small_100, 3x{IMAGE}x{IMAGE}"),
    "vit_tiny": (_timm("vit_tiny_patch16_224", img_size=IMAGE),
                 f"timm vit_tiny_patch16 at {IMAGE}x{IMAGE} (64 patches + cls)"),
    "convnext_atto": (_timm("convnext_atto"), f"timm convnext_atto, 3x{IMAGE}x{IMAGE}"),
    "bert": (_bert, f"transformers BertModel: 4 layers, hidden 256, 4 heads, seq {SEQ}"),
    "gpt2": (_gpt2, f"transformers GPT2Model: 4 layers, hidden 256, 4 heads, seq {SEQ}"),
    "llama": (_llama, "transformers LlamaModel: 4 layers, hidden 256, 4 heads (2 kv), "
                      f"MLP 688, seq {SEQ}"),
    "transformer_encoder": (_encoder, "nn.TransformerEncoder: 4 layers, d_model 256, "
                                      f"4 heads, FFN 1024, seq {SEQ}"),
}
"""name -> (builder returning (model, example input), what it is)."""


def build(name: str) -> tuple[Any, Any]:
    """The seeded model `name` in eval mode and its example input (a torch tensor)."""
    import torch

    register_torchvision_schemas()  # transformers imports torchvision too, when present
    torch.manual_seed(0)
    model, x = MODELS[name][0]()
    return model.eval(), x


def interleaved_rounds(name: str, runners: dict[str, Callable[[], Any]], columns: list[str],
                       rounds: int, batch_s: float) -> dict[str, list[float]]:
    """Per column, `rounds` samples (seconds per call), columns interleaved in a
    rotating order, each sample a batch of ~`batch_s` of calls after 3 warm-up calls."""
    reps = {}
    for c in columns:
        t = []
        for _ in range(3):
            start = time.perf_counter()
            runners[c]()
            t.append(time.perf_counter() - start)
        reps[c] = max(1, round(batch_s / min(t)))
    samples: dict[str, list[float]] = {c: [] for c in columns}
    for r in range(rounds):
        for i in range(len(columns)):
            c = columns[(i + r) % len(columns)]
            fn, n = runners[c], reps[c]
            start = time.perf_counter()
            for _ in range(n):
                fn()
            samples[c].append((time.perf_counter() - start) / n)
    if columns:
        print(f"  {name:<20} timed {', '.join(columns)}: {rounds} rounds", flush=True)
    return samples
