// cse and dce inside control-flow bodies. Bodies are isolated from above, so cse
// starts each body with nothing known: the body's constant is not merged with the
// equal one outside (its uses would then cross the region boundary), while duplicates
// within one body merge, and equal region ops merge as a whole.
// RUN: ivy-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: ivy-opt %s -p dce | filecheck %s --check-prefix=DCE

func.func @in_body(%h0: tensor<2x3xf32>, %xs: tensor<4x2x3xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %k0 = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 4} : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
    %k = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %a = ivy.add %c, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %b = ivy.add %c, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %m = ivy.multiply %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %dead = ivy.sin %m : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = ivy.add %m, %k : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ivy.yield %m, %y : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.return %k0, %h, %ys : tensor<f32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}
// CSE-LABEL: func.func @in_body
// CSE-NEXT:    %k0 = ivy.constant
// CSE-NEXT:    %h, %ys = ivy.scan
// CSE-NEXT:      %k = ivy.constant
// CSE-NEXT:      %a = ivy.add %c, %t
// CSE-NEXT:      %m = ivy.multiply %a, %a
// CSE-NEXT:      %y = ivy.add %m, %k
// CSE-NEXT:      ivy.yield %m, %y

// DCE-LABEL: func.func @in_body
// DCE:           %m = ivy.multiply %a, %b
// DCE-NEXT:      %y = ivy.add %m, %k
// DCE-NEXT:      ivy.yield %m, %y

func.func @twins(%p: tensor<i1>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r1 = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    ivy.yield %b : tensor<3xf32>
  }
  %r2 = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    ivy.yield %b : tensor<3xf32>
  }
  %r3 = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.cos %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    ivy.yield %b : tensor<3xf32>
  }
  %unused = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.exp %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    ivy.yield %b : tensor<3xf32>
  }
  func.return %r1, %r2, %r3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
// CSE-LABEL: func.func @twins
// CSE-NEXT:    %r1 = ivy.cond %p, %x
// CSE-NEXT:      ivy.sin
// CSE:         %r3 = ivy.cond %p, %x
// CSE-NEXT:      ivy.cos
// CSE-NOT:     ivy.exp
// CSE:         func.return %r1, %r1, %r3

// DCE-LABEL: func.func @twins
// DCE:         %r3 = ivy.cond
// DCE-NOT:     ivy.exp
// DCE:         func.return %r1, %r2, %r3
