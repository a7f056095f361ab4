"""The zoo's Keras models: every `keras.applications` architecture with random weights
(`weights=None`), 10 logits (`classifier_activation=None`: a softmax over random
logits would hide their errors) and the smallest input it accepts, and small models
built around the layers users report: `Resizing`, dilated convolutions,
`UpSampling2D`, and functional models of several inputs called with a list or a dict.

Batch-norm moving statistics are randomized, as for the torch models. Applications
that normalize their input themselves (EfficientNet, ConvNeXt, MobileNetV3) get pixel
values in [0, 255]; the rest values in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from model_zoo_core import Built, Model

SIZES = {"InceptionV3": 75, "InceptionResNetV2": 75, "Xception": 71}
"""The smallest input of the applications whose stem needs more than 32 px."""
SCALED = ("EfficientNet", "ConvNeXt", "MobileNetV3")

APPLICATIONS = [
    "ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge",
    "DenseNet121", "DenseNet169", "DenseNet201",
    *[f"EfficientNetB{i}" for i in range(8)],
    *[f"EfficientNetV2{v}" for v in ("B0", "B1", "B2", "B3", "S", "M", "L")],
    "InceptionResNetV2", "InceptionV3", "MobileNet", "MobileNetV2", "MobileNetV3Small",
    "MobileNetV3Large", "NASNetMobile", "NASNetLarge", "ResNet50", "ResNet101", "ResNet152",
    "ResNet50V2", "ResNet101V2", "ResNet152V2", "VGG16", "VGG19", "Xception",
]
"""All of `keras.applications` (Keras 3.15: 40 models)."""


def randomize_batchnorm(model: Any) -> None:
    import keras
    rng = np.random.default_rng(2)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.moving_mean.shape[0]
            layer.moving_mean.assign(rng.uniform(-0.5, 0.5, n).astype(np.float32))
            layer.moving_variance.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))


def keras_model(make: Callable[[Any], Any], inputs: Callable[[], Any],
                call: Any = None) -> Callable[[], Built]:
    """A builder: a seeded Keras model, its input (one array, a list or a dict of
    them, passed as the first argument as Keras users do) and its own eval call."""
    def build() -> Built:
        import keras
        keras.utils.set_random_seed(0)
        model = make(keras)
        randomize_batchnorm(model)
        x = inputs()
        return Built(model, (x,), lambda: model(x, training=False), call=call)
    return build


def _positional(compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The documented call of a model of several inputs (`importers/tensorflow_keras.py`):
    compiled from Keras' list, called with the arrays as positional arguments."""
    return compiled(*args[0])


def _keyword(compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Compiled from Keras' dict, called with the arrays as keyword arguments."""
    return compiled(**args[0])


def _uniform(*shape: int, low: float = -1.0, high: float = 1.0) -> Callable[[], np.ndarray]:
    return lambda: np.random.default_rng(1).uniform(low, high, shape).astype(np.float32)


def ordered_init(model: Any) -> Any:
    """Convolution kernels scaled by sqrt(1/2): variance 1/fan instead of 2/fan.
    EfficientNetV2 draws its kernels with He's gain (`VarianceScaling(2.0)`, critical
    for ReLU) but activates with SiLU, whose critical gain is lower, so its random
    weights sit in the chaotic phase: through 200+ layers in eval mode a 1-ulp change
    of the input moves V2-L's logits by 75% (V2-M 75%, V2-S 3e-5), and no two float32
    implementations can agree. At variance 1/fan the same change moves them by ~1e-6."""
    import keras
    for layer in model.layers:
        if isinstance(layer, (keras.layers.Conv2D, keras.layers.DepthwiseConv2D)):
            layer.kernel.assign(layer.kernel * np.float32(np.sqrt(0.5)))
    return model


def _application(name: str) -> Model:
    size = SIZES.get(name, 32)
    low, high = (0.0, 255.0) if name.startswith(SCALED) else (-1.0, 1.0)
    init = ordered_init if name.startswith("EfficientNetV2") else (lambda model: model)
    make = lambda keras: init(getattr(keras.applications, name)(  # noqa: E731
        weights=None, input_shape=(size, size, 3), classes=10, classifier_activation=None))
    return Model(name, "keras.applications",
                 keras_model(make, _uniform(1, size, size, 3, low=low, high=high)), "keras")


def _resizing(keras: Any, *resizes: dict[str, Any]) -> Any:
    """A conv between `Resizing` layers: (height, width, keyword arguments) each."""
    L = keras.layers
    x = keras.Input((12, 10, 3))
    h = L.Resizing(**resizes[0])(x)
    h = L.Conv2D(4, 3, padding="same")(h)
    for kwargs in resizes[1:]:
        h = L.Resizing(**kwargs)(h)
    return keras.Model(x, L.Conv2D(2, 3)(h))


def _dilated(keras: Any) -> Any:
    L = keras.layers
    x = keras.Input((16, 16, 3))
    h = L.Conv2D(8, 3, dilation_rate=2, padding="same", activation="relu")(x)
    h = L.Conv2D(8, 3, dilation_rate=(2, 3), padding="valid")(h)
    h = L.DepthwiseConv2D(3, dilation_rate=2, padding="same")(h)
    h = L.SeparableConv2D(4, 3, dilation_rate=2)(h)
    return keras.Model(x, L.Conv1D(3, 2, dilation_rate=2)(L.Reshape((-1, 4))(h)))


def _upsampling(keras: Any, *layers: tuple[Any, str]) -> Any:
    """A conv, then `UpSampling2D(size, interpolation=...)` for each of `layers`."""
    L = keras.layers
    x = keras.Input((6, 5, 3))
    h = L.Conv2D(4, 3, padding="same")(x)
    for size, interpolation in layers:
        h = L.UpSampling2D(size, interpolation=interpolation)(h)
    return keras.Model(x, L.Conv2D(2, 3, strides=2)(h))


def _two_inputs(keras: Any, names: tuple[str, str] | None = None) -> Any:
    L = keras.layers
    image = keras.Input((8, 8, 3), name=names[0] if names else None)
    meta = keras.Input((5,), name=names[1] if names else None)
    h = L.GlobalAveragePooling2D()(L.Conv2D(6, 3, activation="relu")(image))
    h = L.Concatenate()([h, L.Dense(6, activation="tanh")(meta)])
    return keras.Model([image, meta] if names is None else {n: t for n, t in
                                                            zip(names, (image, meta))},
                       [L.Dense(4)(h), L.Dense(1)(h)])


def _sequential(keras: Any, shape: tuple[int, ...], *layers: Any) -> Any:
    x = keras.Input(shape)
    h = x
    for layer in layers:
        h = layer(h)
    return keras.Model(x, h)


def _recurrent(keras: Any) -> Any:
    """The recurrent layers over one sequence: a bidirectional LSTM, a GRU without
    `reset_after`, a SimpleRNN running backwards."""
    L = keras.layers
    x = keras.Input((5, 4))
    h = L.Bidirectional(L.LSTM(6, return_sequences=True))(x)
    h = L.GRU(5, reset_after=False, return_sequences=True)(h)
    return keras.Model(x, L.SimpleRNN(3, go_backwards=True)(h))


def _list_inputs() -> list[np.ndarray]:
    return [_uniform(2, 8, 8, 3)(), _uniform(2, 5)()]


def _keras(name: str, make: Callable[[Any], Any], inputs: Callable[[], Any],
           call: Any = None) -> Model:
    return Model(name, "keras", keras_model(make, inputs, call), "keras")


KERAS_APPLICATIONS = [_application(n) for n in APPLICATIONS]

KERAS_LAYERS = [
    _keras("keras_resizing", lambda keras: _resizing(
        keras, dict(height=20, width=16), dict(height=9, width=7),
        dict(height=16, width=16, crop_to_aspect_ratio=True)), _uniform(2, 12, 10, 3)),
    _keras("keras_resizing_nearest", lambda keras: _resizing(
        keras, dict(height=24, width=20, interpolation="nearest"),
        dict(height=9, width=7, interpolation="nearest")), _uniform(2, 12, 10, 3)),
    _keras("keras_dilated_conv", _dilated, _uniform(2, 16, 16, 3)),
    _keras("keras_upsampling2d", lambda keras: _upsampling(
        keras, (2, "bilinear"), ((2, 3), "nearest")), _uniform(2, 6, 5, 3)),
    _keras("keras_upsampling2d_bicubic", lambda keras: _upsampling(keras, (2, "bicubic")),
           _uniform(2, 6, 5, 3)),
    _keras("keras_multi_input_list", _two_inputs, _list_inputs, _positional),
    _keras("keras_multi_input_dict", lambda keras: _two_inputs(keras, ("image", "meta")),
           lambda: dict(zip(("image", "meta"), _list_inputs())), _keyword),
    # the compiled program called with the list, as the Keras model itself is
    _keras("keras_multi_input_called_with_list", _two_inputs, _list_inputs),
    _keras("keras_recurrent", _recurrent, _uniform(2, 5, 4)),
    _keras("keras_conv_lstm2d", lambda keras: _sequential(
        keras, (3, 6, 6, 2), keras.layers.ConvLSTM2D(4, 3, padding="same"),
        keras.layers.GroupNormalization(groups=2)), _uniform(2, 3, 6, 6, 2)),
    _keras("keras_discretization", lambda keras: _sequential(
        keras, (6,), keras.layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.25])),
        _uniform(2, 6)),
]
