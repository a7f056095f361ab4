"""Training parity across frameworks, the CI subset of the transpile zoo: a
transformers BERT to JAX and TensorFlow, a Keras CNN to torch and JAX, a Flax CNN to
torch and TensorFlow, and a Llama to torch itself. For each pair, the transpiled model
must compute the source's outputs, the source's gradient for every parameter under the
source's parameter name, and follow the source through `STEPS` SGD steps.

The full matrix (every zoo model to every target) is `scripts/transpile_zoo.py`, whose
results are in `docs/transpile_zoo.md`; both use the tolerances of `transpile_zoo`.
"""

from __future__ import annotations

import numpy as np
import pytest
import transpile_zoo as zoo

PAIRS = [("bert", "jax"), ("bert", "tensorflow"), ("keras_cnn", "torch"),
         ("keras_cnn", "jax"), ("flax_cnn", "torch"), ("flax_cnn", "tensorflow"),
         ("llama", "torch")]
_runs: dict[tuple[str, str], tuple[zoo.Record, zoo.Record]] = {}


@pytest.fixture(params=PAIRS, ids=[f"{m}-to-{t}" for m, t in PAIRS])
def pair(request: pytest.FixtureRequest) -> tuple[zoo.Record, zoo.Record]:
    """(source, target) records, one transpile and training run per pair for all four
    checks."""
    name, to = request.param
    entry = zoo.BY_NAME[name]
    reason = zoo.missing(entry)
    if reason:
        pytest.skip(reason)
    if request.param not in _runs:
        _runs[request.param] = zoo.run_pair(entry, to)
    return _runs[request.param]


def test_outputs_match_the_source(pair):
    want, got = pair
    assert len(got.out) == len(want.out)
    for i, (g, w) in enumerate(zip(got.out, want.out)):
        assert g.shape == w.shape, f"output {i}"
        np.testing.assert_allclose(g, w, rtol=zoo.OUT_TOL[0], atol=zoo.OUT_TOL[1],
                                   err_msg=f"output {i}")


def test_gradients_match_the_source_for_every_parameter(pair):
    """atol is `zoo.GRAD_ATOL` times the source's largest gradient entry: why is in
    `transpile_zoo.GRAD_ATOL`."""
    want, got = pair
    assert set(got.grads) == set(want.grads)
    atol = zoo.grad_atol(want)
    for name, w in want.grads.items():
        np.testing.assert_allclose(got.grads[name], w, rtol=zoo.GRAD_RTOL, atol=atol,
                                   err_msg=name)


def test_parameter_names_are_the_source_names(pair):
    """Trainable names as sets (a JAX tree and the traced program order them their own
    way), each once; a torch target's `state_dict()` holds the source's checkpoint
    names, so a source checkpoint loads with `strict=True`."""
    want, got = pair
    assert len(got.names) == len(set(got.names))
    assert set(got.names) == set(want.names)
    if got.state is not None:
        assert sorted(got.state) == sorted(want.state)


def test_sgd_steps_in_the_target_track_the_source(pair):
    """Each of the STEPS + 1 losses (before every step, after the last) within
    `LOSS_RTOL` of the source's, relative: |target - source| <= 1e-3 * |source|."""
    want, got = pair
    assert len(got.losses) == len(want.losses) == zoo.STEPS + 1
    assert want.losses[-1] < want.losses[0]  # the source trains: the check has teeth
    for step, (g, w) in enumerate(zip(got.losses, want.losses)):
        assert abs(g - w) <= zoo.LOSS_RTOL * abs(w), f"step {step}: {g} vs source {w}"
