// Program state in the signature: a random key input marked {ivy.rng} and buffer
// updates as trailing results marked {ivy.update}. Both survive printing, parsing and
// the default pipeline (a pass that rebuilt the function would drop them silently, and
// a training-mode program would stop updating its statistics).
// RUN: IVY_ROUNDTRIP
// RUN: ivy-opt %s | ivy-opt | filecheck %s
// RUN: ivy-opt %s -p default | filecheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @train
// CHECK-SAME: %rng: tensor<i32> {ivy.rng}
// CHECK-SAME: -> (tensor<8xf32>, tensor<f32> {ivy.update = "bn.running_mean"})
// OPT-LABEL: func.func @train
// OPT-SAME: {ivy.rng}
// OPT-SAME: tensor<f32> {ivy.update = "bn.running_mean"})
// OPT: ivy.random_uniform %rng
func.func @train(%x: tensor<8xf32>, %m: tensor<f32> {ivy.buffer = "bn.running_mean"}, %rng: tensor<i32> {ivy.rng}) -> (tensor<8xf32>, tensor<f32> {ivy.update = "bn.running_mean"}) {
  %u = ivy.random_uniform %rng {shape = [8]} : (tensor<i32>) -> tensor<8xf32>
  %y = ivy.multiply %x, %u : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %s = ivy.mean %y {axis = [0]} : (tensor<8xf32>) -> tensor<f32>
  %n = ivy.add %m, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %y, %n : tensor<8xf32>, tensor<f32>
}
