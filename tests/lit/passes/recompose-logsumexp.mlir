// logsumexp as JAX and TF spell it: log(sum(exp(x - c))) + c, c the row max cut from
// autodiff and guarded to 0 where it is infinite. Without the guard (a row of -inf
// would give NaN where the op gives -inf) it stays.
// RUN: ivy-opt %s -p recompose | filecheck %s

func.func @tf_reduce_logsumexp(%v: tensor<5x4xf32>) -> tensor<5xf32> {
  %0 = ivy.max %v {axis = [1], keepdims = true} : (tensor<5x4xf32>) -> tensor<5x1xf32>
  %1 = ivy.isfinite %0 : (tensor<5x1xf32>) -> tensor<5x1xi1>
  %2 = ivy.constant {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %3 = ivy.where %1, %0, %2 : (tensor<5x1xi1>, tensor<5x1xf32>, tensor<f32>) -> tensor<5x1xf32>
  %4 = ivy.stop_gradient %3 : (tensor<5x1xf32>) -> tensor<5x1xf32>
  %5 = ivy.subtract %v, %4 : (tensor<5x4xf32>, tensor<5x1xf32>) -> tensor<5x4xf32>
  %6 = ivy.exp %5 : (tensor<5x4xf32>) -> tensor<5x4xf32>
  %7 = ivy.sum %6 {axis = [1]} : (tensor<5x4xf32>) -> tensor<5xf32>
  %8 = ivy.log %7 : (tensor<5xf32>) -> tensor<5xf32>
  %9 = ivy.reshape %4 {shape = [5]} : (tensor<5x1xf32>) -> tensor<5xf32>
  %10 = ivy.add %8, %9 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return %10 : tensor<5xf32>
}
// CHECK-LABEL: func.func @tf_reduce_logsumexp
// CHECK-NEXT:    %{{.*}} = ivy.logsumexp %v {axis = [1]} : (tensor<5x4xf32>) -> tensor<5xf32>
// CHECK-NEXT:    func.return

func.func @jax_logsumexp_all_axes(%v: tensor<4x5xf32>) -> tensor<f32> {
  %0 = ivy.max %v {axis = [0, 1]} : (tensor<4x5xf32>) -> tensor<f32>
  %1 = ivy.isfinite %0 : (tensor<f32>) -> tensor<i1>
  %2 = ivy.constant {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %3 = ivy.where %1, %0, %2 : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  %4 = ivy.stop_gradient %3 : (tensor<f32>) -> tensor<f32>
  %5 = ivy.expand_dims %4 {axis = [0, 1]} : (tensor<f32>) -> tensor<1x1xf32>
  %6 = ivy.subtract %v, %5 : (tensor<4x5xf32>, tensor<1x1xf32>) -> tensor<4x5xf32>
  %7 = ivy.exp %6 : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %8 = ivy.sum %7 {axis = [0, 1]} : (tensor<4x5xf32>) -> tensor<f32>
  %9 = ivy.abs %8 : (tensor<f32>) -> tensor<f32>
  %10 = ivy.log %9 : (tensor<f32>) -> tensor<f32>
  %11 = ivy.add %4, %10 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %11 : tensor<f32>
}
// CHECK-LABEL: func.func @jax_logsumexp_all_axes
// CHECK-NEXT:    %{{.*}} = ivy.logsumexp %v {axis = [0, 1]} : (tensor<4x5xf32>) -> tensor<f32>
// CHECK-NEXT:    func.return

func.func @unguarded_stays(%v: tensor<5x4xf32>) -> tensor<5xf32> {
  %0 = ivy.max %v {axis = [1], keepdims = true} : (tensor<5x4xf32>) -> tensor<5x1xf32>
  %1 = ivy.subtract %v, %0 : (tensor<5x4xf32>, tensor<5x1xf32>) -> tensor<5x4xf32>
  %2 = ivy.exp %1 : (tensor<5x4xf32>) -> tensor<5x4xf32>
  %3 = ivy.sum %2 {axis = [1]} : (tensor<5x4xf32>) -> tensor<5xf32>
  %4 = ivy.log %3 : (tensor<5xf32>) -> tensor<5xf32>
  %5 = ivy.reshape %0 {shape = [5]} : (tensor<5x1xf32>) -> tensor<5xf32>
  %6 = ivy.add %4, %5 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return %6 : tensor<5xf32>
}
// CHECK-LABEL: func.func @unguarded_stays
// CHECK-NOT:     ivy.logsumexp
// CHECK:         ivy.log
