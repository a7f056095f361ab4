"""Inference rules for linear algebra, indexing, sorting and neural-network layers (the
windowed ones, convolution and pooling, are in `infer_window.py`)."""

from __future__ import annotations

import re
from typing import Any

from .infer import (
    Rule,
    broadcast,
    check,
    merge_dim,
    norm_axes,
    norm_axis,
    reduce_shape,
    registrar,
)
from .types import TensorSpec

NN_RULES: dict[str, Rule] = {}
rule = registrar(NN_RULES)


def _matrix(x: TensorSpec, what: str = "x") -> None:
    check(x.rank >= 2, f"{what} must be a (batch of) matrix, got rank {x.rank}")


def _square(x: TensorSpec) -> None:
    _matrix(x)
    merge_dim(x.shape[-2], x.shape[-1], "matrix must be square")


# ---- linear algebra ----

@rule("matmul")
def _matmul(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, y = ins
    check(x.rank >= 1 and y.rank >= 1, "matmul needs operands of rank >= 1")
    xs = (1,) + x.shape if x.rank == 1 else x.shape
    ys = y.shape + (1,) if y.rank == 1 else y.shape
    merge_dim(xs[-1], ys[-2], f"contracted dims of {x.shape} and {y.shape} differ")
    shape = broadcast(xs[:-2], ys[:-2]) + (xs[-2], ys[-1])
    if x.rank == 1:
        shape = shape[:-2] + shape[-1:]
    if y.rank == 1:
        shape = shape[:-1]
    return [x.with_(shape=shape)]


@rule("tensordot")
def _tensordot(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, y = ins
    ax = [norm_axis(i, x.rank) for i in a["axes_x"]]
    ay = [norm_axis(i, y.rank) for i in a["axes_y"]]
    check(len(ax) == len(ay), "axes_x and axes_y need the same length")
    for i, j in zip(ax, ay):
        merge_dim(x.shape[i], y.shape[j], f"contracted dims {i} and {j} differ")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in ax) + \
        tuple(d for j, d in enumerate(y.shape) if j not in ay)
    return [x.with_(shape=shape)]


@rule("vecdot")
def _vecdot(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, y = ins
    check(a["axis"] < 0, "vecdot axis must be negative (it counts from the end)")
    norm_axis(a["axis"], x.rank)
    norm_axis(a["axis"], y.rank)
    merge_dim(x.shape[a["axis"]], y.shape[a["axis"]], "contracted dims differ")
    shape = broadcast(x.shape, y.shape)
    return [x.with_(shape=reduce_shape(shape, (len(shape) + a["axis"],), False))]


_TERM = re.compile(r"^(?:[a-zA-Z]|\.\.\.)*$")


@rule("einsum")
def _einsum(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    xs = ins[0]
    eq = a["equation"].replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    check(len(terms) == len(xs), f"equation '{eq}' names {len(terms)} operands, got {len(xs)}")
    check(all(_TERM.match(t) for t in terms + [rhs]), f"malformed einsum equation '{eq}'")
    dims: dict[str, int | None] = {}
    batch: tuple[int | None, ...] = ()
    for term, x in zip(terms, xs):
        letters = term.replace("...", "")
        n_ell = x.rank - len(letters)
        check(n_ell == 0 or ("..." in term and n_ell > 0),
              f"term '{term}' does not match operand of rank {x.rank}")
        head, _, tail = term.partition("...")
        if "..." in term:
            batch = broadcast(batch, x.shape[len(head):len(head) + n_ell])
        shape = x.shape[:len(head)] + x.shape[x.rank - len(tail):] if "..." in term else x.shape
        for ch, d in zip(head + tail if "..." in term else term, shape):
            dims[ch] = merge_dim(dims.get(ch, d), d, f"label '{ch}' has two sizes")
    if not arrow:
        counts = {c: lhs.count(c) for c in dims}
        once = sorted(c for c, n in counts.items() if n == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    check(all(c in dims for c in rhs.replace("...", "")), f"output of '{eq}' names unknown labels")
    head, _, tail = rhs.partition("...")
    middle = batch if "..." in rhs else ()
    out = tuple(dims[c] for c in head) + middle + tuple(dims[c] for c in tail)
    return [xs[0].with_(shape=out)]


@rule("outer")
def _outer(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, y = ins
    check(x.rank == 1 and y.rank == 1, "outer needs two vectors")
    return [x.with_(shape=(x.shape[0], y.shape[0]))]


@rule("diagonal")
def _diagonal(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, k = ins[0], a["offset"]
    a1, a2 = norm_axis(a["axis1"], x.rank), norm_axis(a["axis2"], x.rank)
    check(a1 != a2, "axis1 and axis2 must differ")
    d1, d2 = x.shape[a1], x.shape[a2]
    n = None if None in (d1, d2) else max(0, min(d1, d2 - k) if k >= 0 else min(d1 + k, d2))
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2))
    return [x.with_(shape=rest + (n,))]


@rule("matrix_norm")
def _matrix_norm(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    _matrix(x)
    # the other norms take a max or min (of sums or singular values) that an empty
    # matrix does not have
    check(a["ord"] == "fro" or 0 not in x.shape[-2:],
          f"ord '{a['ord']}' of an empty matrix (shape {x.shape}) has no value")
    return [x.with_(shape=reduce_shape(x.shape, (x.rank - 2, x.rank - 1), a["keepdims"]))]


@rule("square_same")
def _square_same(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    _square(ins[0])
    return [ins[0]]


@rule("det")
def _det(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    _square(ins[0])
    return [ins[0].with_(shape=ins[0].shape[:-2])]


@rule("solve")
def _solve(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    m, b = ins
    _square(m)
    if b.rank == 1:
        merge_dim(m.shape[-1], b.shape[0], "b must have as many rows as a")
        return [b.with_(shape=m.shape[:-1])]
    _matrix(b, "b")
    merge_dim(m.shape[-1], b.shape[-2], "b must have as many rows as a")
    return [b.with_(shape=broadcast(m.shape[:-2], b.shape[:-2]) + b.shape[-2:])]


def _mk(x: TensorSpec) -> tuple[Any, int | None, int | None, int | None]:
    _matrix(x)
    m, n = x.shape[-2:]
    return x.shape[:-2], m, n, None if None in (m, n) else min(m, n)  # type: ignore[type-var]


@rule("qr")
def _qr(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    b, m, n, k = _mk(x)
    kk = m if a["mode"] == "complete" else k
    return [x.with_(shape=b + (m, kk)), x.with_(shape=b + (kk, n))]


@rule("svd")
def _svd(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    b, m, n, k = _mk(x)
    um, vn = (m, n) if a["full_matrices"] else (k, k)
    return [x.with_(shape=b + (m, um)), x.with_(shape=b + (k,)), x.with_(shape=b + (vn, n))]


@rule("eigh")
def _eigh(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    _square(x)
    return [x.with_(shape=x.shape[:-1]), x]


@rule("lu")
def _lu(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    _square(x)
    index = x.with_(shape=x.shape[:-1], dtype="int32")
    return [x, index, index]


@rule("slogdet")
def _slogdet(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    _square(ins[0])
    each = ins[0].with_(shape=ins[0].shape[:-2])
    return [each, each]


# ---- indexing and sorting ----

@rule("take")
def _take(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, idx = ins
    ax = norm_axis(a["axis"], x.rank)
    return [x.with_(shape=x.shape[:ax] + idx.shape + x.shape[ax + 1:])]


@rule("take_along_axis")
def _take_along_axis(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, idx = ins
    check(x.rank == idx.rank, f"indices need the rank of x ({x.rank}), got {idx.rank}")
    ax = norm_axis(a["axis"], x.rank)
    shape = list(broadcast(x.shape[:ax] + (1,) + x.shape[ax + 1:], idx.shape))
    shape[ax] = idx.shape[ax]
    return [x.with_(shape=tuple(shape))]


@rule("searchsorted")
def _searchsorted(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    ordered, x = ins
    check(ordered.rank >= 1, "sorted needs an axis to search")
    if ordered.rank > 1:
        check(x.rank == ordered.rank and all(
            p is None or q is None or p == q for p, q in zip(ordered.shape[:-1], x.shape[:-1])),
            f"a batch of sorted rows {ordered.shape} needs x with the same leading dims, got "
            f"{x.shape}")
    return [x.with_(dtype="int64")]


@rule("gather_nd")
def _gather_nd(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, idx = ins
    check(idx.rank >= 1 and idx.shape[-1] is not None and idx.shape[-1] <= x.rank,
          f"indices of shape {idx.shape} need a last dim <= rank of x ({x.rank})")
    return [x.with_(shape=idx.shape[:-1] + x.shape[idx.shape[-1]:])]


@rule("scatter_nd")
def _scatter_nd(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, idx, upd = ins
    gathered = _gather_nd([x, idx], a)[0]
    check(len(gathered.shape) == upd.rank and all(
        g is None or u is None or g == u for g, u in zip(gathered.shape, upd.shape)),
        f"updates need shape {gathered.shape}, got {upd.shape}")
    return [x]


@rule("top_k")
def _top_k(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x = ins[0]
    ax = norm_axis(a["axis"], x.rank)
    check(0 <= a["k"] and (x.shape[ax] is None or a["k"] <= x.shape[ax]),
          f"k={a['k']} must be within the size {x.shape[ax]} of axis {ax}")
    shape = x.shape[:ax] + (a["k"],) + x.shape[ax + 1:]
    return [x.with_(shape=shape), x.with_(shape=shape, dtype="int64")]


@rule("embedding")
def _embedding(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    idx, w = ins
    check(w.rank == 2, f"weight must be (num_embeddings, dim), got rank {w.rank}")
    return [w.with_(shape=idx.shape + w.shape[1:])]


# ---- layers ----

@rule("linear")
def _linear(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, w, b = ins
    check(x.rank >= 1 and w.rank == 2, "linear needs x (..., in) and weight (out, in)")
    merge_dim(x.shape[-1], w.shape[1], "in-features of x and weight differ")
    if b is not None:
        check(b.rank == 1, "bias must be a vector")
        merge_dim(b.shape[0], w.shape[0], "bias length differs from out-features")
    return [x.with_(shape=x.shape[:-1] + (w.shape[0],))]


@rule("norm")
def _norm(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, *affine = ins
    axes = norm_axes(a["axis"], x.rank)
    want = tuple(x.shape[i] for i in axes)
    # every framework takes the normalized shape as ints (torch's normalized_shape)
    check(None not in want, f"the normalized dims {axes} need static sizes, got {want}")
    for t in affine:
        if t is not None:
            check(t.rank == len(want) and all(p is None or q is None or p == q
                                              for p, q in zip(t.shape, want)),
                  f"weight/bias need shape {want}, got {t.shape}")
    return [x]


@rule("channel_norm")
def _channel_norm(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, *per_channel = ins
    check(x.rank >= 2, f"expected (batch, channels, ...) input, got rank {x.rank}")
    c = x.shape[norm_axis(a.get("axis", 1), x.rank)]
    if "num_groups" in a:
        check(a["num_groups"] >= 1 and (c is None or c % a["num_groups"] == 0),
              f"channels {c} not divisible by num_groups {a['num_groups']}")
    for t in per_channel:
        if t is not None:
            check(t.rank == 1, "per-channel operands must be vectors")
            merge_dim(t.shape[0], c, "per-channel operand length differs from channels")
    return [x]


@rule("attention")
def _attention(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    q, k, v, mask = ins
    check(q.rank >= 2 and k.rank == q.rank and v.rank == q.rank,
          "q, k, v need one rank >= 2 (..., seq, dim)")
    merge_dim(q.shape[-1], k.shape[-1], "q and k feature dims differ")
    merge_dim(k.shape[-2], v.shape[-2], "k and v sequence lengths differ")
    batch = broadcast(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        scores = batch + (q.shape[-2], k.shape[-2])
        full = broadcast(mask.shape, scores)
        check(full[-2:] == scores[-2:], f"mask of shape {mask.shape} does not fit scores "
              f"of shape {scores}")
        batch = full[:-2]
    return [q.with_(shape=batch + (q.shape[-2], v.shape[-1]))]


# ---- recurrent layers ----

def _recurrent(ins: list[Any], a: dict[str, Any], gates: int) -> list[TensorSpec]:
    """torch's shapes for nn.LSTM/GRU/RNN (see ops.spec). Every target but torch runs the
    layer as a scan over time that splits the gates at fixed sizes, so the sequence
    length and every size but the batch must be static; torch refuses empty ones."""
    x, h0, *states, weights = ins
    layers, dirs = a["num_layers"], 2 if a["bidirectional"] else 1
    check(layers >= 1, f"num_layers must be >= 1, got {layers}")
    check(x.rank == 3, f"x must be a batch of sequences, of rank 3, got rank {x.rank}")
    steps, batch = (x.shape[1], x.shape[0]) if a["batch_first"] else x.shape[:2]
    for s, what in zip([h0, *states], ("h0", "c0")):
        check(s.rank == 3 and s.shape[0] == layers * dirs,
              f"{what} must be ({layers * dirs}, batch, size), got {s.shape}")
        batch = merge_dim(batch, s.shape[1], f"the batch sizes of x and {what} differ")
    size = h0.shape[2]
    hidden = states[0].shape[2] if states else size
    dims = (steps, x.shape[2], size, hidden)
    check(all(d is not None and d >= 1 for d in dims), "the sequence length, features and "
          f"state sizes must be static and positive, got {dims}")
    check(size <= hidden, f"h0 ({size}) is wider than c0 ({hidden}): a projection narrows h")

    def chunk(features: int) -> list[tuple[int, ...]]:
        shapes = [(gates * hidden, features), (gates * hidden, size)]
        shapes += [(gates * hidden,)] * (2 if a["has_biases"] else 0)
        return shapes + ([(size, hidden)] if size != hidden else [])
    want = [s for layer in range(layers) for _ in range(dirs)
            for s in chunk(x.shape[2] if layer == 0 else dirs * size)]
    check(len(weights) == len(want), f"{layers} layer(s) x {dirs} direction(s) take "
          f"{len(want)} weights, got {len(weights)}")
    for k, (w, s) in enumerate(zip(weights, want)):
        check(w.shape == s, f"weight #{k} must have shape {s}, got {w.shape}")
    seq = (batch, steps) if a["batch_first"] else (steps, batch)
    return [x.with_(shape=(*seq, dirs * size)), *(x.with_(shape=(layers * dirs, batch, d))
                                                  for d in (size, hidden)[:1 + len(states)])]


rule("lstm")(lambda ins, a: _recurrent(ins, a, 4))
rule("gru")(lambda ins, a: _recurrent(ins, a, 3))
rule("rnn")(lambda ins, a: _recurrent(ins, a, 1))
