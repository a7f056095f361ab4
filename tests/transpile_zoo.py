"""The transpile zoo: models from the libraries users have (timm, transformers, Keras,
Flax), each with its source framework's own forward, gradient and SGD step, and the
same three for what `ivy.transpile` hands back to torch, JAX and TensorFlow users.

Both sides go through one interface (`Side`), so a pair is checked by comparing two
`Side`s: outputs, gradients of `loss = sum over outputs of mean(o**2)` (all are float:
hidden states, pooled outputs, logits) keyed by parameter name, parameter names, and
the losses of `STEPS` SGD steps. Every builder is seeded and names what it builds
(Keras layers by hand), so a second build has the same weights and names: each pair
starts from a fresh source. Nothing is downloaded; models are in eval mode (dropout
off, batch norm reading its randomized running statistics).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

STEPS = 20


def _image(*shape: int) -> Callable[[], np.ndarray]:
    return lambda: np.random.default_rng(1).standard_normal(shape).astype(np.float32)


def _np(x: Any) -> np.ndarray:
    x = x.detach() if hasattr(x, "detach") else x
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _seq(out: Any) -> list[Any]:
    """A model call's outputs as a list: one tensor, a tuple/list, or a transformers
    `ModelOutput` (its non-None fields in order, as a traced model returns them)."""
    if hasattr(out, "to_tuple"):
        return list(out.to_tuple())
    return list(out) if isinstance(out, (tuple, list)) else [out]


class Side(Protocol):
    """A model as its framework's user drives it: `names` are the trainable parameters'
    names, `state_names` everything a checkpoint of it holds; `grads` gives the loss and
    d loss / d parameter by name, `step` one SGD step and the loss before it."""

    names: list[str]
    state_names: list[str]

    def outputs(self, x: np.ndarray) -> list[np.ndarray]: ...
    def grads(self, x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]: ...
    def step(self, x: np.ndarray, lr: float) -> float: ...


class TorchSide:
    def __init__(self, module: Any):
        import torch
        self.torch, self.module = torch, module
        self.names = [n for n, p in module.named_parameters() if p.requires_grad]
        self.state_names = list(module.state_dict())
        self.opt = torch.optim.SGD(module.parameters(), lr=0.0)

    def outputs(self, x: np.ndarray) -> list[np.ndarray]:
        with self.torch.no_grad():
            return [_np(o) for o in _seq(self.module(self.torch.from_numpy(x.copy())))]

    def grads(self, x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        self.module.zero_grad()
        loss = sum(o.float().square().mean() for o in _seq(self.module(self.torch.from_numpy(
            x.copy()))))
        loss.backward()
        zero = self.torch.zeros_like  # the gradient of a parameter the loss never reads
        return float(loss.detach()), {n: _np(zero(p) if p.grad is None else p.grad).copy()
                                      for n, p in self.module.named_parameters()
                                      if p.requires_grad}

    def step(self, x: np.ndarray, lr: float) -> float:
        self.opt.param_groups[0]["lr"] = lr
        loss, _ = self.grads(x)
        self.opt.step()
        return loss


class JaxSide:
    """A pure `apply(params, x)` with its parameter tree; `prefix` names the tree inside
    the source's variables (a Flax module's `params.`), `state` is all of them."""

    def __init__(self, apply: Callable[..., Any], params: Any, prefix: str = "",
                 state: Any = None):
        import jax
        self.jax, self.apply, self.params, self.prefix = jax, apply, params, prefix
        self.names = [prefix + k for k in flat(params)]
        self.state_names = list(flat(state)) if state is not None else self.names

        def loss(p: Any, x: Any) -> Any:
            return sum((o.astype("float32") ** 2).mean() for o in _seq(apply(p, x)))
        self._value_and_grad = jax.jit(jax.value_and_grad(loss))

    def outputs(self, x: np.ndarray) -> list[np.ndarray]:
        return [_np(o) for o in _seq(self.apply(self.params, self.jax.numpy.asarray(x)))]

    def grads(self, x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        loss, grads = self._value_and_grad(self.params, self.jax.numpy.asarray(x))
        return float(loss), {self.prefix + k: _np(g) for k, g in flat(grads).items()}

    def step(self, x: np.ndarray, lr: float) -> float:
        loss, grads = self._value_and_grad(self.params, self.jax.numpy.asarray(x))
        self.params = self.jax.tree_util.tree_map(lambda p, g: p - lr * g, self.params, grads)
        return float(loss)


def flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    """A nested dict's leaves by dotted path (Flax's FrozenDicts included)."""
    if not hasattr(tree, "items"):
        return {prefix[:-1]: tree}
    return {k: v for key, sub in tree.items() for k, v in flat(sub, f"{prefix}{key}.").items()}


class KerasSide:
    """A Keras model or layer, trained with `tf.GradientTape` and Keras' SGD. A Keras
    source names its weights by `path` (`cnn/conv1/kernel`); the transpiled layer's
    weights carry the source names in `name`."""

    def __init__(self, layer: Any, by: str = "path"):
        import keras
        import tensorflow as tf
        self.tf, self.layer = tf, layer
        self.names = [getattr(w, by) for w in layer.trainable_weights]
        self.state_names = [getattr(w, by) for w in layer.weights]
        self.opt = keras.optimizers.SGD()

    def outputs(self, x: np.ndarray) -> list[np.ndarray]:
        return [_np(o) for o in _seq(self.layer(self.tf.constant(x), training=False))]

    def _tape(self, x: np.ndarray) -> tuple[float, list[Any]]:
        tf = self.tf
        with tf.GradientTape() as tape:
            out = self.layer(tf.constant(x), training=False)
            loss = tf.add_n([tf.reduce_mean(tf.square(o)) for o in _seq(out)])
        ws = self.layer.trainable_weights  # None: a weight the loss never reads, so zero
        return float(loss), [tf.zeros_like(w) if g is None else tf.convert_to_tensor(g)
                             for g, w in zip(tape.gradient(loss, ws), ws)]

    def grads(self, x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        loss, grads = self._tape(x)
        return loss, {n: _np(g) for n, g in zip(self.names, grads)}

    def step(self, x: np.ndarray, lr: float) -> float:
        self.opt.learning_rate = lr
        loss, grads = self._tape(x)
        self.opt.apply_gradients(zip(grads, self.layer.trainable_weights))
        return loss


@dataclass
class Built:
    model: Any
    params_v: Any
    x: np.ndarray
    source: Side


@dataclass
class Entry:
    name: str
    source: str
    build: Callable[[], Built]
    needs: str
    lr: float = 0.05


def _torch(make: Callable[[], Any], x: Callable[[], np.ndarray]) -> Callable[[], Built]:
    def build() -> Built:
        import torch
        register_torchvision_schemas()
        torch.manual_seed(0)
        model, g = make().eval(), torch.Generator().manual_seed(2)
        for m in model.modules():  # batch-norm statistics that are not the identity
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.copy_(torch.rand(m.num_features, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
        return Built(model, None, x(), TorchSide(model))
    return build


def _timm(name: str, **kwargs: Any) -> Callable[[], Built]:
    return _torch(lambda: importlib.import_module("timm").create_model(
        name, pretrained=False, **kwargs), _image(2, 3, 32, 32))


def _hf(model: str, config: str, **cfg: Any) -> Callable[[], Built]:
    """A transformers model of a small config (128 tokens) on 2 x 8 token ids."""
    tr = lambda: importlib.import_module("transformers")  # noqa: E731 - import late
    return _torch(lambda: getattr(tr(), model)(getattr(tr(), config)(**cfg)),
                  lambda: np.random.default_rng(1).integers(0, 128, (2, 8)))


def _keras(make: Callable[[Any], Any], x: Callable[[], np.ndarray]) -> Callable[[], Built]:
    def build() -> Built:
        import keras
        keras.utils.set_random_seed(0)
        model, rng = make(keras), np.random.default_rng(2)
        for layer in model.layers:
            if isinstance(layer, keras.layers.BatchNormalization):
                n = layer.gamma.shape[0]
                layer.moving_mean.assign(rng.uniform(-0.5, 0.5, n).astype(np.float32))
                layer.moving_variance.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))
        return Built(model, None, x(), KerasSide(model))
    return build


def _keras_cnn(keras: Any) -> Any:
    L = keras.layers
    return keras.Sequential([
        keras.Input((16, 16, 3)), L.Conv2D(8, 3, padding="same", name="conv1"),
        L.BatchNormalization(name="bn1"), L.ReLU(name="relu1"), L.MaxPooling2D(name="pool"),
        L.Conv2D(16, 3, strides=2, name="conv2"), L.GlobalAveragePooling2D(name="gap"),
        L.Dense(10, name="head")], name="cnn")


def _keras_transformer(keras: Any) -> Any:
    """A post-norm encoder block with a linear head: a loss on a LayerNorm's output
    alone is nearly constant (unit variance), and its gradients nearly zero."""
    L = keras.layers
    x = keras.Input((8, 32), name="tokens")
    h = L.MultiHeadAttention(num_heads=4, key_dim=8, name="attn")(x, x)
    h = L.LayerNormalization(epsilon=1e-5, name="ln1")(L.Add(name="add1")([x, h]))
    f = L.Dense(32, name="ff2")(L.Dense(64, activation="gelu", name="ff1")(h))
    h = L.LayerNormalization(epsilon=1e-5, name="ln2")(L.Add(name="add2")([h, f]))
    return keras.Model(x, L.Dense(16, name="head")(h), name="encoder")


def _flax(make: Callable[[Any], Any], x: Callable[[], np.ndarray]) -> Callable[[], Built]:
    def build() -> Built:
        import flax.linen as nn
        import jax
        module, data, rng = make(nn), x(), np.random.default_rng(2)

        def init(path: Any, leaf: Any) -> np.ndarray:
            """Flax's kind of values from NumPy: `module.init` compiles an XLA program
            per initializer (seconds on a busy CPU); batch statistics not the identity."""
            kind, shape = path[-1].key, leaf.shape
            if kind in ("mean", "bias"):
                value = rng.uniform(-0.5, 0.5, shape) * (0.2 if kind == "bias" else 1)
            elif kind in ("var", "scale"):
                value = rng.uniform(0.5, 1.5, shape)
            else:  # a kernel: LeCun normal over the input axes
                value = rng.standard_normal(shape) / np.sqrt(np.prod(shape[:-1]))
            return value.astype(np.float32)
        shapes = jax.eval_shape(module.init, jax.random.PRNGKey(0), data)
        variables = jax.tree_util.tree_map_with_path(init, shapes)
        rest = {k: v for k, v in variables.items() if k != "params"}

        def apply(params: Any, x: Any) -> Any:
            return module.apply({"params": params, **rest}, x)
        side = JaxSide(apply, variables["params"], "params.", state=variables)
        return Built(module, variables, data, side)
    return build


def _flax_cnn(nn: Any) -> Any:
    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            x = nn.relu(nn.BatchNorm(use_running_average=True)(nn.Conv(8, (3, 3))(x)))
            x = nn.relu(nn.Conv(16, (3, 3), strides=(2, 2))(nn.avg_pool(x, (2, 2), (2, 2))))
            return nn.Dense(10)(x.reshape(x.shape[0], -1))
    return CNN()


def _flax_transformer(nn: Any) -> Any:
    class Block(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            x = x + nn.MultiHeadDotProductAttention(num_heads=4, deterministic=True)(
                nn.LayerNorm()(x))
            return x + nn.Dense(32)(nn.gelu(nn.Dense(64)(nn.LayerNorm()(x))))
    return Block()


ZOO: list[Entry] = [
    Entry("resnet18", "torch", _timm("resnet18"), "timm"),
    Entry("mobilenetv3_small_050", "torch", _timm("mobilenetv3_small_050"), "timm"),
    Entry("vit_tiny", "torch", _timm("vit_tiny_patch16_224", img_size=32), "timm"),
    Entry("convnext_atto", "torch", _timm("convnext_atto"), "timm"),
    Entry("bert", "torch", _hf("BertModel", "BertConfig", vocab_size=128, hidden_size=64,
                               num_hidden_layers=2, num_attention_heads=2,
                               intermediate_size=128, max_position_embeddings=32,
                               pad_token_id=None), "transformers"),
    Entry("gpt2", "torch", _hf("GPT2LMHeadModel", "GPT2Config", vocab_size=128,
                               n_positions=32, n_embd=64, n_layer=2, n_head=2,
                               use_cache=False), "transformers"),
    Entry("llama", "torch", _hf("LlamaForCausalLM", "LlamaConfig", vocab_size=128,
                                hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                num_attention_heads=4, num_key_value_heads=2,
                                max_position_embeddings=32, use_cache=False), "transformers"),
    Entry("keras_cnn", "tensorflow", _keras(_keras_cnn, _image(2, 16, 16, 3)), "keras"),
    Entry("keras_transformer", "tensorflow", _keras(_keras_transformer, _image(2, 8, 32)),
          "keras"),
    Entry("flax_cnn", "jax", _flax(_flax_cnn, _image(2, 16, 16, 3)), "flax"),
    Entry("flax_transformer", "jax", _flax(_flax_transformer, _image(2, 8, 32)), "flax"),
]
BY_NAME = {e.name: e for e in ZOO}


def missing(entry: Entry) -> str | None:
    """Why the entry cannot run here (its library does not import), or None."""
    try:
        if entry.source == "torch":
            register_torchvision_schemas()
        importlib.import_module(entry.needs)
    except Exception as e:  # noqa: BLE001 - whatever stops the import: not here
        return f"{entry.needs} does not import: {type(e).__name__}: {e}"
    return None


def register_torchvision_schemas() -> None:
    """Declare `torchvision::nms`/`qnms` when no kernel library did (the CUDA-built
    torchvision wheel on this CPU torch), so that `import torchvision` (done by timm and
    transformers) works; the zoo never runs those ops."""
    import torch
    lib = None
    for name in ("nms", "qnms"):
        try:
            _ = getattr(torch.ops.torchvision, name).default
        except (AttributeError, RuntimeError):
            lib = lib or torch.library.Library("torchvision", "DEF")
            lib.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    if lib is not None:
        _LIBS.append(lib)  # a Library drops its definitions when collected


_LIBS: list[Any] = []


OUT_TOL = (1e-4, 1e-5)
"""(rtol, atol) of outputs: float32 kernels differ in summation order across
frameworks (matmul, conv, attention, norms)."""
GRAD_RTOL = 1e-4
GRAD_ATOL = 1e-5
"""Times the source's largest gradient entry (over all parameters). Backprop rounds
each entry by float32 eps times the terms it sums, which scale with the largest
gradients; an entry that cancels to near zero keeps only that noise (a key projection's
bias has an exact zero gradient under softmax, computed as ~1e-13 on both sides), so
no relative bound holds there."""
LOSS_RTOL = 1e-3
"""Per step: |target loss - source loss| <= LOSS_RTOL * |source loss|."""


@dataclass
class Record:
    """What one side showed: outputs, gradients by name, trainable parameter names,
    checkpoint names (a torch target's `state_dict()` keys), and the losses before each
    of `STEPS` SGD steps and after the last."""
    out: list[np.ndarray]
    grads: dict[str, np.ndarray]
    names: list[str]
    state: list[str] | None
    losses: list[float]


def record(side: Side, x: np.ndarray, lr: float, state: list[str] | None) -> Record:
    out, (_, grads) = side.outputs(x), side.grads(x)
    losses = [side.step(x, lr) for _ in range(STEPS)]
    return Record(out, grads, side.names, state, [*losses, side.grads(x)[0]])


def grad_atol(want: Record) -> float:
    return GRAD_ATOL * max(float(np.abs(g).max(initial=0)) for g in want.grads.values())


def target_side(entry: Entry, built: Built, to: str) -> tuple[Side, list[str] | None]:
    import ivy
    out = ivy.transpile(built.model, source=entry.source, to=to, args=(built.x,),
                        params_v=built.params_v)
    if to == "torch":
        return TorchSide(out), list(out.state_dict())
    if to == "jax":
        return JaxSide(out[1], out[0]), None
    return KerasSide(out, by="name"), None


def spelled(names: list[str], to: str) -> list[str]:
    """Source names as the target spells them: a Keras weight's name cannot hold '/'
    (read as '_'); torch and JAX keep them."""
    return [n.replace("/", "_") for n in names] if to == "tensorflow" else list(names)


def run_pair(entry: Entry, to: str) -> tuple[Record, Record]:
    """(source, target) records of a fresh build transpiled to `to`, the source's names
    spelled as the target spells them. The source trains first: a target sharing
    storage with it would start from trained weights and show it."""
    built = entry.build()
    target, state = target_side(entry, built, to)
    want = record(built.source, built.x, entry.lr, built.source.state_names)
    want.names = spelled(want.names, to)
    want.grads = dict(zip(spelled(list(want.grads), to), want.grads.values()))
    return want, record(target, built.x, entry.lr, state)
