// RUN: ivy-opt %s -p recompose | filecheck %s
// RUN: ivy-opt %s -p 'recompose{fold-batch-norm=false}' | filecheck %s --check-prefix=KEEP

// conv + batch_norm: w' = w * reshape(gamma * rsqrt(var + eps)), b' = (b - mean) * s + beta
func.func @conv_bn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c = ivy.conv %x, %w, bias = %b {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %y = ivy.batch_norm %c, %mean, %var, weight = %gamma, bias = %beta {eps = 1.0e-03} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
// CHECK-LABEL: func.func @conv_bn
// CHECK-NEXT:    %[[EPS:.*]] = ivy.constant {value = dense<1.000000e-03> : tensor<f32>}
// CHECK-NEXT:    %[[VE:.*]] = ivy.add %var, %[[EPS]]
// CHECK-NEXT:    %[[R:.*]] = ivy.rsqrt %[[VE]]
// CHECK-NEXT:    %[[S:.*]] = ivy.multiply %[[R]], %gamma
// CHECK-NEXT:    %[[S4:.*]] = ivy.reshape %[[S]] {shape = [4, 1, 1, 1]}
// CHECK-NEXT:    %[[W:.*]] = ivy.multiply %w, %[[S4]] : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[D:.*]] = ivy.subtract %b, %mean
// CHECK-NEXT:    %[[DS:.*]] = ivy.multiply %[[D]], %[[S]]
// CHECK-NEXT:    %[[B:.*]] = ivy.add %[[DS]], %beta
// CHECK-NEXT:    %y = ivy.conv %x, %[[W]], bias = %[[B]] {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]}
// CHECK-NEXT:    func.return %y
// KEEP-LABEL: func.func @conv_bn
// KEEP:         ivy.batch_norm

// no conv bias, no affine: b' = -mean * rsqrt(var + eps)
func.func @conv_bn_plain(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %y = ivy.batch_norm %c, %mean, %var : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
// CHECK-LABEL: func.func @conv_bn_plain
// CHECK:         %[[N:.*]] = ivy.negative %mean
// CHECK-NEXT:    %[[B:.*]] = ivy.multiply %[[N]], %{{.*}}
// CHECK-NEXT:    %y = ivy.conv %x, %{{.*}}, bias = %[[B]]
// CHECK-NEXT:    func.return %y

// channels-last conv: the (O,) scale broadcasts over the (*K, I, O) weight as it is
func.func @conv_bn_channels_last(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>, %gamma: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1], layout = "channels_last"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %y = ivy.batch_norm %c, %mean, %var, weight = %gamma {axis = -1} : (tensor<1x8x8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}
// CHECK-LABEL: func.func @conv_bn_channels_last
// CHECK:         %[[W:.*]] = ivy.multiply %w, %{{.*}} : (tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<3x3x3x4xf32>
// CHECK:         %y = ivy.conv %x, %[[W]], bias = %{{.*}} {{{.*}}layout = "channels_last"}
// CHECK-NEXT:    func.return %y

// linear + BatchNorm1d over the features
func.func @linear_bn(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<5x4xf32> {
  %l = ivy.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %y = ivy.batch_norm %l, %mean, %var, weight = %gamma, bias = %beta : (tensor<5x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<5x4xf32>
  func.return %y : tensor<5x4xf32>
}
// CHECK-LABEL: func.func @linear_bn
// CHECK:         %[[S:.*]] = ivy.reshape %{{.*}} {shape = [4, 1]}
// CHECK-NEXT:    %[[W:.*]] = ivy.multiply %w, %[[S]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK:         %y = ivy.linear %x, %[[W]], bias = %{{.*}} : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT:    func.return %y
// KEEP-LABEL: func.func @linear_bn
// KEEP:         ivy.batch_norm

// negative: batch_norm over axis 1 of a (N, L, features) linear output normalizes L,
// not the linear layer's output features
func.func @linear_bn_wrong_axis(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>) -> tensor<2x4x4xf32> {
  %l = ivy.linear %x, %w : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %y = ivy.batch_norm %l, %mean, %var : (tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x4xf32>
  func.return %y : tensor<2x4x4xf32>
}
// CHECK-LABEL: func.func @linear_bn_wrong_axis
// CHECK-NEXT:    %l = ivy.linear %x, %w
// CHECK-NEXT:    %y = ivy.batch_norm %l, %mean, %var
// CHECK-NEXT:    func.return %y

// negative: the conv output is also returned, so the conv must stay as it is
func.func @conv_bn_escapes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x1x1xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %y = ivy.batch_norm %c, %mean, %var : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
// CHECK-LABEL: func.func @conv_bn_escapes
// CHECK-NEXT:    %c = ivy.conv %x, %w
// CHECK-NEXT:    %y = ivy.batch_norm %c, %mean, %var
