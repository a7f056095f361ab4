// Algebraic identities of `canonicalize`: exact for the dtypes they fire on, and
// refused where floats break them (NaN, inf, -0.0). strip-wrappers does no algebra.
// RUN: ivy-opt %s -p canonicalize | filecheck %s
// RUN: ivy-opt %s -p strip-wrappers | filecheck %s --check-prefix=STRIP

func.func @double_negation(%x: tensor<3xf32>, %b: tensor<3xi1>, %i: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi1>, tensor<3xi8>) {
  %n = ivy.negative %x : (tensor<3xf32>) -> tensor<3xf32>
  %nn = ivy.negative %n : (tensor<3xf32>) -> tensor<3xf32>
  %l = ivy.logical_not %b : (tensor<3xi1>) -> tensor<3xi1>
  %ll = ivy.logical_not %l : (tensor<3xi1>) -> tensor<3xi1>
  %v = ivy.bitwise_invert %i : (tensor<3xi8>) -> tensor<3xi8>
  %vv = ivy.bitwise_invert %v : (tensor<3xi8>) -> tensor<3xi8>
  func.return %nn, %ll, %vv : tensor<3xf32>, tensor<3xi1>, tensor<3xi8>
}
// CHECK-LABEL: func.func @double_negation
// CHECK-NEXT:    func.return %x, %b, %i : tensor<3xf32>, tensor<3xi1>, tensor<3xi8>
// STRIP-LABEL: func.func @double_negation
// STRIP-NEXT:    %n = ivy.negative %x

func.func @times_zero_int(%i: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %z = ivy.constant {value = dense<0> : tensor<3xi32>} : () -> tensor<3xi32>
  %y = ivy.multiply %z, %i : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %y : tensor<2x3xi32>
}
// CHECK-LABEL: func.func @times_zero_int
// CHECK-NEXT:    %y = ivy.zeros_like %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    func.return %y

func.func @times_zero_float(%x: tensor<3xf32>) -> tensor<3xf32> {
  %z = ivy.constant {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %y = ivy.multiply %x, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
// NaN * 0 is NaN, inf * 0 is NaN, -1 * 0 is -0.0: x * 0 stays for floats
// CHECK-LABEL: func.func @times_zero_float
// CHECK:         %y = ivy.multiply %x, %z

func.func @self_subtract(%i: tensor<3xi64>, %x: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xf32>) {
  %a = ivy.subtract %i, %i : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %b = ivy.subtract %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b : tensor<3xi64>, tensor<3xf32>
}
// x - x is NaN for inf and NaN: only the integer one folds to zeros
// CHECK-LABEL: func.func @self_subtract
// CHECK-NEXT:    %a = ivy.zeros_like %i
// CHECK-NEXT:    %b = ivy.subtract %x, %x

func.func @zero_minus(%i: tensor<3xi32>, %x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) {
  %zi = ivy.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %a = ivy.subtract %zi, %i : (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
  %nz = ivy.constant {value = dense<-0.0> : tensor<f32>} : () -> tensor<f32>
  %b = ivy.subtract %nz, %x : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %pz = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %c = ivy.subtract %pz, %x : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b, %c : tensor<3xi32>, tensor<3xf32>, tensor<3xf32>
}
// (-0.0) - x is -x exactly; 0.0 - 0.0 is +0.0 but -(0.0) is -0.0, so 0.0 - x stays
// CHECK-LABEL: func.func @zero_minus
// CHECK:         %a = ivy.negative %i
// CHECK-NEXT:    %b = ivy.negative %x
// CHECK:         %c = ivy.subtract %pz, %x

func.func @minus_one(%x: tensor<3xf32>, %i: tensor<3xi16>) -> (tensor<3xf32>, tensor<3xi16>) {
  %m = ivy.constant {value = dense<-1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.divide %x, %m : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %mi = ivy.constant {value = dense<-1> : tensor<3xi16>} : () -> tensor<3xi16>
  %b = ivy.multiply %mi, %i : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  func.return %a, %b : tensor<3xf32>, tensor<3xi16>
}
// CHECK-LABEL: func.func @minus_one
// CHECK-NEXT:    %a = ivy.negative %x
// CHECK-NEXT:    %b = ivy.negative %i

func.func @floor_divide_one(%i: tensor<3xi32>, %x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
  %oi = ivy.ones {shape = [3], dtype = i32} : () -> tensor<3xi32>
  %a = ivy.floor_divide %i, %oi : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %of = ivy.ones {shape = [3]} : () -> tensor<3xf32>
  %b = ivy.floor_divide %x, %of : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b : tensor<3xi32>, tensor<3xf32>
}
// x // 1 is floor(x) for floats
// CHECK-LABEL: func.func @floor_divide_one
// CHECK:         %b = ivy.floor_divide %x, %of
// CHECK-NEXT:    func.return %i, %b

func.func @self_ops(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = ivy.maximum %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = ivy.bitwise_xor %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %c = ivy.equal %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %d = ivy.equal %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %e = ivy.less %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  func.return %a, %b, %c, %d, %e : tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}
// x == x is false for NaN: only the integer comparison folds
// CHECK-LABEL: func.func @self_ops
// CHECK-NEXT:    %b = ivy.zeros_like %i : (tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    %c = ivy.ones_like %i {dtype = i1} : (tensor<3xi32>) -> tensor<3xi1>
// CHECK-NEXT:    %d = ivy.equal %x, %x
// CHECK-NEXT:    %e = ivy.zeros_like %x {dtype = i1} : (tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT:    func.return %x, %b, %c, %d, %e

func.func @projections(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = ivy.abs %x : (tensor<3xf32>) -> tensor<3xf32>
  %aa = ivy.abs %a : (tensor<3xf32>) -> tensor<3xf32>
  %r = ivy.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %rr = ivy.relu %r : (tensor<3xf32>) -> tensor<3xf32>
  %n = ivy.negative %x : (tensor<3xf32>) -> tensor<3xf32>
  %an = ivy.abs %n : (tensor<3xf32>) -> tensor<3xf32>
  func.return %aa, %rr, %an : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
// abs(abs(x)) -> abs(x), relu(relu(x)) -> relu(x), abs(-x) -> abs(x) (then CSE'd by cse)
// CHECK-LABEL: func.func @projections
// CHECK-NEXT:    %a = ivy.abs %x
// CHECK-NEXT:    %r = ivy.relu %x
// CHECK-NEXT:    %an = ivy.abs %x
// CHECK-NEXT:    func.return %a, %r, %an

func.func @where_same(%c: tensor<3xi1>, %x: tensor<3xf32>, %w: tensor<2x3xi1>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %a = ivy.where %c, %x, %x : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = ivy.where %w, %x, %x : (tensor<2x3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %a, %b : tensor<3xf32>, tensor<2x3xf32>
}
// the second where broadcasts x to the condition's shape: it stays
// CHECK-LABEL: func.func @where_same
// CHECK-NEXT:    %b = ivy.where %w, %x, %x
// CHECK-NEXT:    func.return %x, %b

func.func @logic_constants(%b: tensor<3xi1>, %i: tensor<3xi8>, %u: tensor<3xui8>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi8>, tensor<3xui8>) {
  %t = ivy.constant {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %f = ivy.constant {value = dense<false> : tensor<3xi1>} : () -> tensor<3xi1>
  %a = ivy.logical_and %t, %b : (tensor<i1>, tensor<3xi1>) -> tensor<3xi1>
  %o = ivy.logical_or %b, %t : (tensor<3xi1>, tensor<i1>) -> tensor<3xi1>
  %x = ivy.logical_xor %b, %f : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %m = ivy.constant {value = dense<-1> : tensor<i8>} : () -> tensor<i8>
  %bi = ivy.bitwise_and %i, %m : (tensor<3xi8>, tensor<i8>) -> tensor<3xi8>
  %mu = ivy.constant {value = dense<255> : tensor<ui8>} : () -> tensor<ui8>
  %bu = ivy.bitwise_and %mu, %u : (tensor<ui8>, tensor<3xui8>) -> tensor<3xui8>
  func.return %a, %o, %x, %bi, %bu : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi8>, tensor<3xui8>
}
// CHECK-LABEL: func.func @logic_constants
// CHECK-NEXT:    %o = ivy.ones_like %b : (tensor<3xi1>) -> tensor<3xi1>
// CHECK-NEXT:    func.return %b, %o, %b, %i, %u
