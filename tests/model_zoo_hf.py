"""The zoo's transformers models: each family's model class on a small config built in
code (hidden 32, 2 layers, 2-4 heads, vocabulary 100; nothing is downloaded), called
as its users call it, with keyword inputs: 2 sequences of 8 token ids whose second
one is padded (attention mask 0 on its last 3 tokens) where the model takes a mask,
2 images of 32 px, or 2 log-mel spectrograms of 16 bins x 32 frames.

Decoders run without a cache (`use_cache=False`): the KV-cache step is
`tests/test_kv_cache.py`'s.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from model_zoo_core import Model
from model_zoo_vision import image, torch_model

SMALL = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
             intermediate_size=64, max_position_embeddings=64)
DECODER = dict(SMALL, num_attention_heads=4, num_key_value_heads=2, use_cache=False)
"""Llama-style decoders: grouped-query attention (4 query heads on 2 key/value heads)."""
VISION = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
              intermediate_size=64, image_size=32, patch_size=8)


def _tr() -> Any:
    return importlib.import_module("transformers")


def _ids(seed: int = 1, length: int = 8) -> Any:
    import torch
    ids = np.random.default_rng(seed).integers(3, 100, (2, length))
    return torch.from_numpy(ids)


def _mask() -> Any:
    import torch
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 5:] = 0
    return mask


def _text(mask: bool = True, **extra: Callable[[], Any]) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        kwargs = {"input_ids": _ids()}
        if mask:
            kwargs["attention_mask"] = _mask()
        return {**kwargs, **{k: v() for k, v in extra.items()}}
    return make


def _pixels() -> Any:
    import torch
    return torch.from_numpy(image(2, 3, 32, 32))


def _waveform() -> dict[str, Any]:
    import torch
    return {"input_values": torch.from_numpy(image(2, 400))}


def _hf(name: str, make: Callable[[Any], Any], kwargs: Callable[[], dict[str, Any]],
        **model: Any) -> Model:
    return Model(name, "transformers", torch_model(lambda: make(_tr()), tuple, kwargs),
                 "transformers", **model)


def _clip_ids() -> Any:
    """Token ids ending in CLIP's end-of-text id (2): the text model pools there."""
    ids = _ids()
    ids[:, -1] = 2
    return ids


def _whisper_encoder(tr: Any) -> Any:
    """`WhisperModel.encoder`'s class alone (the decoder would need token ids of a
    100-word vocabulary: `pad_token_id` and the rest are set inside it)."""
    cfg = tr.WhisperConfig(vocab_size=100, num_mel_bins=16, d_model=32, encoder_layers=2,
                           encoder_attention_heads=2, encoder_ffn_dim=64, decoder_layers=2,
                           decoder_attention_heads=2, decoder_ffn_dim=64,
                           max_source_positions=16, max_target_positions=16,
                           pad_token_id=0, bos_token_id=1, eos_token_id=2,
                           decoder_start_token_id=1)
    return importlib.import_module("transformers.models.whisper.modeling_whisper"
                                   ).WhisperEncoder(cfg)


def _mel() -> dict[str, Any]:
    import torch
    return {"input_features": torch.from_numpy(image(2, 16, 32))}


HF = [
    _hf("bert", lambda tr: tr.BertModel(tr.BertConfig(**SMALL)), _text()),
    _hf("roberta", lambda tr: tr.RobertaModel(tr.RobertaConfig(
        **dict(SMALL, max_position_embeddings=66))), _text()),
    _hf("distilbert", lambda tr: tr.DistilBertModel(tr.DistilBertConfig(
        vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
        max_position_embeddings=64)), _text()),
    _hf("t5_encoder", lambda tr: tr.T5EncoderModel(tr.T5Config(
        vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2)), _text()),
    _hf("t5_decoder", lambda tr: tr.T5ForConditionalGeneration(tr.T5Config(
        vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
        decoder_start_token_id=0, use_cache=False)),
        _text(decoder_input_ids=lambda: _ids(seed=2, length=5))),
    _hf("gpt2", lambda tr: tr.GPT2LMHeadModel(tr.GPT2Config(
        vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=2, use_cache=False)),
        _text()),
    _hf("llama", lambda tr: tr.LlamaForCausalLM(tr.LlamaConfig(**DECODER)), _text()),
    _hf("qwen2", lambda tr: tr.Qwen2ForCausalLM(tr.Qwen2Config(**DECODER)), _text()),
    # a sliding window shorter than the sequence: the mask drops the oldest keys
    _hf("mistral", lambda tr: tr.MistralForCausalLM(tr.MistralConfig(
        **DECODER, sliding_window=4)), _text()),
    _hf("vit", lambda tr: tr.ViTModel(tr.ViTConfig(**VISION)),
        lambda: {"pixel_values": _pixels()}),
    _hf("clip", lambda tr: tr.CLIPModel(tr.CLIPConfig(
        text_config=dict(SMALL, max_position_embeddings=16), vision_config=VISION,
        projection_dim=16)),
        lambda: {"input_ids": _clip_ids(), "pixel_values": _pixels(),
                 "attention_mask": _mask()}),
    _hf("whisper_encoder", _whisper_encoder, _mel),
    # relative positions from ranges whose bounds are read out of position tensors
    _hf("funnel", lambda tr: tr.FunnelBaseModel(tr.FunnelConfig(
        vocab_size=100, block_sizes=[1, 1], d_model=32, n_head=2, d_head=16, d_inner=64)),
        _text()),
    _hf("deberta_v2", lambda tr: tr.DebertaV2Model(tr.DebertaV2Config(**SMALL)), _text()),
    _hf("bart", lambda tr: tr.BartModel(tr.BartConfig(
        vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
        decoder_ffn_dim=64, max_position_embeddings=64, use_cache=False)), _text()),
    _hf("bloom", lambda tr: tr.BloomForCausalLM(tr.BloomConfig(
        vocab_size=100, hidden_size=32, n_layer=2, n_head=2, use_cache=False)), _text()),
    _hf("gemma2", lambda tr: tr.Gemma2ForCausalLM(tr.Gemma2Config(
        **DECODER, head_dim=8, sliding_window=4)), _text()),
    _hf("mamba", lambda tr: tr.MambaForCausalLM(tr.MambaConfig(
        vocab_size=100, hidden_size=32, num_hidden_layers=2, state_size=4,
        use_cache=False)), _text(mask=False)),
    _hf("wav2vec2", lambda tr: tr.Wav2Vec2Model(tr.Wav2Vec2Config(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)), _waveform),
    _hf("segformer", lambda tr: tr.SegformerModel(tr.SegformerConfig(
        num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
        num_attention_heads=[1, 2], decoder_hidden_size=32)),
        lambda: {"pixel_values": _pixels()}),
]
