"""A torch model, transpiled to TensorFlow by ivy_ir, trained under
`tf.distribute.MirroredStrategy` over 2 logical CPU devices.

The transpiled result is a Keras layer whose weights are created when it is
transpiled, so transpiling inside `strategy.scope()` makes them mirrored variables,
one copy per replica, as for any Keras layer built in the scope. It is trained for
5 SGD steps (batches of 16, 8 per replica) two ways, each against the same model
trained on one device from the same weights:

1. Keras' idiom: a functional `keras.Model` around the layer, `compile` and `fit`;
2. a custom loop: `strategy.run` of a `tf.GradientTape` step on each replica's half
   batch, the loss scaled by the global batch (`tf.nn.compute_average_loss`) so the
   summed replica gradients are the whole batch's.

Logical devices must be configured before TensorFlow initialises its devices: run
this file in a fresh process.

    python examples/scale/tf_mirrored.py     # exit status 1 on a mismatch
"""

from __future__ import annotations

import sys
import time

import numpy as np
import tensorflow as tf

REPLICAS, BATCH, FEATURES, STEPS, LR = 2, 16, 16, 5, 0.1
TOLERANCE = 1e-6
"""Float32: the replicas' gradients are summed in another order than one device's."""

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0],
    [tf.config.LogicalDeviceConfiguration()] * REPLICAS)

import keras  # noqa: E402  (after the logical devices: Keras initialises TensorFlow's)
import torch  # noqa: E402

import ivy  # noqa: E402


def transpiled_model(source: torch.nn.Module, example: np.ndarray) -> keras.Model:
    """The torch model as a Keras layer inside a functional model, compiled for SGD."""
    layer = ivy.transpile(source, to="tensorflow", args=(torch.tensor(example),))
    inputs = keras.Input((FEATURES,))
    model = keras.Model(inputs, layer(inputs))
    model.compile(optimizer=keras.optimizers.SGD(LR), loss="mse")
    return model


def custom_loop(strategy: tf.distribute.Strategy, model: keras.Model, x, y) -> set:
    """5 steps of `strategy.run`; returns the per-replica batch shapes seen."""
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    shapes = set()

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean((model(xb) - yb) ** 2, axis=-1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return tf.shape(xb)

    for xb, yb in strategy.experimental_distribute_dataset(data):
        seen = strategy.run(step, args=(xb, yb))
        shapes |= {tuple(int(d) for d in s.numpy())
                   for s in strategy.experimental_local_results(seen)}
    return shapes


def max_difference(a: keras.Model, b: keras.Model) -> float:
    return max(float(np.max(np.abs(np.asarray(u) - np.asarray(v))))
               for u, v in zip(a.weights, b.weights))


def main() -> int:
    start = time.perf_counter()
    torch.manual_seed(0)
    source = torch.nn.Sequential(torch.nn.Linear(FEATURES, 64), torch.nn.Tanh(),
                                 torch.nn.Linear(64, 1))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((STEPS * BATCH, FEATURES), np.float32)
    y = rng.standard_normal((STEPS * BATCH, 1), np.float32)

    single = transpiled_model(source, x[:BATCH])
    initial = [np.asarray(w) for w in single.weights]
    single.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)

    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(REPLICAS)])
    with strategy.scope():
        fitted = transpiled_model(source, x[:BATCH])
        looped = transpiled_model(source, x[:BATCH])
    mirrored = type(fitted.weights[0].value).__name__
    fitted.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    shapes = custom_loop(strategy, looped, x, y)

    moved = max(float(np.max(np.abs(np.asarray(w) - w0)))
                for w, w0 in zip(single.weights, initial))
    figures = {"fit": max_difference(single, fitted),
               "strategy.run": max_difference(single, looped)}
    for name, diff in figures.items():
        print(f"{name}: {strategy.num_replicas_in_sync} replicas, max parameter difference "
              f"vs one device {diff:.3g} (parameters moved by up to {moved:.3g})")
    print(f"variables: {mirrored}; per-replica batches {sorted(shapes)}; "
          f"elapsed {time.perf_counter() - start:.1f} s")
    if mirrored != "MirroredVariable" or shapes != {(BATCH // REPLICAS, FEATURES)}:
        print("MISMATCH: the model was not replicated over the devices", file=sys.stderr)
        return 1
    if not all(d <= TOLERANCE for d in figures.values()) or not moved > 1e-3:
        print(f"MISMATCH: mirrored training differs from one device by more than "
              f"{TOLERANCE} (or training did not move the parameters)", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
