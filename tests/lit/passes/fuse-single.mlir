// Groups of one op stay unfused, and nothing but elementwise ops is ever fused.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @singles(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %a = ivy.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = ivy.sum %a {axis = [0]} : (tensor<2x3xf32>) -> tensor<3xf32>
  %e = ivy.exp %s : (tensor<3xf32>) -> tensor<3xf32>
  %r = ivy.reshape %e {shape = [3]} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @singles
// CHECK-NOT:     ivy.fused
// CHECK:         %a = ivy.relu %x
// CHECK-NEXT:    %s = ivy.sum %a
// CHECK-NEXT:    %e = ivy.exp %s
// CHECK-NEXT:    %r = ivy.reshape %e
// CHECK-NOT:     ivy.fused
