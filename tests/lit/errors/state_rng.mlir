// The random key a compiled call supplies is one 0-d int32 input.
// RUN: not ivy-opt %s 2>&1 | filecheck %s

func.func @draw(%key: tensor<2xi32> {ivy.rng}) -> tensor<3xf32> {
  %k = ivy.sum %key {axis = [0]} : (tensor<2xi32>) -> tensor<i32>
  %u = ivy.random_uniform %k {shape = [3]} : (tensor<i32>) -> tensor<3xf32>
  func.return %u : tensor<3xf32>
}

// CHECK: ivy-opt: error: {{.*}}function @draw: {ivy.rng} marks one argument, a tensor<i32> input
// CHECK-NOT: Traceback
