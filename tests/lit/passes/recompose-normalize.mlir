// RUN: ivy-opt %s -p recompose | filecheck %s

// jax.nn.softmax as JAX traces it: max without keepdims, maximum with -inf (the
// `initial`), expand_dims, and a sum + expand_dims
func.func @softmax_jax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = ivy.max %x {axis = [1]} : (tensor<4x8xf32>) -> tensor<4xf32>
  %ninf = ivy.full {shape = [], fill_value = -inf} : () -> tensor<f32>
  %mi = ivy.maximum %ninf, %m : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %mk = ivy.expand_dims %mi {axis = [1]} : (tensor<4xf32>) -> tensor<4x1xf32>
  %z = ivy.subtract %x, %mk : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = ivy.exp %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = ivy.sum %e {axis = [1]} : (tensor<4x8xf32>) -> tensor<4xf32>
  %sk = ivy.expand_dims %s {axis = [1]} : (tensor<4xf32>) -> tensor<4x1xf32>
  %y = ivy.divide %e, %sk : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @softmax_jax
// CHECK-NEXT:    %y = ivy.softmax %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %y

// jnp.mean(x, -1, keepdims=True) is sum, expand_dims and a division by the count
func.func @mean_jax(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = ivy.sum %x {axis = [1]} : (tensor<4x8xf32>) -> tensor<4xf32>
  %sk = ivy.expand_dims %s {axis = [1]} : (tensor<4xf32>) -> tensor<4x1xf32>
  %n = ivy.constant {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
  %y = ivy.divide %sk, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}
// CHECK-LABEL: func.func @mean_jax
// CHECK-NEXT:    %y = ivy.mean %x {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    func.return %y

// negative: dividing by another count than the summed elements is not a mean
func.func @mean_wrong_count(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = ivy.sum %x {axis = [1]} : (tensor<4x8xf32>) -> tensor<4xf32>
  %n = ivy.constant {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %y = ivy.divide %s, %n : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @mean_wrong_count
// CHECK-NEXT:    %s = ivy.sum %x {axis = [1]}
// CHECK-NEXT:    %n = ivy.constant
// CHECK-NEXT:    %y = ivy.divide %s, %n

// negative: expand_dims on another axis than the reduced one keeps both ops
func.func @keepdims_other_axis(%x: tensor<4x8xf32>) -> tensor<1x4xf32> {
  %s = ivy.sum %x {axis = [1]} : (tensor<4x8xf32>) -> tensor<4xf32>
  %y = ivy.expand_dims %s {axis = [0]} : (tensor<4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
// CHECK-LABEL: func.func @keepdims_other_axis
// CHECK-NEXT:    %s = ivy.sum %x {axis = [1]}
// CHECK-NEXT:    %y = ivy.expand_dims %s {axis = [0]}

// attention with jnp.einsum scores and output: the einsums become matmuls first
func.func @attn_einsum(%q: tensor<2x5x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %s = ivy.einsum %q, %k {equation = "...qd,...kd->...qk"} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x5xf32>
  %c = ivy.constant {value = dense<2.82842708> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.divide %s, %c : (tensor<2x5x5xf32>, tensor<f32>) -> tensor<2x5x5xf32>
  %p = ivy.softmax %sc : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  %y = ivy.einsum %p, %v {equation = "bqk,bkd->bqd"} : (tensor<2x5x5xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  func.return %y : tensor<2x5x8xf32>
}
// CHECK-LABEL: func.func @attn_einsum
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:    func.return %y

// negative: an einsum that contracts over the batch letter is no matmul
func.func @einsum_not_matmul(%a: tensor<2x5x8xf32>, %b: tensor<2x8x3xf32>) -> tensor<5x3xf32> {
  %y = ivy.einsum %a, %b {equation = "bij,bjk->ik"} : (tensor<2x5x8xf32>, tensor<2x8x3xf32>) -> tensor<5x3xf32>
  func.return %y : tensor<5x3xf32>
}
// CHECK-LABEL: func.func @einsum_not_matmul
// CHECK-NEXT:    %y = ivy.einsum %a, %b
