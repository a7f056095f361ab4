// A missing comma between operands is reported at its line and column.
// RUN: not ivy-opt %s 2>&1 | filecheck %s

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = ivy.add %a %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// CHECK: ivy-opt: error: {{.*}}parse_operands.mlir:5:19
// CHECK: Expected ':'
// CHECK-NOT: Traceback
