"""Coverage of the TensorFlow raw ops that Keras layers, `tf.image`, `tf.signal` and
`tf.linalg` emit, by the TensorFlow importer.

Each program of `PROGRAMS` (one layer or library function on a small float32 input) is
traced by TensorFlow; its raw ops (those of the functions it calls included) are the
ops users meet. The program is then imported with `ivy_ir.trace`: an op imports when
the importer's table maps it and no use of it was reported (`UnsupportedOpsError` names
each op, with the reason where a rule refused a variant). Numerics are the business of
the importer's tests and the zoo; this table says what is reached.

`scripts/gen_import_matrix.py` writes `render()` into `docs/import_matrix.md`;
`tests/test_tf_coverage.py` checks that the document is current.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras
import numpy as np
import tensorflow as tf
from doc_sections import section

import ivy_ir
from ivy_ir.core.errors import UnsupportedOpsError

L = keras.layers
IMAGE, SEQ, VEC, MAT, VOL = (2, 8, 8, 3), (2, 6, 4), (2, 5), (3, 4, 4), (2, 5, 6, 6, 2)
SECTION = "## TensorFlow: raw ops of Keras layers, tf.image, tf.signal and tf.linalg"
NO_MAPPING = "no mapping"
REASONS: dict[str, str] = {}
"""Why a raw op without a mapping has none yet, where that is known."""
BOOKKEEPING = frozenset({"Placeholder", "NoOp"})
"""Graph plumbing that is no computation: left out of the count."""


def _spd(x: Any) -> Any:
    return tf.matmul(x, x, transpose_b=True) + 4.0 * tf.eye(4)


PROGRAMS: dict[str, tuple[Callable[[], Callable[[Any], Any]], tuple[int, ...]]] = {
    # Keras layers (inference)
    "Dense": (lambda: L.Dense(3, activation="gelu"), VEC),
    "Conv1D": (lambda: L.Conv1D(3, 3, padding="same"), SEQ),
    "Conv1D dilated": (lambda: L.Conv1D(3, 2, dilation_rate=2, padding="causal"), SEQ),
    "Conv2D": (lambda: L.Conv2D(4, 3, strides=2, padding="same"), IMAGE),
    "Conv2D dilated": (lambda: L.Conv2D(4, 3, dilation_rate=2, padding="same"), IMAGE),
    "Conv3D": (lambda: L.Conv3D(3, 2), VOL),
    "Conv2DTranspose": (lambda: L.Conv2DTranspose(3, 3, strides=2, padding="same"), IMAGE),
    "DepthwiseConv2D dilated": (lambda: L.DepthwiseConv2D(3, dilation_rate=2), IMAGE),
    "SeparableConv2D": (lambda: L.SeparableConv2D(4, 3, padding="same"), IMAGE),
    "MaxPooling2D": (lambda: L.MaxPooling2D(2), IMAGE),
    "AveragePooling2D": (lambda: L.AveragePooling2D(3, strides=2, padding="same"), IMAGE),
    "GlobalAveragePooling2D": (lambda: L.GlobalAveragePooling2D(), IMAGE),
    "GlobalMaxPooling1D": (lambda: L.GlobalMaxPooling1D(), SEQ),
    "BatchNormalization": (lambda: L.BatchNormalization(), IMAGE),
    "LayerNormalization": (lambda: L.LayerNormalization(), SEQ),
    "GroupNormalization": (lambda: L.GroupNormalization(groups=2), (2, 4, 4, 4)),
    "UnitNormalization": (lambda: L.UnitNormalization(), VEC),
    "LSTM": (lambda: L.LSTM(3), SEQ),
    "GRU": (lambda: L.GRU(3, return_sequences=True), SEQ),
    "SimpleRNN": (lambda: L.SimpleRNN(3), SEQ),
    "Bidirectional LSTM": (lambda: L.Bidirectional(L.LSTM(2)), SEQ),
    "MultiHeadAttention": (lambda: (lambda m: lambda x: m(x, x))(
        L.MultiHeadAttention(num_heads=2, key_dim=2)), SEQ),
    "Resizing bilinear": (lambda: L.Resizing(5, 11), IMAGE),
    "Resizing nearest": (lambda: L.Resizing(16, 24, interpolation="nearest"), IMAGE),
    "Resizing bicubic": (lambda: L.Resizing(5, 11, interpolation="bicubic"), IMAGE),
    "Resizing antialias": (lambda: L.Resizing(5, 11, antialias=True), IMAGE),
    "UpSampling2D bilinear": (lambda: L.UpSampling2D(2, interpolation="bilinear"), IMAGE),
    "UpSampling2D nearest": (lambda: L.UpSampling2D(2), IMAGE),
    "CenterCrop": (lambda: L.CenterCrop(5, 5), IMAGE),
    "Rescaling": (lambda: L.Rescaling(1 / 255, offset=-1), IMAGE),
    "ZeroPadding2D": (lambda: L.ZeroPadding2D(1), IMAGE),
    "Cropping2D": (lambda: L.Cropping2D(1), IMAGE),
    "Flatten": (lambda: L.Flatten(), IMAGE),
    "Permute": (lambda: L.Permute((2, 1)), SEQ),
    "RepeatVector": (lambda: L.RepeatVector(3), VEC),
    "Softmax": (lambda: L.Softmax(), SEQ),
    "PReLU": (lambda: L.PReLU(), VEC),
    "LeakyReLU": (lambda: L.LeakyReLU(), VEC),
    "ELU": (lambda: L.ELU(), VEC),
    "Dropout": (lambda: L.Dropout(0.5), VEC),
    # tf.image
    "tf.image.resize bicubic": (lambda: lambda x: tf.image.resize(x, (5, 11), "bicubic"), IMAGE),
    "tf.image.resize area": (lambda: lambda x: tf.image.resize(x, (5, 3), "area"), IMAGE),
    "tf.image.resize lanczos3": (lambda: lambda x: tf.image.resize(x, (12, 12), "lanczos3"),
                                 IMAGE),
    "tf.image.flip_left_right": (lambda: tf.image.flip_left_right, IMAGE),
    "tf.image.rot90": (lambda: tf.image.rot90, IMAGE),
    "tf.image.rgb_to_grayscale": (lambda: tf.image.rgb_to_grayscale, IMAGE),
    "tf.image.rgb_to_hsv": (lambda: tf.image.rgb_to_hsv, IMAGE),
    "tf.image.adjust_contrast": (lambda: lambda x: tf.image.adjust_contrast(x, 1.5), IMAGE),
    "tf.image.per_image_standardization": (lambda: tf.image.per_image_standardization, IMAGE),
    "tf.image.sobel_edges": (lambda: tf.image.sobel_edges, IMAGE),
    "tf.image.total_variation": (lambda: tf.image.total_variation, IMAGE),
    "tf.image.central_crop": (lambda: lambda x: tf.image.central_crop(x, 0.5), IMAGE),
    "tf.image.extract_patches": (lambda: lambda x: tf.image.extract_patches(
        x, [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"), IMAGE),
    "tf.image.crop_and_resize": (lambda: lambda x: tf.image.crop_and_resize(
        x, [[0.1, 0.2, 0.8, 0.9]], [1], (4, 4)), IMAGE),
    # tf.signal
    "tf.signal.frame": (lambda: lambda x: tf.signal.frame(x, 3, 2), (2, 16)),
    "tf.signal.rfft": (lambda: lambda x: tf.abs(tf.signal.rfft(x)), (2, 16)),
    "tf.signal.stft": (lambda: lambda x: tf.abs(tf.signal.stft(x, 8, 4)), (2, 32)),
    "tf.signal.dct": (lambda: tf.signal.dct, (2, 16)),
    "tf.signal.hann_window": (lambda: lambda x: x * tf.signal.hann_window(16), (2, 16)),
    # tf.linalg
    "tf.linalg.matmul": (lambda: lambda x: tf.linalg.matmul(x, x, transpose_a=True), MAT),
    "tf.linalg.inv": (lambda: lambda x: tf.linalg.inv(_spd(x)), MAT),
    "tf.linalg.det": (lambda: lambda x: tf.linalg.det(_spd(x)), MAT),
    "tf.linalg.slogdet": (lambda: lambda x: tf.linalg.slogdet(_spd(x))[1], MAT),
    "tf.linalg.cholesky": (lambda: lambda x: tf.linalg.cholesky(_spd(x)), MAT),
    "tf.linalg.qr": (lambda: lambda x: tf.linalg.qr(x)[1], MAT),
    "tf.linalg.svd": (lambda: lambda x: tf.linalg.svd(x, compute_uv=False), MAT),
    "tf.linalg.eigh": (lambda: lambda x: tf.linalg.eigh(_spd(x))[0], MAT),
    "tf.linalg.solve": (lambda: lambda x: tf.linalg.solve(_spd(x), x), MAT),
    "tf.linalg.triangular_solve": (lambda: lambda x: tf.linalg.triangular_solve(
        tf.linalg.band_part(_spd(x), -1, 0), x), MAT),
    "tf.linalg.trace": (lambda: tf.linalg.trace, MAT),
    "tf.linalg.diag_part": (lambda: tf.linalg.diag_part, MAT),
    "tf.linalg.norm": (lambda: lambda x: tf.linalg.norm(x, axis=[-2, -1]), MAT),
    "tf.linalg.lstsq": (lambda: lambda x: tf.linalg.lstsq(_spd(x), x), MAT),
    "tf.linalg.pinv": (lambda: tf.linalg.pinv, MAT),
    "tf.linalg.expm": (lambda: lambda x: tf.linalg.expm(x * 0.1), MAT),
}
"""Program name -> (a maker of the function, its input shape): one float32 input each."""


@dataclass(frozen=True)
class Result:
    ops: tuple[str, ...]
    """The raw ops the program's graph holds (of the functions it calls too)."""
    missing: dict[str, str]
    """Raw op -> why it did not import (empty when the program imports)."""


@functools.cache
def classify(name: str) -> Result:
    """Trace program `name` with TF and import it (not lowered)."""
    make, shape = PROGRAMS[name]
    fn = make()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    keras.utils.set_random_seed(0)
    fn(tf.constant(x))  # builds a layer's weights
    graph = tf.function(fn).get_concrete_function(tf.TensorSpec(shape, tf.float32)).graph
    ops = tuple(sorted(_op_types(graph) - BOOKKEEPING))
    try:
        ivy_ir.trace(fn, (tf.constant(x),), source="tensorflow")
    except UnsupportedOpsError as exc:
        missing = {}
        for entry in exc.missing:
            op, _, why = entry.partition(" (")
            missing[op] = why[:-1] if why else NO_MAPPING
        return Result(ops, missing)
    return Result(ops, {})


def _op_types(graph: Any) -> set[str]:
    types = {op.type for op in graph.get_operations()}
    for function in getattr(graph, "_functions", {}).values():
        types |= _op_types(function.graph)
    return types


def render() -> str:
    """The TensorFlow coverage section of `docs/import_matrix.md`."""
    results = {name: classify(name) for name in PROGRAMS}
    ops: dict[str, list[str]] = {}
    for name, result in results.items():
        for op in result.ops:
            ops.setdefault(op, []).append(name)
    why: dict[str, list[str]] = {}
    for result in results.values():
        for op, reason in result.missing.items():
            reason = REASONS.get(op, reason) if reason == NO_MAPPING else reason
            if reason not in why.setdefault(op, []):
                why[op].append(reason)
    whole = [n for n, r in results.items() if not r.missing]
    lines = [
        SECTION,
        "",
        "Generated by `scripts/gen_import_matrix.py` from `tests/tf_coverage.py` (checked by",
        "`tests/test_tf_coverage.py`). Each program (one Keras layer or library function",
        f"on a small float32 input; Keras {keras.__version__}, TensorFlow "
        f"{tf.__version__}) is traced by",
        "TensorFlow and imported with `ivy_ir.trace`; an op counts as imported unless the",
        "importer reported it (no mapping, or a variant its rule refuses: the reason).",
        "",
        f"**{len(ops) - len(why)} of the {len(ops)} raw ops these programs emit import in "
        "every use; "
        f"{len(whole)} of the {len(results)} programs import whole.**",
        "",
        "Imported: " + ", ".join(f"`{op}`" for op in sorted(ops) if op not in why) + ".",
        "",
        "| raw op not imported (in some use) | reason | emitted by |",
        "|---|---|---|",
    ]
    lines += [f"| `{op}` | {_cell('; '.join(why[op]))} | {', '.join(ops.get(op, ['?']))} |"
              for op in sorted(why)]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def documented(text: str) -> str:
    """The TensorFlow section of the document's `text`."""
    return section(text, SECTION)
