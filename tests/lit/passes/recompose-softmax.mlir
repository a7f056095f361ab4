// RUN: ivy-opt %s -p recompose | filecheck %s

// jax.nn.softmax / decompose: exp(x - max) / sum(exp(x - max))
func.func @softmax_stable(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = ivy.max %x {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %z = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = ivy.exp %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @softmax_stable
// CHECK-NEXT:    %y = ivy.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// without max subtraction, over axis 0, written as a product with the reciprocal
func.func @softmax_naive_axis0(%x: tensor<6x3xf32>) -> tensor<6x3xf32> {
  %e = ivy.exp %x : (tensor<6x3xf32>) -> tensor<6x3xf32>
  %s = ivy.sum %e {axis = [0], keepdims = true} : (tensor<6x3xf32>) -> tensor<1x3xf32>
  %r = ivy.reciprocal %s : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %y = ivy.multiply %e, %r : (tensor<6x3xf32>, tensor<1x3xf32>) -> tensor<6x3xf32>
  func.return %y : tensor<6x3xf32>
}
// CHECK-LABEL: func.func @softmax_naive_axis0
// CHECK-NEXT:    %y = ivy.softmax %x {axis = 0} : (tensor<6x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT:    func.return %y

// a max over every axis is constant along the softmax axis too: still softmax
func.func @softmax_global_max(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = ivy.max %x {keepdims = true} : (tensor<2x8xf32>) -> tensor<1x1xf32>
  %z = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %e = ivy.exp %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @softmax_global_max
// CHECK-NEXT:    %y = ivy.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// negative: the max runs over axis 0 but the sum over axis 1, so x - max is not constant
// along the softmax axis; recomposing would change the result. Only the inner
// exp(z) / sum(exp(z)) is a softmax (of z = x - max over axis 0)
func.func @softmax_max_other_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = ivy.max %x {axis = [0], keepdims = true} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %z = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %e = ivy.exp %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @softmax_max_other_axis
// CHECK-NEXT:    %m = ivy.max %x {axis = [0], keepdims = true}
// CHECK-NEXT:    %z = ivy.subtract %x, %m
// CHECK-NEXT:    %y = ivy.softmax %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// negative: a sum without keepdims broadcasts along the wrong axis (8x8: shapes still fit)
func.func @softmax_no_keepdims(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = ivy.exp %x : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = ivy.sum %e {axis = [1]} : (tensor<8x8xf32>) -> tensor<8xf32>
  %y = ivy.divide %e, %s : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  func.return %y : tensor<8x8xf32>
}
// CHECK-LABEL: func.func @softmax_no_keepdims
// CHECK-NOT:     ivy.softmax
// CHECK:         ivy.divide

// negative: exp(x) is also returned; a fused softmax would compute it a second time
func.func @softmax_exp_escapes(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = ivy.exp %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y, %e : tensor<2x8xf32>, tensor<2x8xf32>
}
// CHECK-LABEL: func.func @softmax_exp_escapes
// CHECK-NOT:     ivy.softmax
// CHECK:         ivy.divide

// jax.nn.log_softmax / decompose: shifted - log(sum(exp(shifted)))
func.func @log_softmax_stable(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = ivy.max %x {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %z = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = ivy.exp %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %l = ivy.log %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = ivy.subtract %z, %l : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @log_softmax_stable
// CHECK-NEXT:    %y = ivy.log_softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// x - max - log(sum(exp(x - max))), the shift not shared (written twice)
func.func @log_softmax_unshared(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %m = ivy.max %x {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %z = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = ivy.exp %z : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = ivy.sum %e {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %l = ivy.log %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %d = ivy.subtract %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ivy.subtract %d, %l : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @log_softmax_unshared
// CHECK-NEXT:    %y = ivy.log_softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// x - logsumexp(x, keepdims)
func.func @log_softmax_logsumexp(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %l = ivy.logsumexp %x {axis = [0], keepdims = true} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %y = ivy.subtract %x, %l : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @log_softmax_logsumexp
// CHECK-NEXT:    %y = ivy.log_softmax %x {axis = 0} : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %y

// negative: log of a sum over two axes is not a log_softmax over one
func.func @log_softmax_two_axes(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %e = ivy.exp %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = ivy.sum %e {axis = [0, 1], keepdims = true} : (tensor<4x3xf32>) -> tensor<1x1xf32>
  %l = ivy.log %s : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %y = ivy.subtract %x, %l : (tensor<4x3xf32>, tensor<1x1xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @log_softmax_two_axes
// CHECK-NOT:     ivy.log_softmax
// CHECK:         ivy.subtract
