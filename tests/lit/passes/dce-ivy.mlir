// dce drops ivy ops whose results nobody uses, whole chains and multi-result ops
// included, and keeps everything a returned value depends on.
// RUN: ivy-opt %s -p dce | filecheck %s

func.func @dead_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ivy.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = ivy.log %a : (tensor<4xf32>) -> tensor<4xf32>
  %p, %q = ivy.split %b {sizes = [1, 3]} : (tensor<4xf32>) -> (tensor<1xf32>, tensor<3xf32>)
  %k = ivy.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %r = ivy.random_normal %k {shape = [4]} : (tensor<i64>) -> tensor<4xf32>
  %y = ivy.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    %y = ivy.tanh %x
// CHECK-NEXT:    func.return %y

func.func @half_used_split(%x: tensor<4xf32>) -> tensor<3xf32> {
  %p, %q = ivy.split %x {sizes = [1, 3]} : (tensor<4xf32>) -> (tensor<1xf32>, tensor<3xf32>)
  %d = ivy.exp %p : (tensor<1xf32>) -> tensor<1xf32>
  func.return %q : tensor<3xf32>
}
// CHECK-LABEL: func.func @half_used_split
// CHECK-NEXT:    %p, %q = ivy.split %x {sizes = [1, 3]}
// CHECK-NEXT:    func.return %q
