// Verifier errors name the op and say what is wrong, one case per chunk.
// RUN: ivy-opt %s --split-input-file --verify-diagnostics | filecheck %s

// wrong dtype class: exp takes a float or complex operand
func.func @int_exp(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %b = ivy.exp %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %b : tensor<2x3xi32>
}
// CHECK: Operation does not verify: ivy.exp: operand 'x' must have a float or complex dtype, got int32

// -----

// result type does not match the inferred one
func.func @bad_result(%a: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %b = ivy.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf64>
  func.return %b : tensor<2x3xf64>
}
// CHECK: Operation does not verify: ivy.exp: result types tensor<2x3xf64> do not match the inferred tensor<2x3xf32>

// -----

// operand dtypes must agree
func.func @mixed(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) -> tensor<2x3xf32> {
  %c = ivy.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
// CHECK: Operation does not verify: ivy.add: operands must share one dtype

// -----

// shapes that do not broadcast
func.func @no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %c = ivy.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
// CHECK: Operation does not verify: ivy.add: shapes (2, 3) and (4,) do not broadcast

// -----

// matmul inner dimensions differ
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %c = ivy.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %c : tensor<2x5xf32>
}
// CHECK: Operation does not verify: ivy.matmul: contracted dims of (2, 3) and (4, 5) differ: 3 != 4

// -----

// reduction axis out of range (a bad attribute value)
func.func @axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %b = ivy.sum %a {axis = [5]} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %b : tensor<2xf32>
}
// CHECK: Operation does not verify: ivy.sum: axis 5 is out of range for rank 2

// -----

// attribute of the wrong kind, in the generic format
func.func @kind(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %b = "ivy.reshape"(%a) <{shape = "3x2"}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %b : tensor<3x2xf32>
}
// CHECK: Operation does not verify: ivy.reshape: attribute 'shape' must be of kind shape

// -----

// unknown attribute, in the generic format
func.func @unknown(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = "ivy.exp"(%a) <{fast = true}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}
// CHECK: Operation does not verify: property 'fast' is not defined by the operation 'ivy.exp'

// -----

// a symbolic size may only name the dynamic dims an input declares
func.func @undeclared(%a: tensor<?x3xf32> {ivy.dims = ["batch", ""]}) -> tensor<?xf32> {
  %b = ivy.reshape %a {shape = ["batch * rows"]} : (tensor<?x3xf32>) -> tensor<?xf32>
  func.return %b : tensor<?xf32>
}
// CHECK: size 'batch * rows' names rows, which no input's {ivy.dims} declares

// -----

// so may an arange bound
func.func @undeclared_bound(%a: tensor<?x3xf32> {ivy.dims = ["batch", ""]}) -> tensor<?xi64> {
  %b = ivy.arange {start = 0.0, stop = "seq"} : () -> tensor<?xi64>
  func.return %b : tensor<?xi64>
}
// CHECK: size 'seq' names seq, which no input's {ivy.dims} declares
