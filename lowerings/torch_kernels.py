"""Torch kernels for ops that take more than one torch call.

The emitter copies the source of each kernel a program uses into the generated code,
so these functions may only use `torch`, `F` (torch.nn.functional) and each other.
Layer kernels work channels-first, as torch does; channels-last operands are moved in
and out with `movedim`/`permute`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = [
    "avg_pool", "channels_first", "channels_restore", "column_signs",
    "complex_ops", "conv", "conv_transpose", "cudnn_weights", "digamma", "eigh", "eye",
    "float_remainder", "lu", "max_pool", "pad_index", "prod", "random_normal", "random_uniform",
    "scatter_reduce", "searchsorted", "svd", "top_k", "torch_pads", "vector_norm",
]


def float_remainder(x, y):
    # NumPy's float remainder, from the exact fmod plus y where the signs differ:
    # x - y * floor(x / y) loses every digit once |x / y| passes 2**24 (float32)
    m = torch.fmod(x, y)
    return torch.where((m != 0) & ((m < 0) != (y < 0)), m + y, m)


def top_k(x, k, axis, largest):
    # ties keep their original order, as the IR's stable argsort (torch.topk leaves
    # the order of equal values unspecified); NaN sorts as the largest value in both
    i = torch.argsort(x, dim=axis, descending=largest, stable=True).narrow(axis, 0, k)
    return torch.take_along_dim(x, i, dim=axis), i


def digamma(x):
    # below 0 the reflection psi(x) = psi(1 - x) - pi / tan(pi r), r = x - round(x) exact:
    # torch's own digamma loses the digits there near the poles (4% at -2 + 4e-16). Its
    # operand is -1/2 where x >= 0, so no gradient runs into the reflection's poles. The
    # poles 0, -1, -2, ... give NaN (torch's digamma: -inf at +0, +inf at -0)
    neg = torch.where(x < 0, x, -0.5)
    pi = 3.141592653589793
    reflected = torch.digamma(1 - neg) - pi / torch.tan(pi * (neg - torch.round(neg)))
    out = torch.where(x < 0, reflected, torch.digamma(x))
    return torch.where((x <= 0) & (x == torch.round(x)), torch.nan, out)


def eye(n_rows, n_cols, k, dtype, device):
    # torch.eye has no diagonal offset
    rows = torch.arange(n_rows, device=device)[:, None]
    return (torch.arange(n_cols, device=device) - rows == k).to(dtype)


def prod(x, axes, keepdims, dtype):
    # torch.prod reduces one dim at a time; int32 would promote to int64 without dtype=
    for a in sorted(axes, reverse=True):
        x = torch.prod(x, dim=a, keepdim=keepdims, dtype=dtype)
    return x


def vector_norm(x, ord, axes, keepdims):
    # torch refuses the inf norms of an empty tensor; NumPy's kernel gives 0 and inf
    if x.numel() == 0 and ord in (float("inf"), float("-inf")):
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)
                 if keepdims or i not in axes]
        return torch.full(shape, 0.0 if ord > 0 else ord, dtype=x.dtype, device=x.device)
    return torch.linalg.vector_norm(x, ord, dim=axes, keepdim=keepdims)


def pad_index(x, pad_width, mode):
    # reflect/edge padding of any rank and dtype by gathering rows (F.pad limits both)
    for axis in range(x.dim()):
        lo, hi = pad_width[2 * axis], pad_width[2 * axis + 1]
        if lo or hi:
            n = x.shape[axis]
            idx = torch.arange(-lo, n + hi, device=x.device)
            if mode == "reflect":
                idx = (n - 1) - ((n - 1) - idx.abs()).abs()
            else:
                idx = idx.clamp(0, n - 1)
            x = x.index_select(axis, idx)
    return x


def scatter_reduce(x, indices, updates, reduce):
    # torch scatters along one dim: the index tuples become places in x's leading dims
    # flattened, and each update row is folded into its place's row
    depth = indices.shape[-1]
    rest = x.shape[depth:]
    places = torch.zeros(indices.shape[:-1], dtype=torch.int64, device=x.device)
    for d in range(depth):
        places = places * x.shape[d] + indices[..., d]
    n = 1
    for size in x.shape[:depth]:
        n *= size
    upd = updates.reshape((places.numel(),) + rest)
    at = places.reshape((-1,) + (1,) * len(rest)).expand(upd.shape)
    rows = x.reshape((n,) + rest).scatter_reduce(0, at, upd, reduce, include_self=True)
    return rows.reshape(x.shape)


def searchsorted(a, v, side):
    # torch compares floats as floats, a NaN below nothing: floats are searched by an
    # integer key of NumPy's order (the bits, negative values' magnitude bits flipped;
    # one NaN above +inf; -0.0 equal to 0.0)
    if a.is_floating_point():
        ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        top = torch.iinfo(ints).max

        def key(x):
            bits = torch.where(x == 0, torch.zeros_like(x), x).view(ints)
            bits = bits ^ ((bits >> (8 * x.element_size() - 1)) & top)
            return torch.where(torch.isnan(x), torch.full_like(bits, top), bits)
        a, v = key(a), key(v)
    return torch.searchsorted(a.contiguous(), v.contiguous(), side=side)


def torch_pads(padding):
    # (lo0, hi0, lo1, hi1, ...) -> F.pad's order, last dim first
    n = len(padding) // 2
    return [p for i in reversed(range(n)) for p in (padding[2 * i], padding[2 * i + 1])]


def channels_first(x, layout):
    return x if layout == "channels_first" else torch.movedim(x, -1, 1)


def channels_restore(y, layout):
    return y if layout == "channels_first" else torch.movedim(y, 1, -1)


def conv(x, weight, bias, strides, padding, dilations, groups, layout):
    n = x.dim() - 2
    x = channels_first(x, layout)
    if layout != "channels_first":  # (*K, I/g, O) -> (O, I/g, *K)
        weight = weight.permute(n + 1, n, *range(n))
    lo, hi = padding[0::2], padding[1::2]
    if lo != hi:  # torch pads symmetrically; pad the difference first
        x = F.pad(x, torch_pads(padding))
        lo = [0] * n
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    y = fn(x, weight, bias, stride=strides, padding=lo, dilation=dilations, groups=groups)
    return channels_restore(y, layout)


def conv_transpose(x, weight, bias, strides, padding, output_padding, dilations, groups,
                   layout):
    n = x.dim() - 2
    x = channels_first(x, layout)
    if layout != "channels_first":  # (*K, O/g, I) -> (I, O/g, *K)
        # contiguous: the CPU backward of a dilated transposed convolution refuses a
        # strided weight ("grad_weight needs to be contiguous")
        weight = weight.permute(n + 1, n, *range(n)).contiguous()
    lo, hi = padding[0::2], padding[1::2]
    common = [min(a, b) for a, b in zip(lo, hi)]
    fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
    y = fn(x, weight, bias, stride=strides, padding=common, output_padding=output_padding,
           groups=groups, dilation=dilations)
    if lo != hi:  # torch crops symmetrically; crop the rest of each side
        y = y[(slice(None), slice(None)) + tuple(
            slice(a - c, y.shape[2 + i] - (b - c)) for i, (a, b, c) in
            enumerate(zip(lo, hi, common)))]
    return channels_restore(y, layout)


def max_pool(x, kernel, strides, padding, dilations, out_size, layout):
    # asymmetric padding: pad with the dtype's lowest value up to the last window
    # (torch's ceil_mode counts from the padded size), then pool unpadded
    n = len(kernel)
    x = channels_first(x, layout)
    low = float("-inf") if x.is_floating_point() else torch.iinfo(x.dtype).min
    pads = []
    for i in range(n):
        lo = padding[2 * i]
        need = (out_size[i] - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1
        pads.append((lo, max(padding[2 * i + 1], need - x.shape[2 + i] - lo)))
    x = F.pad(x, [p for i in reversed(range(n)) for p in pads[i]], value=low)
    if n == 1 and not x.is_floating_point():  # max_pool1d has no integer kernel
        y = F.max_pool2d(x.unsqueeze(-2), (1, kernel[0]), (1, strides[0]), 0,
                         (1, dilations[0])).squeeze(-2)
    else:
        fn = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[n - 1]
        y = fn(x, kernel, strides, 0, dilations)
    y = y[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_size)]
    return channels_restore(y, layout)


def avg_pool(x, kernel, strides, padding, count_include_pad, out_size, layout):
    # asymmetric padding: zero-pad so every window is whole, then divide the window means
    # of the values by those of a mask of the cells the divisor counts
    n = len(kernel)
    x = channels_first(x, layout)
    whole, extra = [], []
    for i in range(n):
        lo, hi = padding[2 * i], padding[2 * i + 1]
        need = (out_size[i] - 1) * strides[i] + kernel[i] - x.shape[2 + i] - lo
        whole += [lo, max(hi, need)]
        extra += [0, max(hi, need) - hi]
    mask = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    if count_include_pad:
        mask = F.pad(F.pad(mask, torch_pads(padding), value=1.0), torch_pads(extra))
    else:
        mask = F.pad(mask, torch_pads(whole))
    fn = (F.avg_pool1d, F.avg_pool2d, F.avg_pool3d)[n - 1]
    y = fn(F.pad(x, torch_pads(whole)), kernel, strides) / fn(mask, kernel, strides)
    y = y[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_size)]
    return channels_restore(y, layout)


def random_uniform(key, shape, low, high, top, dtype):
    # `top` is the largest value below `high`: rounding the scaled draw may reach `high`
    g = torch.Generator(device=key.device).manual_seed(int(key))
    u = torch.rand(shape, generator=g, dtype=dtype, device=key.device)
    return (u * (high - low) + low).clamp(max=top)


def random_normal(key, shape, mean, std, dtype):
    g = torch.Generator(device=key.device).manual_seed(int(key))
    return torch.randn(shape, generator=g, dtype=dtype, device=key.device) * std + mean


def cudnn_weights(weights, mode, input_size, hidden, proj, layers, batch_first,
                  bidirectional):
    # cuDNN runs a recurrent layer from one buffer holding all its weights, and copies
    # them into a new one on every call when they lie apart (2x slower end to end on an
    # H200). nn.RNNBase.flatten_parameters moves its parameters into such a buffer once;
    # this does the same for the program's own parameters, as it does: their values do
    # not change; tied ones (one tensor twice) stay apart, as one buffer would untie
    # them, and tensors that are no parameters too, as their storage is not the
    # program's. `proj`: the size of an LSTM's projection of h (0: none).
    if not weights[0].is_cuda or not torch._use_cudnn_rnn_flatten_weight():
        return weights
    base = weights[0].untyped_storage().data_ptr()
    if all(w.untyped_storage().data_ptr() == base for w in weights):
        return weights  # in one buffer already
    if all(isinstance(w, torch.nn.Parameter) for w in weights) and \
            len({w.data_ptr() for w in weights}) == len(weights):
        per = len(weights) // (layers * (2 if bidirectional else 1))
        with torch.cuda.device_of(weights[0]), torch.no_grad():
            torch._cudnn_rnn_flatten_weight(weights, per, input_size, mode, hidden, proj,
                                            layers, batch_first, bidirectional)
    return weights


def column_signs(v):
    # +1/-1 per column of v: the sign of its first largest-magnitude component (ops.spec's
    # sign rule for svd/eigh; a comparison, so no gradient flows through the sign)
    if v.shape[-2] == 0:
        return torch.ones(v.shape[:-2] + v.shape[-1:], dtype=v.dtype, device=v.device)
    pick = torch.gather(v, -2, torch.argmax(v.abs(), dim=-2, keepdim=True)).squeeze(-2)
    return torch.where(pick < 0, -1.0, 1.0).to(v.dtype)


def svd(x, full_matrices):
    # pair j < k flipped by u[:, j]'s sign; extra columns of u / rows of vh by their own
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    su, sv = column_signs(u), column_signs(vh.mT)
    sv = torch.cat([su[..., :k], sv[..., k:]], dim=-1)
    return u * su[..., None, :], s, vh * sv[..., :, None]


def eigh(x):
    w, v = torch.linalg.eigh(x)
    return w, v * column_signs(v)[..., None, :]


def lu(x):
    # torch's getrf (half floats in float32): 1-based pivots, and the permutation read
    # off lu_unpack's P, where x = P l u
    if x.shape[-1] == 0:
        index = torch.zeros(x.shape[:-1], dtype=torch.int32, device=x.device)
        return x.clone(), index, index.clone()
    half = x.dtype in (torch.float16, torch.bfloat16)
    factors, pivots, _ = torch.linalg.lu_factor_ex(x.float() if half else x)
    p = torch.lu_unpack(factors, pivots, unpack_data=False)[0]
    return (factors.to(x.dtype), (pivots - 1).to(torch.int32),
            torch.argmax(p, dim=-2).to(torch.int32))


def complex_ops():
    # torch's functions for `complex_special` (`ivy_ir.core.complex_kernel`)
    return {"is_complex": lambda z: z.is_complex(), "real": torch.real, "imag": torch.imag,
            "complex": torch.complex, "signbit": torch.signbit, "where": torch.where,
            "isinf": torch.isinf, "isnan": torch.isnan, "isfinite": torch.isfinite,
            "abs": torch.abs, "cos": torch.cos, "sin": torch.sin, "copysign": torch.copysign,
            "constant": lambda v, like: v, "stop_gradient": lambda v: v.detach()}
