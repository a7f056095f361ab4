"""The facade's functional control flow (`ivy/control_flow.py`): `ivy.cond`,
`ivy.while_loop`, `ivy.scan` and `ivy.fori_loop`, eagerly on each backend's own arrays
(JAX's through `jax.lax`, so also under `jax.jit`) and traced into region ops that
every target runs, all against plain NumPy/Python references; and the errors of bodies
that do not fit together."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy import control_flow
from ivy.catalogue import CATALOGUE, NOT_GENERATED
from ivy_ir.dialect import CONTROL

BACKENDS = ["numpy", "torch", "jax", "tensorflow"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 3)).astype(np.float32)
W = (RNG.standard_normal((3, 3)) * 0.5).astype(np.float32)
A = np.array([2.0, 9.0, 0.25], np.float32)


@pytest.fixture(autouse=True)
def no_backend_left_set():
    yield
    while ivy.backend._stack:
        ivy.unset_backend()


def close(got, want) -> None:
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-5)


# ---- facade programs and their references ----

def newton_sqrt(a):
    """sqrt(a) by Newton's method: a while loop whose carry is (estimate, step)."""
    def body(c):
        y, i = c
        return 0.5 * (y + a / y), i + 1
    return ivy.while_loop(lambda c: c[1] < 12, body, (a, 0))[0]


def rnn(xs, w):
    """h_t = tanh(h_{t-1} w + x_t), keeping every h_t and their running sum."""
    def step(carry, x):
        h, total = carry
        h = ivy.tanh(ivy.matmul(h, w) + x)
        return (h, total + h), h
    return ivy.scan(step, (xs[0] * 0, xs[0] * 0), xs)


def rnn_reference(xs, w, reverse=False):
    h = total = np.zeros(xs.shape[1], np.float32)
    hs = {}
    for i in (reversed(range(len(xs))) if reverse else range(len(xs))):
        h = np.tanh(h @ w + xs[i])
        total = total + h
        hs[i] = h
    return (h, total), np.stack([hs[i] for i in range(len(xs))])


def signed(x):
    """A branch on a reduction: double a positive-sum array, negate the rest."""
    return ivy.cond(ivy.sum(x) > 0, lambda a: a * 2, lambda a: -a, x)


def powers(x):
    """x + x w + x w^2 + ... by a fori_loop with static bounds."""
    return ivy.fori_loop(0, 4, lambda i, v: v + x * (i + 1), x * 0)


def powers_reference(x):
    return sum(x * (i + 1) for i in range(4))


# ---- eager, on every backend's own arrays ----

@pytest.mark.parametrize("backend", BACKENDS)
def test_eager_on_each_backend(backend):
    ns = getattr(ivy, backend)
    xs, w, a = ns.asarray(X), ns.asarray(W), ns.asarray(A)
    close(newton_sqrt(a), np.sqrt(A))
    (h, total), hs = rnn(xs, w)
    (want_h, want_total), want_hs = rnn_reference(X, W)
    close((h, total, hs), (want_h, want_total, want_hs))
    close(signed(xs), X * 2 if X.sum() > 0 else -X)
    close(signed(-xs), -X * 2 if -X.sum() > 0 else X)
    close(powers(xs), powers_reference(X))
    (_, _), hs = ivy.scan(lambda c, x: ((c[0], c[1]), ivy.tanh(x)), (xs[0], 1.0), xs,
                          reverse=True)
    close(hs, np.tanh(X))
    total, none = ivy.scan(lambda c, _: (c + 1, None), a, None, length=3)
    close(total, A + 3)
    assert none is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_eager_with_the_backend_set(backend):
    ivy.set_backend(backend)
    (h, total), hs = rnn(ivy.asarray(X), ivy.asarray(W))
    assert type(hs) is type(ivy.asarray(X))
    close(hs, rnn_reference(X, W)[1])
    close(ivy.fori_loop(2, 5, lambda i, v: v * i, ivy.asarray(A)), A * 2 * 3 * 4)


def test_reverse_scan_stacks_ys_in_the_order_of_xs():
    xs = np.arange(4.0, dtype=np.float32)
    carry, ys = ivy.scan(lambda c, x: (c + x, c * x), np.float32(0), xs, reverse=True)
    assert float(carry) == 6 and ys.tolist() == [0, 5, 6, 0]


def test_jax_runs_under_jit():
    import jax

    @jax.jit
    def all_four(xs, w, a):
        (h, _), hs = rnn(xs, w)
        return newton_sqrt(a), hs, signed(xs), powers(xs)

    got = all_four(X, W, A)
    close(got, (np.sqrt(A), rnn_reference(X, W)[1], X * 2 if X.sum() > 0 else -X,
                powers_reference(X)))
    grad = jax.grad(lambda x: powers(x).sum())(X)  # lax's scan, differentiable
    close(grad, np.full_like(X, 1 + 2 + 3 + 4))


# ---- traced: region ops on every target ----

@pytest.mark.parametrize("target", BACKENDS)
def test_traced_programs_keep_their_loops_on_every_target(target):
    cases = [
        (newton_sqrt, (A,), "ivy.while_loop", np.sqrt(A)),
        (lambda xs, w: rnn(xs, w)[1], (X, W), "ivy.scan", rnn_reference(X, W)[1]),
        (signed, (X,), "ivy.cond", X * 2 if X.sum() > 0 else -X),
        (powers, (X,), "ivy.scan", powers_reference(X)),
    ]
    for fn, args, op, want in cases:
        compiled = ivy_ir.compile(fn, args=args, target=target)
        assert op in compiled.ir, (fn, compiled.ir)
        assert compiled.ir.count("ivy.tanh") <= 1  # the step is recorded once, not unrolled
        close(compiled(*args), want)
    compiled = ivy_ir.compile(signed, args=(X,), target=target)
    close(compiled(-X), -X * 2 if -X.sum() > 0 else X)  # the branch is taken at run time


def test_traced_scan_reverse_and_tuple_outputs():
    def fn(xs, w):
        def step(c, x):
            h = ivy.tanh(ivy.matmul(c[0], w) + x)
            return (h, c[1] + h), (h, x * 2)
        (h, total), (hs, doubled) = ivy.scan(step, (ivy.zeros(3), ivy.zeros(3)), xs,
                                             reverse=True)
        return h, total, hs, doubled
    compiled = ivy_ir.compile(fn, args=(X, W))
    h, total, hs, doubled = compiled(X, W)
    (want_h, want_total), want_hs = rnn_reference(X, W, reverse=True)
    close((h, total, hs, doubled), (want_h, want_total, want_hs, X * 2))


def test_traced_fori_loop_with_a_traced_bound_is_a_while_loop():
    fn = lambda x, n: ivy.fori_loop(0, n, lambda i, v: v * 2 + i, x)  # noqa: E731
    compiled = ivy_ir.compile(fn, args=(A, np.array(3)))
    assert "ivy.while_loop" in compiled.ir
    close(compiled(A, np.array(3)), ((A * 2 + 0) * 2 + 1) * 2 + 2)
    close(compiled(A, np.array(0)), A)


def test_a_loop_over_known_values_reading_traced_ones_records_one_op():
    # the carry starts known (zeros) and becomes traced through the body's closure
    fn = lambda x: ivy.fori_loop(0, 50, lambda i, v: ivy.tanh(v + x), ivy.zeros(3))  # noqa
    ir = ivy_ir.trace(fn, (A,), source="ivy").to_text()
    assert "ivy.scan" in ir and ir.count("ivy.tanh") == 2  # one step eager, then the op
    want = np.zeros(3, np.float32)
    for _ in range(50):
        want = np.tanh(want + A)
    close(ivy_ir.compile(fn, args=(A,))(A), want)


@pytest.mark.parametrize("reverse", [False, True])
def test_a_scan_over_known_values_joins_its_eager_and_traced_steps(reverse):
    def fn(w):
        step = lambda h, x: (ivy.tanh(ivy.matmul(h, w) + x), h)  # noqa: E731
        return ivy.scan(step, np.zeros(3, np.float32), X, reverse=reverse)
    compiled = ivy_ir.compile(fn, args=(W,))
    assert "ivy.scan" in compiled.ir and compiled.ir.count("ivy.tanh") == 2
    h, before = np.zeros(3, np.float32), {}
    for i in reversed(range(len(X))) if reverse else range(len(X)):
        before[i], h = h, np.tanh(h @ W + X[i])
    close(compiled(W), (h, np.stack([before[i] for i in range(len(X))])))


def test_a_known_predicate_just_picks_its_branch_when_traced():
    fn = lambda x: ivy.cond(True, lambda a: a + 1, lambda a: a - 1, x)  # noqa: E731
    compiled = ivy_ir.compile(fn, args=(A,))
    assert "ivy.cond" not in compiled.ir
    close(compiled(A), A + 1)


def test_nested_control_flow_traces():
    def fn(xs):
        def step(c, x):
            return ivy.cond(ivy.sum(x) > 0, lambda v: v + x, lambda v: v - x, c), c
        return ivy.scan(step, xs[0] * 0, xs)
    compiled = ivy_ir.compile(fn, args=(X,), target="jax")
    assert "ivy.scan" in compiled.ir and "ivy.cond" in compiled.ir
    c, cs = compiled(X)
    want, wants = np.zeros(3, np.float32), []
    for x in X:
        wants.append(want)
        want = want + x if x.sum() > 0 else want - x
    close((c, cs), (want, np.stack(wants)))


# ---- errors ----

def _trace(fn, *args):
    return ivy_ir.trace(fn, args, source="ivy")


def test_branches_of_different_structures_or_types_are_refused():
    with pytest.raises(TypeError, match=r"false_fn returns array where true_fn returns "
                                        r"\(array, array\)"):
        _trace(lambda x: ivy.cond(ivy.sum(x) > 0, lambda a: (a, a), lambda a: a, x), A)
    with pytest.raises(TypeError, match=r"false_fn returns tensor<3xi64> as array 0 where "
                                        r"true_fn returns tensor<3xf32>"):
        _trace(lambda x: ivy.cond(ivy.sum(x) > 0, lambda a: a,
                                  lambda a: ivy.astype(a, ivy.int64), x), A)


def test_loop_bodies_that_change_the_carry_are_refused():
    with pytest.raises(TypeError, match=r"body_fn returns tensor<3xf64> as array 0 where "
                                        r"the carry is tensor<3xf32>"):
        _trace(lambda x: ivy.while_loop(lambda v: ivy.sum(v) < 10,
                                        lambda v: ivy.astype(v, ivy.float64), x), A)
    with pytest.raises(TypeError, match=r"f returns \(array, array\) where the carry is array"):
        _trace(lambda x: ivy.scan(lambda c, v: ((c, c), v), x[0], x), X)
    with pytest.raises(TypeError, match=r"f must return a pair \(carry, y\)"):
        _trace(lambda x: ivy.scan(lambda c, v: c, x[0], x), X)
    with pytest.raises(TypeError, match=r"cond_fn must return a bool scalar"):
        _trace(lambda x: ivy.while_loop(lambda v: v, lambda v: v, x), A)


def test_bad_predicates_and_lengths_are_refused():
    with pytest.raises(TypeError, match="the predicate must be a scalar"):
        ivy.cond(A > 0, lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="the predicate must be a scalar"):
        _trace(lambda x: ivy.cond(x > 0, lambda: x, lambda: x), A)
    with pytest.raises(ValueError, match="length=4 but xs have leading axes of"):
        ivy.scan(lambda c, x: (c, x), 0.0, X, length=4)
    with pytest.raises(ValueError, match="give the length"):
        ivy.scan(lambda c, x: (c, x), 0.0, None)


# ---- where the functions live ----

def test_control_flow_is_hand_written_not_generated():
    assert {"cond", "while_loop", "scan", "fori_loop"} <= set(ivy.__all__)
    for op in CONTROL:
        assert op not in CATALOGUE and not hasattr(ivy.ops, op)
        assert "functional control flow" in NOT_GENERATED[op]
    ivy.set_backend("torch")
    assert ivy.cond is control_flow.cond  # the same function whatever the backend
