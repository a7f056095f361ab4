// A non-elementwise op splits the chain: one group before the matmul, one after.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @split(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = ivy.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = ivy.log1p %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = ivy.matmul %b, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = ivy.tanh %m : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = ivy.abs %c : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %d : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @split
// CHECK-NEXT:    %b = ivy.fused
// CHECK-NEXT:      ivy.exp
// CHECK-NEXT:      ivy.log1p
// CHECK-NEXT:      ivy.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %m = ivy.matmul %b, %x
// CHECK-NEXT:    %d = ivy.fused (%{{.*}} = %m) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:      ivy.tanh
// CHECK-NEXT:      ivy.abs
// CHECK-NEXT:      ivy.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %d
