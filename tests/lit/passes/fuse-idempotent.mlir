// Running the pass again changes nothing: a fused body is never fused again, and an
// ivy.fused is no member of a new group (the lone exp after it stays as it is).
// RUN: ivy-opt %s -p fuse-elementwise,fuse-elementwise | filecheck %s
// RUN: ivy-opt %s -p fuse-elementwise | ivy-opt -p fuse-elementwise | filecheck %s

func.func @twice(%x: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<8xf32> {
  %a = ivy.sqrt %x : (tensor<8xf32>) -> tensor<8xf32>
  %b = ivy.square %a : (tensor<8xf32>) -> tensor<8xf32>
  %c = ivy.subtract %b, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %m = ivy.matmul %w, %c : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %e = ivy.exp %m : (tensor<8xf32>) -> tensor<8xf32>
  func.return %e : tensor<8xf32>
}

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %c = ivy.fused
// CHECK-NEXT:      ivy.sqrt
// CHECK-NEXT:      ivy.square
// CHECK-NEXT:      ivy.subtract
// CHECK-NEXT:      ivy.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %m = ivy.matmul %w, %c
// CHECK-NEXT:    %e = ivy.exp %m
// CHECK-NEXT:    func.return %e
// CHECK-NOT:     ivy.fused
