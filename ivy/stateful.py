"""The stateful half of the facade, as the `ivy` module exports it: containers,
gradients, modules, layers, initializers and optimizers (none imports a framework)."""

from __future__ import annotations

from .container import Container
from .gradients import execute_with_gradients, is_variable, stop_gradient, variable
from .initializers import (
    Constant,
    FirstLayerSiren,
    GlorotNormal,
    GlorotUniform,
    Initializer,
    KaimingNormal,
    KaimingUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    Siren,
    Uniform,
    VarianceScaling,
    Zeros,
)
from .layers import ACTIVATIONS, Dropout, Embedding, Linear, Sequential
from .layers_attention import MultiHeadAttention
from .layers_conv import (
    AvgPool2D,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    DepthwiseConv2D,
    MaxPool2D,
)
from .layers_norm import BatchNorm2D, LayerNorm
from .layers_recurrent import GRU, LSTM, gru_update, lstm_update
from .module import Module
from .optimizers import (
    LAMB,
    LARS,
    SGD,
    Adam,
    AdamW,
    Optimizer,
    adam_update,
    gradient_descent_update,
    lamb_update,
    lars_update,
)

EXPORTS = {"Container": Container, "Module": Module, "variable": variable,
           "is_variable": is_variable, "stop_gradient": stop_gradient,
           "execute_with_gradients": execute_with_gradients,
           "Optimizer": Optimizer, "SGD": SGD, "Adam": Adam, "AdamW": AdamW, "LAMB": LAMB,
           "LARS": LARS, "gradient_descent_update": gradient_descent_update,
           "adam_update": adam_update, "lamb_update": lamb_update, "lars_update": lars_update,
           "Initializer": Initializer, "Constant": Constant, "Zeros": Zeros, "Ones": Ones,
           "Uniform": Uniform, "RandomNormal": RandomNormal, "VarianceScaling": VarianceScaling,
           "GlorotUniform": GlorotUniform, "GlorotNormal": GlorotNormal,
           "KaimingNormal": KaimingNormal, "KaimingUniform": KaimingUniform, "Siren": Siren,
           "FirstLayerSiren": FirstLayerSiren, "Orthogonal": Orthogonal,
           "Linear": Linear, "Embedding": Embedding, "Dropout": Dropout,
           "Sequential": Sequential, "LayerNorm": LayerNorm, "BatchNorm2D": BatchNorm2D,
           "Conv1D": Conv1D, "Conv2D": Conv2D, "Conv3D": Conv3D,
           "Conv2DTranspose": Conv2DTranspose, "DepthwiseConv2D": DepthwiseConv2D,
           "MaxPool2D": MaxPool2D, "AvgPool2D": AvgPool2D, "LSTM": LSTM, "GRU": GRU,
           "lstm_update": lstm_update, "gru_update": gru_update,
           "MultiHeadAttention": MultiHeadAttention, **ACTIVATIONS}
