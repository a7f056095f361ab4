"""The stateful half of the facade, as the `ivy` module exports it: containers,
gradients, modules, layers, initializers and optimizers (none imports a framework)."""

from __future__ import annotations

from .container import Container
from .gradients import execute_with_gradients, is_variable, stop_gradient, variable
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
           "adam_update": adam_update, "lamb_update": lamb_update, "lars_update": lars_update}
