// The storage dtypes (float8, float4, int4, int2) belong to `astype` alone: every other
// op refuses them as operands (no dtype class holds them) and as results.
// RUN: ivy-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @add_int4(%a: tensor<2xi4>) -> tensor<2xi4> {
  %b = ivy.add %a, %a : (tensor<2xi4>, tensor<2xi4>) -> tensor<2xi4>
  func.return %b : tensor<2xi4>
}
// CHECK: Operation does not verify: ivy.add: operand 'x' must have a num dtype, got int4

// -----

func.func @reshape_float8(%a: tensor<4xf8E5M2>) -> tensor<2x2xf8E5M2> {
  %b = ivy.reshape %a {shape = [2, 2]} : (tensor<4xf8E5M2>) -> tensor<2x2xf8E5M2>
  func.return %b : tensor<2x2xf8E5M2>
}
// CHECK: Operation does not verify: ivy.reshape: operand 'x' must have a non-storage dtype, got float8_e5m2

// -----

func.func @zeros_float8(%a: tensor<2xf32>) -> tensor<2xf8E4M3FN> {
  %b = ivy.zeros_like %a {dtype = f8E4M3FN} : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  func.return %b : tensor<2xf8E4M3FN>
}
// CHECK: Operation does not verify: ivy.zeros_like: float8_e4m3fn is a storage dtype: only astype converts into it
