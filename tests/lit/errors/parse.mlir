// Malformed IR: ivy-opt exits non-zero with file:line:column and no traceback.
// RUN: not ivy-opt %s 2>&1 | filecheck %s

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = ivy.exp %a {fast = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// CHECK: ivy-opt: error: {{.*}}parse.mlir:5:20
// CHECK: ivy.exp has no attribute 'fast'
// CHECK-NOT: Traceback
