"""One valid example per registry op: operand types and attributes.

Shared by the verifier tests, the lit round-trip generator
(`scripts/gen_roundtrip_lit.py`) and the IR benchmark, so "every op has a working
example" is checked in one place. Ops not listed in `OVERRIDES` get a default example
derived from their spec: each operand a 2x3 tensor of a dtype of its class.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from ivy_ir.dialect import OP_CLASSES, SPECS, IvyOp, TensorSpec

# a representative dtype of each operand dtype class
CLASS_DTYPE = {"any": "float32", "num": "float32", "real": "float32", "inexact": "float32",
               "float": "float32", "mask": "bool",
               "int": "int32", "intbool": "int32", "index": "int64", "bool": "bool",
               "cond": "bool", "text": "string"}
_SHORT = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "i1": "bool",
          "ui32": "uint32", "c64": "complex64", "str": "string"}

Operands = list[Any]  # per spec operand: a type string, None (absent) or a list (variadic)

# name -> (operand types as "2x3xf32" strings, attributes)
OVERRIDES: dict[str, tuple[Operands, dict[str, Any]]] = {
    "constant": ([], {"value": [[1.0, 2.0], [3.0, 4.0]]}),
    "arange": ([], {"start": 0.0, "stop": 5.0}),
    "full": ([], {"shape": [2, 3], "fill_value": 1.5}),
    "zeros": ([], {"shape": [2, 3]}),
    "ones": ([], {"shape": [4], "dtype": "int32"}),
    "eye": ([], {"n_rows": 3, "n_cols": 4, "k": 1}),
    "linspace": ([], {"start": 0.0, "stop": 1.0, "num": 5}),
    "tril": (["3x3xf32"], {"k": -1}),
    "one_hot": (["4xi64"], {"depth": 5}),
    "zeros_like": (["2x3xf32"], {"dtype": "int32"}),
    "full_like": (["2x3xf32"], {"fill_value": 2.0}),
    "astype": (["2x3xf32"], {"dtype": "float64"}),
    "bitcast": (["2x3xf32"], {"dtype": "uint32"}),
    "broadcast_to": (["1x3xf32"], {"shape": [4, 3]}),
    "clip": (["2x3xf32"], {"min": 0.0, "max": 6.0}),
    "add": (["2x3xf32", "3xf32"], {}),
    "sum": (["2x3xf32"], {"axis": [1], "keepdims": True}),
    "var": (["2x3xf32"], {"axis": [0], "correction": 1.0}),
    "argmax": (["2x3xf32"], {"axis": 1}),
    "cumsum": (["2x3xf32"], {"axis": 1}),
    "cumprod": (["2x3xf32"], {"axis": 0}),
    "cummax": (["2x3xf32"], {"axis": 1}),
    "cummin": (["2x3xf32"], {"axis": 0}),
    "logcumsumexp": (["2x3xf32"], {"axis": 1}),
    "matmul": (["2x3xf32", "3x4xf32"], {}),
    "tensordot": (["2x3xf32", "3x4xf32"], {"axes_x": [1], "axes_y": [0]}),
    "einsum": ([["2x3xf32", "3x4xf32"]], {"equation": "ij,jk->ik"}),
    "outer": (["3xf32", "4xf32"], {}),
    "diagonal": (["3x3xf32"], {}),
    "vector_norm": (["2x3xf32"], {"ord": 1.0, "axis": [1]}),
    "matrix_norm": (["3x3xf32"], {"ord": "nuc"}),
    "cholesky": (["3x3xf32"], {"upper": True}),
    "inv": (["3x3xf32"], {}),
    "matrix_exp": (["3x3xf32"], {}),
    "det": (["3x3xf32"], {}),
    "solve": (["3x3xf32", "3x2xf32"], {}),
    "qr": (["4x3xf32"], {}),
    "svd": (["4x3xf32"], {"full_matrices": False}),
    "eigh": (["3x3xf32"], {}),
    "lu": (["3x3xf32"], {}),
    "slogdet": (["3x3xf32"], {}),
    "reshape": (["2x3xf32"], {"shape": [3, 2]}),
    "permute_dims": (["2x3xf32"], {"axes": [1, 0]}),
    "expand_dims": (["2x3xf32"], {"axis": [0]}),
    "squeeze": (["1x3xf32"], {"axis": [0]}),
    "concat": ([["2x3xf32", "4x3xf32"]], {}),
    "stack": ([["2x3xf32", "2x3xf32"]], {"axis": 1}),
    "split": (["5x3xf32"], {"sizes": [2, 3]}),
    "flip": (["2x3xf32"], {"axis": [1]}),
    "roll": (["2x3xf32"], {"shift": [1], "axis": [1]}),
    "tile": (["2x3xf32"], {"reps": [2, 1]}),
    "repeat": (["2x3xf32"], {"repeats": 2, "axis": 1}),
    "pad": (["2x3xf32"], {"pad_width": [1, 1, 0, 2], "mode": "edge"}),
    "slice": (["4x6xf32"], {"start": [0, 1], "stop": [4, 5], "step": [2, 2]}),
    "take": (["5x3xf32", "4xi64"], {}),
    "take_along_axis": (["2x3xf32", "2x2xi64"], {"axis": 1}),
    "gather_nd": (["4x3xf32", "2x1xi64"], {}),
    "scatter_nd": (["4x3xf32", "2x1xi64", "2x3xf32"], {}),
    "scatter_add": (["4x3xf32", "2x1xi64", "2x3xf32"], {}),
    "scatter_mul": (["4x3xf32", "2x1xi64", "2x3xf32"], {}),
    "scatter_max": (["4x3xf32", "2x1xi64", "2x3xf32"], {}),
    "scatter_min": (["4x3xf32", "2x1xi64", "2x3xf32"], {}),
    "sort": (["2x3xf32"], {"descending": True}),
    "argsort": (["2x3xf32"], {"axis": 0}),
    "top_k": (["2x5xf32"], {"k": 2}),
    "unique": (["2x3xf32"], {"axis": 1, "sorted": False}),
    "non_max_suppression": (["1x5x4xf32", "1x2x5xf32"], {
        "max_output_boxes_per_class": 3, "iou_threshold": 0.5, "score_threshold": 0.25}),
    "fftn": (["2x3xf32"], {"axes": [1, 0], "lengths": [4, 2], "norm": "ortho"}),
    "rfft": (["2x6xf32"], {"n": 6}),
    "irfft": (["2x4xc64"], {"n": 6, "norm": "forward"}),
    "leaky_relu": (["2x3xf32"], {"alpha": 0.2}),
    "gelu": (["2x3xf32"], {"approximate": "tanh"}),
    "softmax": (["2x3xf32"], {"axis": 0}),
    "linear": (["2x3xf32", "4x3xf32", "4xf32"], {}),
    "conv": (["1x2x8x8xf32", "4x2x3x3xf32", "4xf32"],
             {"strides": [1, 1], "padding": [1, 1, 1, 1], "dilations": [1, 1]}),
    "conv_transpose": (["1x4x4x4xf32", "4x2x3x3xf32", None],
                       {"strides": [2, 2], "padding": [1, 1, 1, 1], "output_padding": [1, 1],
                        "dilations": [1, 1]}),
    "max_pool": (["1x2x8x8xf32"], {"kernel": [2, 2], "strides": [2, 2],
                                   "padding": [0, 0, 0, 0]}),
    "avg_pool": (["1x2x8x8xf32"], {"kernel": [3, 3], "strides": [1, 1],
                                   "padding": [1, 1, 1, 1]}),
    "adaptive_avg_pool": (["1x2x8x8xf32"], {"output_size": [1, 1]}),
    "interpolate": (["1x2x4x4xf32"], {"size": [8, 8], "mode": "bilinear"}),
    "layer_norm": (["2x3xf32", "3xf32", "3xf32"], {}),
    "rms_norm": (["2x3xf32", "3xf32"], {"eps": 1e-5}),
    "batch_norm": (["2x4x5xf32", "4xf32", "4xf32", "4xf32", "4xf32"], {}),
    "group_norm": (["2x4x5xf32", "4xf32", "4xf32"], {"num_groups": 2}),
    "scaled_dot_product_attention": (["2x4x8xf32", "2x4x8xf32", "2x4x8xf32", None],
                                     {"causal": True}),
    "embedding": (["2x3xi64", "10x4xf32"], {}),
    # (T, B, F) = (5, 2, 3), hidden 4; weights w_ih, w_hh, b_ih, b_hh
    "lstm": (["5x2x3xf32", "1x2x4xf32", "1x2x4xf32",
              ["16x3xf32", "16x4xf32", "16xf32", "16xf32"]], {}),
    "gru": (["5x2x3xf32", "1x2x4xf32", ["12x3xf32", "12x4xf32", "12xf32", "12xf32"]], {}),
    "rnn": (["5x2x3xf32", "1x2x4xf32", ["4x3xf32", "4x4xf32"]],
            {"nonlinearity": "relu", "has_biases": False}),
    "random_uniform": (["i64"], {"shape": [2, 3]}),
    "random_normal": (["i64"], {"shape": [3], "std": 0.5}),
    "threefry2x32": (["ui32", "ui32", "2x3xui32", "2x3xui32"], {}),
    "string_normalize": (["1x3xstr"], {"case": "upper", "stopwords": ["a", "b"]}),
    "string_split": (["2x3xstr"], {"delimiter": ",", "maxsplit": 2}),
    "regex_full_match": (["2x3xstr"], {"pattern": "[a-z]+"}),
    "string_lookup": (["2x3xstr"], {"keys": ["a", "b"]}),
}


def parse_type(text: str) -> TensorSpec:
    """"2x3xf32" -> TensorSpec((2, 3), "float32"); "f32" is a rank-0 tensor."""
    *dims, dtype = text.split("x")
    return TensorSpec(tuple(int(d) for d in dims), _SHORT[dtype])


def example(name: str) -> tuple[list[Any], dict[str, Any]]:
    """Operand types (TensorSpec / None / list) and attributes of `name`'s example."""
    if name in OVERRIDES:
        operands, attrs = OVERRIDES[name]
        return [None if o is None else [parse_type(t) for t in o] if isinstance(o, list)
                else parse_type(o) for o in operands], dict(attrs)
    return [TensorSpec((2, 3), CLASS_DTYPE[a.dtype_class]) for a in SPECS[name].operands], {}


def build_in_block(name: str, block: Block, args: list[Any] | None = None) -> IvyOp:
    """Build `name`'s example op at the end of `block`, adding block arguments for its
    operands (or using `args`, grouped like the operands, when given)."""
    types, attrs = example(name)
    if args is None:
        args = []
        for t in types:
            if t is None:
                args.append(None)
            elif isinstance(t, list):
                args.append([block.insert_arg(s.to_xdsl(), len(block.args)) for s in t])
            else:
                args.append(block.insert_arg(t.to_xdsl(), len(block.args)))
    op = OP_CLASSES[name].build(*args, **attrs)
    block.add_op(op)
    return op


def example_func(name: str, func_name: str | None = None) -> func.FuncOp:
    """A func.func holding `name`'s example op and returning all its results."""
    block = Block()
    op = build_in_block(name, block)
    block.add_op(func.ReturnOp(*op.results))
    return func.FuncOp(func_name or name, ([a.type for a in block.args],
                                           [r.type for r in op.results]), Region(block))


def example_module(names: list[str]) -> ModuleOp:
    """A module with one example function per op name."""
    return ModuleOp([example_func(n) for n in names])
