// RUN: ivy-opt %s --split-input-file -p channels-last | filecheck %s

// A conv -> batch_norm -> relu -> max_pool -> conv chain transposes once at the input;
// the permute pair between the layers cancels and batch_norm's axis follows the data.
func.func @cnn(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %w2: tensor<5x4x1x1xf32>) -> tensor<2x5x4x4xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %b = ivy.batch_norm %c, %m, %v : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %r = ivy.relu %b : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %p = ivy.max_pool %r {kernel = [2, 2], strides = [2, 2], padding = [0, 0, 0, 0]} : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
  %d = ivy.conv %p, %w2 {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<2x4x4x4xf32>, tensor<5x4x1x1xf32>) -> tensor<2x5x4x4xf32>
  func.return %d : tensor<2x5x4x4xf32>
}

// CHECK-LABEL: func.func @cnn
// CHECK-NEXT:    %0 = ivy.permute_dims %x {axes = [0, 2, 3, 1]}
// CHECK-NEXT:    %1 = ivy.permute_dims %w {axes = [2, 3, 1, 0]}
// CHECK-NEXT:    %2 = ivy.conv %0, %1 {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %3 = ivy.batch_norm %2, %m, %v {axis = 3}
// CHECK-NEXT:    %4 = ivy.relu %3
// CHECK-NEXT:    %5 = ivy.max_pool %4 {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %6 = ivy.permute_dims %w2 {axes = [2, 3, 1, 0]}
// CHECK-NEXT:    %7 = ivy.conv %5, %6 {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[OUT:.*]] = ivy.permute_dims %7 {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    func.return %[[OUT]]

// -----

// Negative: a per-channel bias of shape (C, 1, 1) broadcasts across the permutation,
// so the permute back to channels-first stays in front of the add.
func.func @bias(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %bias: tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = ivy.add %c, %bias : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %a : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @bias
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[P:.*]] = ivy.permute_dims %[[C]] {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    ivy.add %[[P]], %bias

// -----

// A hardswish as importers decompose it (x * clip(x / 6 + 0.5)) uses the permuted x
// twice and broadcasts 0-d constants; a squeeze-excite mean keeps its dims. The permute
// moves below all of them (the mean's axes follow the data) and leaves once, at the end.
func.func @mobile(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1], groups = 2} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  %six = ivy.constant {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %half = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %d = ivy.divide %c, %six : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %a = ivy.add %d, %half : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %g = ivy.clip %a {min = 0.0, max = 1.0} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %h = ivy.multiply %c, %g : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = ivy.mean %h {axis = [2, 3], keepdims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  func.return %s : tensor<1x2x1x1xf32>
}

// CHECK-LABEL: func.func @mobile
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NOT:     ivy.permute_dims
// CHECK:         %[[D:.*]] = ivy.divide %[[C]], {{.*}} -> tensor<1x4x4x2xf32>
// CHECK:         %[[H:.*]] = ivy.multiply %[[C]], {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[S:.*]] = ivy.mean %[[H]] {axis = [1, 2], keepdims = true}
// CHECK-NEXT:    %[[OUT:.*]] = ivy.permute_dims %[[S]] {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    func.return %[[OUT]]

// -----

// x + x^T (a symmetrization, as jnp.linalg.eigh stages it): the permute is its own
// inverse, so sinking it would give back the same form; it stays, and the pass ends.
func.func @symmetric(%x: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %t = ivy.permute_dims %x {axes = [0, 2, 1]} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %s = ivy.add %x, %t : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  func.return %s : tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @symmetric
// CHECK-NEXT:    %[[T:.*]] = ivy.permute_dims %x {axes = [0, 2, 1]}
// CHECK-NEXT:    %[[S:.*]] = ivy.add %x, %[[T]]
// CHECK-NEXT:    func.return %[[S]]

// -----

// An operand that no permutation changes but that broadcasts the result to a higher
// rank (a [1, 1, 1] constant against a permuted matrix): sinking the permute would
// give it the wrong rank, so it stays (found by tests/test_pass_soundness.py on a 0-d
// permute against a [1] constant).
func.func @broadcast_up(%x: tensor<2x3xf32>) -> tensor<1x3x2xf32> {
  %t = ivy.permute_dims %x {axes = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = ivy.constant {value = dense<2.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %m = ivy.multiply %t, %c : (tensor<3x2xf32>, tensor<1x1x1xf32>) -> tensor<1x3x2xf32>
  func.return %m : tensor<1x3x2xf32>
}

// CHECK-LABEL: func.func @broadcast_up
// CHECK:         %[[T:.*]] = ivy.permute_dims %x {axes = [1, 0]}
// CHECK:         %[[M:.*]] = ivy.multiply %[[T]], {{.*}} -> tensor<1x3x2xf32>
// CHECK-NEXT:    func.return %[[M]]

// -----

// A fire module (squeeze 1x1, two expands concatenated on the channels): the concat
// takes the permutes below itself, its axis follows the data, and the one permute
// back is at the end.
func.func @fire(%x: tensor<1x4x5x5xf32>, %w1: tensor<3x4x1x1xf32>, %w3: tensor<2x4x3x3xf32>) -> tensor<1x5x5x5xf32> {
  %a = ivy.conv %x, %w1 {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x4x5x5xf32>, tensor<3x4x1x1xf32>) -> tensor<1x3x5x5xf32>
  %b = ivy.conv %x, %w3 {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x5x5xf32>
  %c = ivy.concat %a, %b {axis = 1} : (tensor<1x3x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x5x5x5xf32>
  %r = ivy.relu %c : (tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  func.return %r : tensor<1x5x5x5xf32>
}

// CHECK-LABEL: func.func @fire
// CHECK:         %[[A:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK:         %[[B:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[C:.*]] = ivy.concat %[[A]], %[[B]] {axis = 3}
// CHECK-NEXT:    %[[R:.*]] = ivy.relu %[[C]]
// CHECK-NEXT:    %[[OUT:.*]] = ivy.permute_dims %[[R]] {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    func.return %[[OUT]]

// -----

// DenseNet's reuse: one layer's features enter two concats, and the first concat feeds
// both the second and a relu. Every use takes each permute through, so the permutes go
// from all of them, and only the returned values go back.
func.func @dense(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x6x4x4xf32>) {
  %f = ivy.conv %x, %w {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %c1 = ivy.concat %f, %f {axis = 1} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = ivy.relu %c1 : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = ivy.concat %c1, %f {axis = -3} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %r, %c2 : tensor<1x4x4x4xf32>, tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func.func @dense
// CHECK:         %[[F:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NOT:     ivy.permute_dims
// CHECK:         %[[C1:.*]] = ivy.concat %[[F]], %[[F]] {axis = 3}
// CHECK-NOT:     ivy.permute_dims
// CHECK-DAG:     %[[R:.*]] = ivy.relu %[[C1]]
// CHECK-DAG:     %[[C2:.*]] = ivy.concat %[[C1]], %[[F]] {axis = 3}
// CHECK-DAG:     %[[O1:.*]] = ivy.permute_dims %[[R]] {axes = [0, 3, 1, 2]}
// CHECK-DAG:     %[[O2:.*]] = ivy.permute_dims %[[C2]] {axes = [0, 3, 1, 2]}
// CHECK:         func.return %[[O1]], %[[O2]]

// -----

// A channel shuffle between two convolutions (ShuffleNet: reshape to (N, g, C/g, H, W),
// swap the group axes, reshape back) runs channels-last: the split channel axis stays
// last, the swap is the one transpose left between the layers.
func.func @shuffle(%x: tensor<1x6x4x4xf32>, %w: tensor<6x6x1x1xf32>, %w2: tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x6x4x4xf32>, tensor<6x6x1x1xf32>) -> tensor<1x6x4x4xf32>
  %r = ivy.relu %c : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %s = ivy.reshape %r {shape = [1, 2, 3, 4, 4]} : (tensor<1x6x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %t = ivy.permute_dims %s {axes = [0, 2, 1, 3, 4]} : (tensor<1x2x3x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  %u = ivy.reshape %t {shape = [1, -1, 4, 4]} : (tensor<1x3x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  %d = ivy.conv %u, %w2 {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1], groups = 6} : (tensor<1x6x4x4xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32>
  func.return %d : tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func.func @shuffle
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[R:.*]] = ivy.relu %[[C]]
// CHECK-NEXT:    %[[S:.*]] = ivy.reshape %[[R]] {shape = [1, 4, 4, 2, 3]}
// CHECK-NEXT:    %[[T:.*]] = ivy.permute_dims %[[S]] {axes = [0, 1, 2, 4, 3]}
// CHECK-NEXT:    %[[U:.*]] = ivy.reshape %[[T]] {shape = [1, 4, 4, 6]}
// CHECK-NEXT:    %[[W:.*]] = ivy.permute_dims %w2
// CHECK-NEXT:    %[[D:.*]] = ivy.conv %[[U]], %[[W]] {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[OUT:.*]] = ivy.permute_dims %[[D]] {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    func.return %[[OUT]]

// -----

// Negative: flattening channels-first data mixes the channel axis with the spatial ones
// in another order than channels-last memory has them, so the permute stays in front.
func.func @flatten(%x: tensor<1x2x3x3xf32>, %w: tensor<4x2x1x1xf32>) -> (tensor<1x36xf32>, tensor<1x4x3x3xf32>) {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  %f = ivy.reshape %c {shape = [1, 36]} : (tensor<1x4x3x3xf32>) -> tensor<1x36xf32>
  %g = ivy.negative %c : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  func.return %f, %g : tensor<1x36xf32>, tensor<1x4x3x3xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[P:.*]] = ivy.permute_dims %[[C]] {axes = [0, 3, 1, 2]}
// CHECK-NEXT:    ivy.reshape %[[P]] {shape = [1, 36]}

// -----

// A patch embedding (ViT: conv, flatten the spatial axes, swap to (N, tokens, C)) needs
// no transpose at all channels-last: the flattened spatial axes are already in front of
// the channels.
func.func @patches(%x: tensor<1x3x4x4xf32>, %w: tensor<8x3x2x2xf32>) -> tensor<1x4x8xf32> {
  %c = ivy.conv %x, %w {strides = [2, 2], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x3x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<1x8x2x2xf32>
  %f = ivy.reshape %c {shape = [1, 8, 4]} : (tensor<1x8x2x2xf32>) -> tensor<1x8x4xf32>
  %t = ivy.permute_dims %f {axes = [0, 2, 1]} : (tensor<1x8x4xf32>) -> tensor<1x4x8xf32>
  func.return %t : tensor<1x4x8xf32>
}

// CHECK-LABEL: func.func @patches
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[F:.*]] = ivy.reshape %[[C]] {shape = [1, 4, 8]}
// CHECK-NEXT:    func.return %[[F]]

// -----

// Negative: the shuffle's merge back needs a transpose within the merged axes; with no
// permute below to take the group order, moving it would add one, so it stays above.
func.func @shuffle_out(%x: tensor<1x6x4x4xf32>, %w: tensor<6x6x1x1xf32>) -> tensor<1x6x4x4xf32> {
  %c = ivy.conv %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilations = [1, 1]} : (tensor<1x6x4x4xf32>, tensor<6x6x1x1xf32>) -> tensor<1x6x4x4xf32>
  %s = ivy.reshape %c {shape = [1, 2, 3, 4, 4]} : (tensor<1x6x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %t = ivy.permute_dims %s {axes = [0, 2, 1, 3, 4]} : (tensor<1x2x3x4x4xf32>) -> tensor<1x3x2x4x4xf32>
  %u = ivy.reshape %t {shape = [1, 6, 4, 4]} : (tensor<1x3x2x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %u : tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func.func @shuffle_out
// CHECK:         %[[C:.*]] = ivy.conv {{.*}}layout = "channels_last"}
// CHECK-NEXT:    %[[S:.*]] = ivy.reshape %[[C]] {shape = [1, 4, 4, 2, 3]}
// CHECK-NEXT:    %[[T:.*]] = ivy.permute_dims %[[S]] {axes = [0, 4, 3, 1, 2]}
// CHECK-NEXT:    %[[U:.*]] = ivy.reshape %[[T]] {shape = [1, 6, 4, 4]}
// CHECK-NEXT:    func.return %[[U]]
