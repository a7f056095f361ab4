// fuse-elementwise fuses the elementwise chains inside control-flow bodies, each body
// on its own (a group never spans a region boundary), and around the region op.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @scan_body(%h0: tensor<2x3xf32>, %xs: tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 4} : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
    %a = ivy.add %c, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = ivy.tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %s = ivy.sum %e {axis = [1], keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %m = ivy.multiply %e, %s : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %n = ivy.negative %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ivy.yield %n, %e : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.return %h, %ys : tensor<2x3xf32>, tensor<4x2x3xf32>
}
// CHECK-LABEL: func.func @scan_body
// CHECK-NEXT:    %h, %ys = ivy.scan %h0, %xs
// CHECK-NEXT:      %e = ivy.fused (%[[C:.*]] = %c, %[[T:.*]] = %t) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:        %a = ivy.add %[[C]], %[[T]]
// CHECK-NEXT:        %[[E:.*]] = ivy.tanh %a
// CHECK-NEXT:        ivy.yield %[[E]]
// CHECK-NEXT:      }
// CHECK-NEXT:      %s = ivy.sum %e
// CHECK-NEXT:      %n = ivy.fused
// CHECK-NEXT:        %m = ivy.multiply
// CHECK-NEXT:        %[[N:.*]] = ivy.negative %m
// CHECK-NEXT:        ivy.yield %[[N]]
// CHECK-NEXT:      }
// CHECK-NEXT:      ivy.yield %n, %e

func.func @branches(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    %q = ivy.square %s : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %q : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    %c = ivy.cos %b : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %c : tensor<3xf32>
  }
  %y = ivy.exp %r : (tensor<3xf32>) -> tensor<3xf32>
  %z = ivy.abs %y : (tensor<3xf32>) -> tensor<3xf32>
  func.return %z : tensor<3xf32>
}
// CHECK-LABEL: func.func @branches
// CHECK-NEXT:    %r = ivy.cond %p, %x
// CHECK-NEXT:      %q = ivy.fused (%[[A:.*]] = %a)
// CHECK-NEXT:        %s = ivy.sin %[[A]]
// CHECK-NEXT:        ivy.square %s
// CHECK:         } orelse(%b: tensor<3xf32>) {
// CHECK-NEXT:      %c = ivy.cos %b
// CHECK-NEXT:      ivy.yield %c
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = ivy.fused (%[[R:.*]] = %r)
// CHECK-NEXT:      %y = ivy.exp %[[R]]
