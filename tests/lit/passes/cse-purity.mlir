// Every ivy op is pure, random ones included: they take their key as an operand, so the
// same key gives the same numbers and cse may merge them; different keys stay apart.
// RUN: ivy-opt %s -p cse | filecheck %s

func.func @random_same_key(%k: tensor<i64>, %k2: tensor<i64>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = ivy.random_uniform %k {shape = [2]} : (tensor<i64>) -> tensor<2xf32>
  %b = ivy.random_uniform %k {shape = [2]} : (tensor<i64>) -> tensor<2xf32>
  %c = ivy.random_uniform %k2 {shape = [2]} : (tensor<i64>) -> tensor<2xf32>
  func.return %a, %b, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @random_same_key
// CHECK-NEXT:    %a = ivy.random_uniform %k {shape = [2]}
// CHECK-NEXT:    %c = ivy.random_uniform %k2 {shape = [2]}
// CHECK-NEXT:    func.return %a, %a, %c

func.func @attrs_distinguish(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) {
  %a = ivy.sum %x {axis = [1]} : (tensor<2x3xf32>) -> tensor<2xf32>
  %b = ivy.sum %x {axis = [0]} : (tensor<2x3xf32>) -> tensor<3xf32>
  %c = ivy.sum %x {axis = [1]} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %a, %b, %c : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @attrs_distinguish
// CHECK-NEXT:    %a = ivy.sum %x {axis = [1]}
// CHECK-NEXT:    %b = ivy.sum %x {axis = [0]}
// CHECK-NEXT:    func.return %a, %b, %a

func.func @constants_merge() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = ivy.constant {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = ivy.constant {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %c = ivy.constant {value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  func.return %a, %b, %c : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}
// CHECK-LABEL: func.func @constants_merge
// CHECK-NEXT:    %a = ivy.constant {value = dense<[1, 2]> : tensor<2xi32>}
// CHECK-NEXT:    %c = ivy.constant {value = dense<[2, 1]> : tensor<2xi32>}
// CHECK-NEXT:    func.return %a, %a, %c
