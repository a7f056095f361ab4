// RUN: ivy-opt %s -p recompose | filecheck %s

// matmul(x, permute_dims(w)) + b: the layout of torch's F.linear decomposed
func.func @linear_transposed_bias(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %wt = ivy.permute_dims %w {axes = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %m = ivy.matmul %x, %wt : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = ivy.add %b, %m : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @linear_transposed_bias
// CHECK-NEXT:    %y = ivy.linear %x, %w, bias = %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %y

// no bias: only the transposed weight
func.func @linear_transposed(%x: tensor<3x2x8xf32>, %w: tensor<4x8xf32>) -> tensor<3x2x4xf32> {
  %wt = ivy.permute_dims %w {axes = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = ivy.matmul %x, %wt : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<3x2x4xf32>
  func.return %y : tensor<3x2x4xf32>
}
// CHECK-LABEL: func.func @linear_transposed
// CHECK-NEXT:    %y = ivy.linear %x, %w : (tensor<3x2x8xf32>, tensor<4x8xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    func.return %y

// flax Dense / keras Dense: x @ kernel (in, out) + bias: the op takes kernel^T
func.func @linear_kernel_bias(%x: tensor<2x8xf32>, %k: tensor<8x4xf32>, %b: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %m = ivy.matmul %x, %k : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = ivy.add %m, %b : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @linear_kernel_bias
// CHECK-NEXT:    %[[W:.*]] = ivy.permute_dims %k {axes = [1, 0]} : (tensor<8x4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[B:.*]] = ivy.reshape %b {shape = [4]} : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %y = ivy.linear %x, %[[W]], bias = %[[B]]
// CHECK-NEXT:    func.return %y

// negative: a (4, 1) bias broadcasts over the rows, not the output features
func.func @linear_bias_wrong_axis(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x4xf32> {
  %wt = ivy.permute_dims %w {axes = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %m = ivy.matmul %x, %wt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %y = ivy.add %m, %b : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
// CHECK-LABEL: func.func @linear_bias_wrong_axis
// CHECK-NEXT:    %[[L:.*]] = ivy.linear %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %y = ivy.add %[[L]], %b
// CHECK-NEXT:    func.return %y

// negative: integer matmuls stay matmuls (linear is float-only)
func.func @linear_int(%x: tensor<2x8xi32>, %k: tensor<8x4xi32>, %b: tensor<4xi32>) -> tensor<2x4xi32> {
  %m = ivy.matmul %x, %k : (tensor<2x8xi32>, tensor<8x4xi32>) -> tensor<2x4xi32>
  %y = ivy.add %m, %b : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  func.return %y : tensor<2x4xi32>
}
// CHECK-LABEL: func.func @linear_int
// CHECK-NEXT:    %m = ivy.matmul %x, %k
// CHECK-NEXT:    %y = ivy.add %m, %b
// CHECK-NEXT:    func.return %y

// negative: the matmul result is also returned; fusing the bias would compute it twice
func.func @linear_product_escapes(%x: tensor<2x8xf32>, %k: tensor<8x4xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %m = ivy.matmul %x, %k : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = ivy.add %m, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y, %m : tensor<2x4xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: func.func @linear_product_escapes
// CHECK-NEXT:    %m = ivy.matmul %x, %k
// CHECK-NEXT:    %y = ivy.add %m, %b
// CHECK-NEXT:    func.return %y, %m
