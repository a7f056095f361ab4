// Each group is convex on its own, but {sin, add} and {exp, cos, multiply} depend on
// each other through the two matmuls (sin -> matmul -> cos, exp -> matmul -> add):
// fusing both would make each fused op need the other's result, so the later group
// stays unfused. The %p user between members moves after the fused op.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @groups(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %p = ivy.exp %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = ivy.sin %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n1 = ivy.matmul %p, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %n2 = ivy.matmul %a, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = ivy.cos %n2 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = ivy.add %n1, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = ivy.multiply %p, %q : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = ivy.subtract %b, %r : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %o : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @groups
// CHECK-NEXT:    %a = ivy.sin %x
// CHECK-NEXT:    %n2 = ivy.matmul %a, %x
// CHECK-NEXT:    %p, %r = ivy.fused (%[[X:.*]] = %x, %[[N2:.*]] = %n2)
// CHECK-NEXT:      %[[P:.*]] = ivy.exp %[[X]]
// CHECK-NEXT:      %q = ivy.cos %[[N2]]
// CHECK-NEXT:      %[[R:.*]] = ivy.multiply %[[P]], %q
// CHECK-NEXT:      ivy.yield %[[P]], %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %n1 = ivy.matmul %p, %x
// CHECK-NEXT:    %b = ivy.add %n1, %a
// CHECK-NEXT:    %o = ivy.subtract %b, %r
// CHECK-NEXT:    func.return %o
// CHECK-NOT:     ivy.fused
