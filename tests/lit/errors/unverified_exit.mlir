// Without --verify-diagnostics a verifier failure is a clean error at the op (file:line:col), exit 1.
// RUN: not ivy-opt %s 2>&1 | filecheck %s

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %b = ivy.sqrt %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %b : tensor<2x3xi32>
}

// CHECK: ivy-opt: error: {{.*}}unverified_exit.mlir:5:8: ivy.sqrt: operand 'x' must have a float or complex dtype, got int32
// CHECK-NOT: Traceback
