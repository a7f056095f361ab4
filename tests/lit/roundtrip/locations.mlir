// Source locations and parameter markers survive printing and parsing.
// RUN: ivy-opt %s --print-debuginfo | filecheck %s
// RUN: ivy-opt %s --print-debuginfo | ivy-opt --print-debuginfo | filecheck %s

func.func @main(%x: tensor<2x8xf32> loc("model.py":3:1), %w: tensor<4x8xf32> {ivy.param = "fc.weight"} loc("model.py":3:1)) -> tensor<2x4xf32> {
  %y = ivy.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32> loc("model.py":42:9)
  %z = ivy.relu %y : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("aten::relu")
  func.return %z : tensor<2x4xf32> loc("model.py":43:5)
} loc("model.py":2:1)

// CHECK:      func.func @main(%x: tensor<2x8xf32> loc("model.py":3:1), %w: tensor<4x8xf32> {ivy.param = "fc.weight"} loc("model.py":3:1)) -> tensor<2x4xf32> {
// CHECK-NEXT:   %y = ivy.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32> loc("model.py":42:9)
// CHECK-NEXT:   %z = ivy.relu %y : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("aten::relu")
// CHECK-NEXT:   func.return %z : tensor<2x4xf32> loc("model.py":43:5)
