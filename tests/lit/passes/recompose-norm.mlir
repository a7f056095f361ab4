// RUN: ivy-opt %s -p recompose | filecheck %s

// torch / decompose: (x - mean) * rsqrt(mean((x - mean)^2) + eps) * w + b
func.func @layer_norm_torch(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %mu = ivy.mean %x {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = ivy.square %c : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %var = ivy.mean %sq {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = ivy.constant {value = dense<1.0e-05> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ivy.rsqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = ivy.multiply %c, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %nw = ivy.multiply %n, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %y = ivy.add %nw, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_torch
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %w, bias = %b : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// mean / sub / square / mean / add eps / sqrt / div, no affine
func.func @layer_norm_sqrt_div(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = ivy.mean %x {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = ivy.square %c : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %var = ivy.mean %sq {axis = [-1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = ivy.constant {value = dense<1.0e-06> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %eps, %var : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = ivy.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %c, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_sqrt_div
// CHECK-NEXT:    %y = ivy.layer_norm %x {eps = 1.0e-06} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// flax nn.LayerNorm: var = max(0, E[x^2] - E[x]^2); (x - mean) * (rsqrt(var + eps) * scale) + bias
func.func @layer_norm_flax(%x: tensor<2x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>) -> tensor<2x8xf32> {
  %mu = ivy.mean %x {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %x2 = ivy.square %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %m2 = ivy.mean %x2 {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %mu2 = ivy.square %mu : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %d = ivy.subtract %m2, %mu2 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %zero = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %var = ivy.maximum %zero, %d : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %eps = ivy.constant {value = dense<1.0e-06> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ivy.rsqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rs = ivy.multiply %r, %scale : (tensor<2x1xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %n = ivy.multiply %c, %rs : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ivy.add %n, %bias : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_flax
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %scale, bias = %bias {eps = 1.0e-06} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y

// Keras LayerNormalization / tf.nn.batch_normalization: inv = rsqrt(var + eps) * gamma;
// x * inv + (beta - mean * inv), var from tf.nn.moments (squared difference)
func.func @layer_norm_keras(%x: tensor<2x5x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x5x8xf32> {
  %mu = ivy.mean %x {axis = [2], keepdims = true} : (tensor<2x5x8xf32>) -> tensor<2x5x1xf32>
  %d = ivy.subtract %x, %mu : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %sq = ivy.square %d : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %var = ivy.mean %sq {axis = [2], keepdims = true} : (tensor<2x5x8xf32>) -> tensor<2x5x1xf32>
  %eps = ivy.constant {value = dense<1.0e-03> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = ivy.rsqrt %ve : (tensor<2x5x1xf32>) -> tensor<2x5x1xf32>
  %inv = ivy.multiply %r, %gamma : (tensor<2x5x1xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %xi = ivy.multiply %x, %inv : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %mi = ivy.multiply %mu, %inv : (tensor<2x5x1xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %sh = ivy.subtract %beta, %mi : (tensor<8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %y = ivy.add %xi, %sh : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  func.return %y : tensor<2x5x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_keras
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %gamma, bias = %beta {eps = 0.001} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:    func.return %y

// the var op over the last two axes, weight reshaped from a flat parameter
func.func @layer_norm_var_two_axes(%x: tensor<2x3x4xf32>, %w: tensor<12xf32>) -> tensor<2x3x4xf32> {
  %mu = ivy.mean %x {axis = [1, 2], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %var = ivy.var %x {axis = [-2, -1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %eps = ivy.constant {value = dense<1.0e-05> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %r = ivy.rsqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %w34 = ivy.reshape %w {shape = [3, 4]} : (tensor<12xf32>) -> tensor<3x4xf32>
  %cw = ivy.multiply %c, %w34 : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %y = ivy.multiply %cw, %r : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @layer_norm_var_two_axes
// CHECK:         %{{.*}} = ivy.reshape %w {shape = [3, 4]}
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %{{.*}} {axis = [1, 2]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %y

// normalizing a middle axis: the (C, 1) weight becomes a (C,) operand
func.func @layer_norm_middle_axis(%x: tensor<2x3x4xf32>, %w: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %mu = ivy.mean %x {axis = [1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %var = ivy.var %x {axis = [1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %eps = ivy.constant {value = dense<1.0e-05> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %r = ivy.rsqrt %ve : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %n = ivy.multiply %c, %r : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %y = ivy.multiply %n, %w : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @layer_norm_middle_axis
// CHECK-NEXT:    %[[W:.*]] = ivy.reshape %w {shape = [3]} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %[[W]] {axis = [1]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %y

// negative: the variance runs over axis 0, the mean over axis 1
func.func @layer_norm_var_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %mu = ivy.mean %x {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %var = ivy.var %x {axis = [0], keepdims = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %eps = ivy.constant {value = dense<1.0e-05> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r = ivy.rsqrt %ve : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = ivy.multiply %c, %r : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_var_other_axis
// CHECK-NOT:     ivy.layer_norm
// CHECK:         ivy.rsqrt

// negative: a (2, 1) "weight" scales rows, which layer_norm's weight cannot do; the
// normalization itself still recomposes, the multiply stays
func.func @layer_norm_weight_wrong_axis(%x: tensor<2x8xf32>, %w: tensor<2x1xf32>) -> tensor<2x8xf32> {
  %mu = ivy.mean %x {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %c = ivy.subtract %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %var = ivy.var %x {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = ivy.constant {value = dense<1.0e-05> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ivy.rsqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = ivy.multiply %c, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ivy.multiply %n, %w : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_weight_wrong_axis
// CHECK-NEXT:    %[[N:.*]] = ivy.layer_norm %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %y = ivy.multiply %[[N]], %w
// CHECK-NEXT:    func.return %y

// a layer_norm op followed by its affine: the weight and bias join the op
func.func @layer_norm_affine(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %n = ivy.layer_norm %x {eps = 1.0e-03} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %nw = ivy.multiply %w, %n : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ivy.add %nw, %b : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @layer_norm_affine
// CHECK-NEXT:    %[[B:.*]] = ivy.reshape %b {shape = [8]}
// CHECK-NEXT:    %y = ivy.layer_norm %x, weight = %w, bias = %[[B]] {eps = 0.001}
// CHECK-NEXT:    func.return %y

// T5 / LLaMA RMSNorm: x * rsqrt(mean(x * x) + eps) * w
func.func @rms_norm_rsqrt(%x: tensor<2x8xbf16>, %w: tensor<8xbf16>) -> tensor<2x8xbf16> {
  %xx = ivy.multiply %x, %x : (tensor<2x8xbf16>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
  %ms = ivy.mean %xx {axis = [-1], keepdims = true} : (tensor<2x8xbf16>) -> tensor<2x1xbf16>
  %eps = ivy.constant {value = dense<1.0e-06> : tensor<bf16>} : () -> tensor<bf16>
  %ve = ivy.add %ms, %eps : (tensor<2x1xbf16>, tensor<bf16>) -> tensor<2x1xbf16>
  %r = ivy.rsqrt %ve : (tensor<2x1xbf16>) -> tensor<2x1xbf16>
  %n = ivy.multiply %x, %r : (tensor<2x8xbf16>, tensor<2x1xbf16>) -> tensor<2x8xbf16>
  %y = ivy.multiply %w, %n : (tensor<8xbf16>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
  func.return %y : tensor<2x8xbf16>
}
// CHECK-LABEL: func.func @rms_norm_rsqrt
// CHECK-NEXT:    %y = ivy.rms_norm %x, weight = %w : (tensor<2x8xbf16>, tensor<8xbf16>) -> tensor<2x8xbf16>
// CHECK-NEXT:    func.return %y

// x / sqrt(mean(x^2) + eps)
func.func @rms_norm_sqrt_div(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sq = ivy.square %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %ms = ivy.mean %sq {axis = [1], keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = ivy.constant {value = dense<1.0e-06> : tensor<f32>} : () -> tensor<f32>
  %ve = ivy.add %ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = ivy.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = ivy.divide %x, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
// CHECK-LABEL: func.func @rms_norm_sqrt_div
// CHECK-NEXT:    %y = ivy.rms_norm %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %y
