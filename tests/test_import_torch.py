"""The PyTorch importer: real library modules on every target, parameters under their
state_dict names, dtype promotion as torch does it, and the errors a user can hit."""

from __future__ import annotations

import inspect
import re
import time

import numpy as np
import pytest
import torch
from torch import nn
from zoo_common import TARGETS
from zoo_torch import build_500_op
from zoo_torch_models import MLP, seeded

import ivy_ir
from importers.torch_table import ONE_TO_ONE, TABLE
from ivy_ir.dialect import SPECS

RNG = np.random.default_rng(7)


def _tensor(*shape: int) -> torch.Tensor:
    return torch.as_tensor(RNG.standard_normal(shape).astype(np.float32))


def _numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def _listed(out) -> list[np.ndarray]:
    return [_numpy(o) for o in (out if isinstance(out, (tuple, list)) else [out])]


def _check_all_targets(model, args, kwargs=None):
    """Import once, lower to every target, compare with torch running the model."""
    kwargs = kwargs or {}
    with torch.no_grad():
        want = _listed(model(*args, **kwargs))
    module = ivy_ir.trace(model, args, kwargs)
    inputs = [_numpy(a) for a in (*args, *kwargs.values())]
    for target in TARGETS:
        got = _listed(ivy_ir.compile(module, target=target)(*inputs))
        assert len(got) == len(want), target
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=target)
    return module


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# ---- real library modules, as they ship ----

@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_on_every_target(norm_first):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True,
                                       norm_first=norm_first).eval()
    module = _check_all_targets(layer, (_tensor(2, 5, 16),))
    assert "ivy.scaled_dot_product_attention" in str(module)
    assert str(module).count("ivy.layer_norm") == 2


def test_multihead_attention_with_mask_on_every_target():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    q, kv = _tensor(2, 4, 16), _tensor(2, 6, 16)
    mask = torch.as_tensor(RNG.random((4, 6)) > 0.7)
    _check_all_targets(mha, (q, kv, kv), {"attn_mask": mask})


def test_conv_batchnorm_relu_maxpool_stack_on_every_target():
    stack = seeded(lambda: nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                                         nn.ReLU(), nn.MaxPool2d(2)))
    module = _check_all_targets(stack, (_tensor(2, 3, 8, 8),))
    assert {"ivy.conv", "ivy.batch_norm", "ivy.max_pool"} <= set(re.findall(r"ivy\.\w+",
                                                                            str(module)))


# ---- parameters ----

def test_params_are_the_state_dict():
    stack = seeded(lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)))
    x = _tensor(1, 3, 6, 6)
    module = ivy_ir.trace(stack, (x,))
    state = stack.state_dict()
    assert set(module.params) == set(state)
    for key, value in state.items():
        np.testing.assert_array_equal(module.params[key], value.numpy())
    trainable = {a.param for a in module.args() if a.param and a.trainable}
    assert trainable == {k for k, _ in stack.named_parameters()}
    compiled = ivy_ir.compile(stack, target="torch", args=(x,))
    assert set(compiled.params) == set(state)


def test_function_params_tree_keeps_dotted_names():
    def fn(tree, x):
        return torch.tanh(x @ tree["w"] + tree["block"]["b"]) * tree["scale"]

    params = {"w": _tensor(3, 2), "block": {"b": _tensor(2)}}
    buffers = {"scale": torch.tensor(2.0)}
    x = _tensor(4, 3)
    module = ivy_ir.trace(fn, (x,), params=params, buffers=buffers)
    kinds = {a.param: a.trainable for a in module.args() if a.param}
    assert kinds == {"w": True, "block.b": True, "scale": False}
    want = fn({**params, **buffers}, x).numpy()
    # atol: x @ w + b sums O(1) float32 terms, so where it cancels to near 0 the two BLAS
    # differ by one rounding of those terms (1.5e-8 seen), not by 1e-6 of the result
    np.testing.assert_allclose(ivy_ir.lower(module, "numpy")(x.numpy()), want, rtol=1e-6,
                               atol=1e-7)


def test_torch_target_module_trains():
    model, x = seeded(MLP), _tensor(8, 8)
    target = torch.as_tensor(RNG.standard_normal((8, 3)).astype(np.float32))
    compiled = ivy_ir.compile(model, target="torch", args=(x,))
    opt = torch.optim.SGD(compiled.module.parameters(), lr=0.1)

    def loss():
        return ((compiled.module(x) - target) ** 2).mean()

    before = loss()
    opt.zero_grad()
    before.backward()
    opt.step()
    assert loss().item() < before.item()


# ---- dtype promotion: astype exactly where torch converts ----

PROMOTIONS = [
    # (name, program, inputs, astype ops in the IR, torch's result dtype)
    ("int_tensor+float_tensor", lambda i, x: i + x,
     (torch.arange(3), torch.ones(3)), 1, "float32"),
    ("float32*float64", lambda x, y: x * y,
     (torch.ones(3), torch.ones(3, dtype=torch.float64)), 1, "float64"),
    ("int/int_scalar", lambda i: i / 2, (torch.arange(5),), 1, "float32"),
    ("int+float_scalar", lambda i: i + 1.5, (torch.arange(5),), 1, "float32"),
    ("int*int_scalar", lambda i: i * 2, (torch.arange(5),), 0, "int64"),
    ("float32+0d_float64", lambda x: x + torch.tensor(2.0, dtype=torch.float64),
     (torch.ones(3),), 1, "float32"),
    ("int32+0d_float64", lambda i, s: i + s,
     (torch.arange(3, dtype=torch.int32), torch.tensor(0.25, dtype=torch.float64)), 1,
     "float64"),
    ("float32+float32", lambda x, y: x - y, (torch.ones(3), torch.ones(3)), 0, "float32"),
    ("bool_sum", lambda b: b.sum(), (torch.tensor([True, False, True]),), 1, "int64"),
]


@pytest.mark.parametrize("name,fn,args,casts,dtype", PROMOTIONS, ids=[p[0] for p in PROMOTIONS])
def test_dtype_promotion(name, fn, args, casts, dtype):
    module = ivy_ir.trace(fn, args)
    assert str(module).count("ivy.astype") == casts, str(module)
    assert module.outputs[0].dtype == dtype
    want = fn(*args).numpy()
    got = ivy_ir.lower(module, "numpy")(*[a.numpy() for a in args])
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


# ---- errors ----

def _two_unmapped_ops(x):
    a = torch.special.i1e(x.abs() + 0.5)
    b = torch.special.erfcx(x.abs() + 1)
    return a + torch.special.i1e(b + 0.1)


def test_unsupported_ops_are_listed_at_once_before_lowering(monkeypatch):
    import lowerings

    monkeypatch.setattr(lowerings, "lower", lambda *a, **k: pytest.fail("lowering ran"))
    with pytest.raises(ivy_ir.UnsupportedOpsError) as info:
        ivy_ir.compile(_two_unmapped_ops, target="numpy", args=(_tensor(4),))
    message = str(info.value)
    first, second = _line_of(_two_unmapped_ops, "i1e(x"), _line_of(_two_unmapped_ops, "i1e(b")
    erfcx = _line_of(_two_unmapped_ops, "erfcx")
    assert "3 torch ops of 2 kinds" in message
    assert re.search(rf"aten\.special_i1e\.default \(x2\): \S*test_import_torch\.py:{first}, "
                     rf"\S*test_import_torch\.py:{second}", message), message
    assert re.search(rf"aten\.special_erfcx\.default \(x1\): \S*test_import_torch\.py:{erfcx}",
                     message), message
    assert info.value.missing.keys() == {"aten.special_i1e.default", "aten.special_erfcx.default"}


def _branchy(x):
    if x.sum() > 0:
        return x * 2
    return x


def test_data_dependent_branch_names_the_line():
    with pytest.raises(ivy_ir.TraceError) as info:
        ivy_ir.trace(_branchy, (_tensor(3),))
    line = _line_of(_branchy, "if x.sum()")
    assert re.search(rf"data-dependent Python control flow at \S*test_import_torch\.py:{line}:",
                     str(info.value)), str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def _masked(x, mask):
    return x[mask] * 2


def _masked_count(x, mask):
    return x * x[mask].shape[0]


@pytest.mark.parametrize("target", TARGETS)
def test_boolean_mask_input_selects_rows_only_the_data_decides(target):
    """`x[mask]` of a traced mask is a gather at the mask's `argwhere`: `?` rows, so one
    compiled program serves masks selecting any number of elements."""
    x = _tensor(4, 3)
    c = ivy_ir.compile(_masked, target=target, args=(x, torch.tensor([True, False, True, True])))
    for mask in ([False, True, False, False], [True] * 4, [False] * 4):
        mask = torch.tensor(mask)
        got = np.asarray(c(x.numpy(), mask.numpy()))
        np.testing.assert_array_equal(got, _masked(x, mask).numpy())


SELECTIONS = {
    "unique": lambda x: torch.unique((x * 4).floor(), return_inverse=True, return_counts=True),
    "unique_dim": lambda x: torch.unique((x > 0.5).int(), dim=1, return_inverse=True),
    "masked_select": lambda x: torch.masked_select(x, x[0] > 0.5),
    "nonzero_rows": lambda x: x[x.sum(-1) > 1.5].reshape(-1, 2) + torch.argwhere(x > 0.5).sum(),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", SELECTIONS)
def test_data_dependent_selections_import(name, target):
    fn, x = SELECTIONS[name], torch.rand(4, 6, generator=torch.Generator().manual_seed(2))
    c = ivy_ir.compile(fn, target=target, args=(x,))
    want = fn(x)
    got = c(x.numpy())
    for g, w in zip(*((o if isinstance(o, tuple) else (o,)) for o in (got, want))):
        np.testing.assert_array_equal(np.asarray(g), w.numpy())


def test_the_size_of_a_masked_selection_is_refused_as_a_number():
    with pytest.raises(ivy_ir.TraceError, match="length depends on the data") as info:
        ivy_ir.trace(_masked_count, (_tensor(4), torch.tensor([True, False, True, True])))
    assert f"test_import_torch.py:{_line_of(_masked_count, 'x[mask]')}" in str(info.value)


def _relative_positions(x):
    """Funnel Transformer's relative positions: a range whose bounds are read out of a
    position tensor, itself a range, so every bound is fixed when the program is made."""
    pos = torch.arange(0, x.shape[1], dtype=torch.float32)
    pooled = pos[::2]
    top = pooled[0] - pos[0] + len(pooled) * 2
    rel = torch.arange(top, pooled[0] - pos[-1] - 1, -2, dtype=torch.long)
    return x[:, :1] * rel.float() + rel.shape[0]


def _data_range(x):
    return torch.arange(0, x.abs().sum().long()) * 2


@pytest.mark.parametrize("target", TARGETS)
def test_a_range_of_bounds_fixed_at_import_time_is_static(target):
    x = _tensor(2, 8)
    got = ivy_ir.compile(_relative_positions, target=target, args=(x,))(x.numpy())
    np.testing.assert_allclose(_numpy(got), _relative_positions(x).numpy(), rtol=1e-5, atol=1e-5)


def test_a_range_whose_bounds_are_data_is_refused_with_its_line():
    with pytest.raises(ivy_ir.TraceError, match="bounds are read out of tensor values") as info:
        ivy_ir.trace(_data_range, (_tensor(3),))
    assert f"test_import_torch.py:{_line_of(_data_range, 'arange')}" in str(info.value)


def _data_slice(x, r):
    y = x.clone()
    a, b = r.tolist()
    y[:, a:b] = 1.0
    return y


def test_a_slice_whose_bounds_are_data_is_refused_with_its_line():
    """kornia's draw_rectangle: the bounds of `y[:, a:b]` come out of a tensor (a
    TypeError inside the importer before)."""
    with pytest.raises(ivy_ir.TraceError, match="a slice whose bounds are read out") as info:
        ivy_ir.trace(_data_slice, (torch.rand(3, 8), torch.tensor([2, 5])))
    assert f"test_import_torch.py:{_line_of(_data_slice, 'y[:, a:b]')}" in str(info.value)


LINALG = {
    "solve": lambda a, b: torch.linalg.solve(a, b),
    "solve a batch of vectors": lambda a, b: torch.linalg.solve(a, b[..., 0]),
    "solve from the right": lambda a, b: torch.linalg.solve(a, b.mT, left=False),
    "inv": lambda a, b: torch.linalg.inv(a) @ b,
    "det": lambda a, b: torch.linalg.det(a),
    "cholesky": lambda a, b: torch.linalg.cholesky(a @ a.mT, upper=True) @ b,
    "inv_ex info": lambda a, b: torch.linalg.inv_ex(a)[1],
}


@pytest.mark.parametrize("name", LINALG)
def test_linalg_ex_forms_import_on_every_target(name):
    """torch.linalg.solve, inv, det and cholesky reach the walker as their `_ex` forms
    (with an effect token ordering solve's error check)."""
    a = _tensor(2, 3, 3) + 3 * torch.eye(3)
    _check_all_targets(lambda a, b: LINALG[name](a, b), (a, _tensor(2, 3, 2)))


@pytest.mark.parametrize("pad", [(2, 1, 1, 3), (3, 3, 0, 0), (-1, 2, 1, 0), (2, -1, -2, 1)])
def test_circular_padding_wraps_what_the_crop_leaves(pad):
    """torch's `circular` pad (kornia's `border_type="circular"`, a conv's
    `padding_mode="circular"`): negative widths crop first, then the rest wraps."""
    _check_all_targets(lambda x: nn.functional.pad(x, pad, mode="circular") * 2,
                       (_tensor(2, 3, 5, 6),))


def test_training_mode_dropout_draws_from_the_programs_key():
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Dropout(0.2)).train()
    ir = str(ivy_ir.trace(model, (_tensor(2, 3),)))
    assert "%rng: tensor<i32> {ivy.rng}" in ir
    assert ir.count("ivy.random_uniform") == 2  # each with its own key (rng + offset)
    assert "ivy.add %rng" in ir


def test_grid_sample_decomposes_on_every_target():
    # torch.export keeps aten.grid_sampler_2d whole; torch._decomp's decomposition
    # (gathers and arithmetic) is added at import: F.grid_sample, kornia's warps
    def fn(x, grid):
        return torch.nn.functional.grid_sample(x, grid, align_corners=False)

    _check_all_targets(fn, (_tensor(1, 2, 5, 5), np.tanh(_tensor(1, 4, 4, 2))))


def test_rectangular_eye_and_float_logical_not_on_every_target():
    # regression: the torch lowering built torch.eye(n_rows, n_rows) for a 2x4 eye
    def fn(x):
        return x + torch.eye(2, 4), torch.logical_not(x)

    _check_all_targets(fn, (_tensor(2, 4).round(),))


# ---- source detection, locations, retracing, speed ----

def test_source_is_detected_from_the_model_and_the_code():
    model = seeded(lambda: nn.Linear(3, 2))
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    compiled = ivy_ir.compile(model, target="numpy", args=(x,))
    assert "ivy.linear" in compiled.ir
    np.testing.assert_allclose(compiled(x), model(torch.as_tensor(x)).detach().numpy(),
                               rtol=1e-5)

    def fn(v):
        return torch.nn.functional.softplus(v) * 2

    compiled = ivy_ir.compile(fn, target="jax", args=(x,))
    assert "ivy.softplus" in compiled.ir
    np.testing.assert_allclose(np.asarray(compiled(x)), fn(torch.as_tensor(x)).numpy(),
                               rtol=1e-5)


# ---- an ExportedProgram the user made, imported as it is ----

def _decomposed_stack():
    model = seeded(lambda: nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU()))
    x = _tensor(3, 4)
    return model, x, torch.export.export(model, (x,)).run_decompositions()


def test_exported_program_is_imported_as_it_is():
    model, x, ep = _decomposed_stack()
    module = ivy_ir.trace(ep, (x,))
    ops = set(re.findall(r"ivy\.(\w+)", str(module)))
    # core ATen's addmm, not the linear a re-export would give
    assert "linear" not in ops and {"matmul", "add", "layer_norm", "gelu"} <= ops, ops
    assert str(ivy_ir.trace(ep)) == str(module)  # without args: the program's own types
    with torch.no_grad():
        want = model(x).numpy()
    for target in ("numpy", "torch"):
        compiled = ivy_ir.compile(ep, target=target, args=(_numpy(x),))
        assert "ivy.linear" in compiled.ir  # the pipeline recomposed it
        np.testing.assert_allclose(_numpy(compiled(_numpy(x))), want, rtol=1e-5, atol=1e-6)


def test_exported_program_refuses_other_arguments():
    _, x, ep = _decomposed_stack()
    other = _tensor(5, 4)
    wrong = r"argument 0 is float32\[5, 4\], but the ExportedProgram's input 'input' " \
        r"was exported as float32\[3, 4\]; export it again"
    with pytest.raises(ivy_ir.TraceError, match=wrong):
        ivy_ir.trace(ep, (other,))
    compiled = ivy_ir.compile(ep, target="numpy", args=(x,))
    with pytest.raises(ivy_ir.TraceError, match=wrong):
        compiled(_numpy(other))
    with pytest.raises(ivy_ir.TraceError, match="takes 1 tensor inputs, got 2 tensor"):
        ivy_ir.trace(ep, (x, x))
    with pytest.raises(ivy_ir.TraceError, match="carries its own parameters and buffers"):
        ivy_ir.trace(ep, (x,), params={"w": np.ones(3, np.float32)})


def _located(x):
    y = torch.relu(x)
    return y * 2


def test_locations_point_at_the_user_file():
    text = str(ivy_ir.trace(_located, (_tensor(3),)))
    for op, marker in (("relu", "torch.relu"), ("multiply", "y * 2")):
        line = _line_of(_located, marker)
        assert re.search(rf'ivy\.{op} .*loc\("\S*test_import_torch\.py":{line}:', text), text


def test_other_shapes_retrace_with_numpy_inputs():
    model = seeded(lambda: nn.Sequential(nn.Linear(4, 3), nn.Tanh()))
    compiled = ivy_ir.compile(model, target="torch", args=(_tensor(2, 4),))
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    with torch.no_grad():
        want = model(torch.as_tensor(x)).numpy()
    np.testing.assert_allclose(_numpy(compiled(x)), want, rtol=1e-5, atol=1e-6)


def test_500_op_model_imports():
    fn, args, _ = build_500_op()
    start = time.perf_counter()
    module = ivy_ir.trace(fn, args)
    elapsed = time.perf_counter() - start
    assert module.op_count() >= 450, module.op_count()
    print(f"500-op import: {module.op_count()} ops in {elapsed:.2f}s")


# ---- the table: ATen op -> rule ----

def _aten_op(name: str) -> bool:
    """Whether `name` is an ATen packet (`torch.ops.aten.add`) or one overload of one
    (`torch.ops.aten.div.Tensor`): the two names the walker looks a node's op up by."""
    packet, _, overload = name.partition(".")
    ops = getattr(torch.ops.aten, packet, None)  # AttributeError for no such op: None
    if not isinstance(ops, torch._ops.OpOverloadPacket):
        return False
    return not overload or overload in ops.overloads()


def test_table_keys_are_aten_ops_and_one_to_one_values_registry_ops():
    # every key is an ATen name, Python-operator ones included: `__and__`, `__lshift__`
    # ... are ATen ops (`torch.ops.aten.__and__.Tensor`); the walker handles
    # `operator.getitem` and Python arithmetic on sizes itself, outside the table
    assert not _aten_op("relux") and not _aten_op("div.Tensr")  # the check can fail
    assert [k for k in TABLE if not _aten_op(k)] == []
    assert ONE_TO_ONE.keys() <= TABLE.keys()
    assert [v for v in ONE_TO_ONE.values() if v not in SPECS] == []
