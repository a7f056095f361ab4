// A result marked {ivy.update} must name a parameter or buffer of its type (a lowering
// writes it back there), and such results come last: a clean error, not a KeyError.
// RUN: not ivy-opt %s 2>&1 | filecheck %s

func.func @train(%x: tensor<8xf32>, %m: tensor<f32> {ivy.add = "bn.running_mean"}) -> (tensor<8xf32>, tensor<f32> {ivy.update = "bn.running_mean"}) {
  %s = ivy.mean %x {axis = [0]} : (tensor<8xf32>) -> tensor<f32>
  %n = ivy.add %m, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %x, %n : tensor<8xf32>, tensor<f32>
}

// CHECK: ivy-opt: error: {{.*}}function @train: result 1 updates "bn.running_mean", which is no parameter or buffer of its type
// CHECK-NOT: Traceback
