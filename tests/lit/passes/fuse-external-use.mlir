// A member used outside the group becomes an extra result of ivy.fused; its user
// (here between two members) moves after the fused op, which takes the place of the
// last member.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @escape(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = ivy.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = ivy.matmul %a, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = ivy.negative %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = ivy.add %b, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %c, %m : tensor<4x4xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @escape
// CHECK-NEXT:    %a, %c = ivy.fused (%[[X:.*]] = %x) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK-NEXT:      %[[A:.*]] = ivy.exp %[[X]]
// CHECK-NEXT:      %b = ivy.negative %[[A]]
// CHECK-NEXT:      %[[C:.*]] = ivy.add %b, %[[X]]
// CHECK-NEXT:      ivy.yield %[[A]], %[[C]] : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %m = ivy.matmul %a, %w
// CHECK-NEXT:    func.return %c, %m
