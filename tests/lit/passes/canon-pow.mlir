// pow by a constant exponent: x**1 -> x, x**0 -> 1, x**2 -> square, x**-1 -> reciprocal
// and x**0.5 -> sqrt (floats), x**3 -> x*x*x (ints only: floats would round twice).
// RUN: ivy-opt %s -p canonicalize | filecheck %s

func.func @pow_small(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %c1 = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.pow %x, %c1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %c0 = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %b = ivy.pow %x, %c0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %c2 = ivy.full {shape = [3], fill_value = 2.0} : () -> tensor<3xf32>
  %c = ivy.pow %x, %c2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %cm = ivy.constant {value = dense<-1.0> : tensor<f32>} : () -> tensor<f32>
  %d = ivy.pow %x, %cm : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %ch = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %e = ivy.pow %x, %ch : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %a, %b, %c, %d, %e : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @pow_small
// CHECK-NEXT:    %b = ivy.ones_like %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %c = ivy.square %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %d = ivy.reciprocal %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %e = ivy.sqrt %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %x, %b, %c, %d, %e

func.func @pow_int(%i: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %c2 = ivy.constant {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %a = ivy.pow %i, %c2 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  %c3 = ivy.constant {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %b = ivy.pow %i, %c3 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  func.return %a, %b : tensor<3xi32>, tensor<3xi32>
}
// x*x*x is exact modular arithmetic for ints (the operands end in canonical order)
// CHECK-LABEL: func.func @pow_int
// CHECK-NEXT:    %a = ivy.square %i
// CHECK-NEXT:    %[[SQ:[a-z0-9_]+]] = ivy.square %i
// CHECK-NEXT:    %[[CUBE:[a-z0-9_]+]] = ivy.multiply %i, %[[SQ]]
// CHECK-NEXT:    func.return %a, %[[CUBE]]

func.func @pow_kept(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>, tensor<2x3xf32>, tensor<3xf32>) {
  %c3 = ivy.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.pow %x, %c3 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %cm = ivy.constant {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %b = ivy.pow %i, %cm : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  %c1 = ivy.constant {value = dense<1.0> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %c = ivy.pow %x, %c1 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mixed = ivy.constant {value = dense<[2.0, 0.5, 1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %d = ivy.pow %x, %mixed : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b, %c, %d : tensor<3xf32>, tensor<3xi32>, tensor<2x3xf32>, tensor<3xf32>
}
// float cube rounds differently from pow, ints have no negative powers, a broadcasting
// exponent changes the shape, and a non-splat exponent is no single identity
// CHECK-LABEL: func.func @pow_kept
// CHECK:         %a = ivy.pow %x, %c3
// CHECK:         %b = ivy.pow %i, %cm
// CHECK:         %c = ivy.pow %x, %c1
// CHECK:         %d = ivy.pow %x, %mixed
