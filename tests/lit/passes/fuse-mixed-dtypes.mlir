// Comparisons, where and astype mix dtypes inside one group; a constant stays outside
// as an operand (the lowering hoists it), and the group takes the location of its
// last op while every body op keeps its own.
// RUN: ivy-opt %s -p fuse-elementwise --print-debuginfo | filecheck %s

func.func @clamp_count(%x: tensor<5xf32> loc("m.py":1:1)) -> tensor<5xi32> {
  %z = ivy.constant {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32> loc("m.py":2:5)
  %p = ivy.greater %x, %z : (tensor<5xf32>, tensor<f32>) -> tensor<5xi1> loc("m.py":3:5)
  %w = ivy.where %p, %x, %z : (tensor<5xi1>, tensor<5xf32>, tensor<f32>) -> tensor<5xf32> loc("m.py":4:5)
  %i = ivy.astype %w {dtype = i32} : (tensor<5xf32>) -> tensor<5xi32> loc("m.py":5:5)
  func.return %i : tensor<5xi32> loc("m.py":6:5)
}

// CHECK-LABEL: func.func @clamp_count
// CHECK-NEXT:    %z = ivy.constant
// CHECK-NEXT:    %i = ivy.fused (%[[X:.*]] = %x, %[[Z:.*]] = %z) : (tensor<5xf32>, tensor<f32>) -> tensor<5xi32> {
// CHECK-NEXT:      %p = ivy.greater %[[X]], %[[Z]] : (tensor<5xf32>, tensor<f32>) -> tensor<5xi1> loc("m.py":3:5)
// CHECK-NEXT:      %w = ivy.where %p, %[[X]], %[[Z]] : (tensor<5xi1>, tensor<5xf32>, tensor<f32>) -> tensor<5xf32> loc("m.py":4:5)
// CHECK-NEXT:      %[[I:.*]] = ivy.astype %w {dtype = i32} : (tensor<5xf32>) -> tensor<5xi32> loc("m.py":5:5)
// CHECK-NEXT:      ivy.yield %[[I]] : tensor<5xi32>
// CHECK-NEXT:    } loc("m.py":5:5)
// CHECK-NEXT:    func.return %i
