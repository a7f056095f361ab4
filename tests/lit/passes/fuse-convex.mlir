// %a and %c are elementwise, but %c also reads %a through a matmul: one group of
// both would need its own result (a -> matmul -> c), so neither is fused.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @through(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = ivy.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = ivy.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = ivy.add %a, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @through
// CHECK-NOT:     ivy.fused
// CHECK:         %a = ivy.exp %x
// CHECK-NEXT:    %m = ivy.matmul %a, %a
// CHECK-NEXT:    %c = ivy.add %a, %m
// CHECK-NEXT:    func.return %c
