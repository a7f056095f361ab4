// stop_gradient where no gradient reaches its operand anyway (integers, bools, a value
// made by a nondiff op, another stop_gradient) is its operand; on a float input or a
// differentiable op's result it stays, since there it changes what autodiff computes.
// RUN: ivy-opt %s -p canonicalize | filecheck %s

func.func @cut_twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = ivy.stop_gradient %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = ivy.stop_gradient %a : (tensor<3xf32>) -> tensor<3xf32>
  func.return %b : tensor<3xf32>
}
// CHECK-LABEL: func.func @cut_twice
// CHECK-NEXT:    %a = ivy.stop_gradient %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %a

func.func @integers_and_floors(%i: tensor<3xi64>, %x: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xf32>) {
  %a = ivy.stop_gradient %i : (tensor<3xi64>) -> tensor<3xi64>
  %f = ivy.floor %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = ivy.stop_gradient %f : (tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b : tensor<3xi64>, tensor<3xf32>
}
// CHECK-LABEL: func.func @integers_and_floors
// CHECK-NEXT:    %f = ivy.floor %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %i, %f

func.func @kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = ivy.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %a = ivy.stop_gradient %e : (tensor<3xf32>) -> tensor<3xf32>
  %m = ivy.multiply %a, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %m : tensor<3xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %e = ivy.exp %x
// CHECK-NEXT:    %a = ivy.stop_gradient %e
// CHECK-NEXT:    %m = ivy.multiply %x, %a
