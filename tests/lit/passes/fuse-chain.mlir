// A chain of elementwise ops (with broadcasting) becomes one ivy.fused whose body
// holds the very same ops; values read from outside become block arguments.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @chain(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = ivy.multiply %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %b = ivy.add %a, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = ivy.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %c = ivy.fused (%[[X:.*]] = %x, %[[Y:.*]] = %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:      %a = ivy.multiply %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %b = ivy.add %a, %[[X]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %[[C:.*]] = ivy.tanh %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      ivy.yield %[[C]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %c : tensor<4x8xf32>
