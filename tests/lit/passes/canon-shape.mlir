// Shape and dtype chains that do not come back to their input: canonicalize composes
// them into one op; strip-wrappers (identities and round trips only) keeps them.
// RUN: ivy-opt %s -p canonicalize | filecheck %s
// RUN: ivy-opt %s -p strip-wrappers | filecheck %s --check-prefix=STRIP

func.func @reshape_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %a = ivy.reshape %x {shape = [6, 4]} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = ivy.reshape %a {shape = [4, 6]} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  func.return %b : tensor<4x6xf32>
}
// CHECK-LABEL: func.func @reshape_reshape
// CHECK-NEXT:    %b = ivy.reshape %x {shape = [4, 6]} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %b
// STRIP-LABEL: func.func @reshape_reshape
// STRIP-NEXT:    %a = ivy.reshape %x
// STRIP-NEXT:    %b = ivy.reshape %a

func.func @squeeze_expand_to_reshape(%x: tensor<1x6xf32>) -> tensor<6x1xf32> {
  %a = ivy.squeeze %x {axis = [0]} : (tensor<1x6xf32>) -> tensor<6xf32>
  %b = ivy.expand_dims %a {axis = [1]} : (tensor<6xf32>) -> tensor<6x1xf32>
  func.return %b : tensor<6x1xf32>
}
// CHECK-LABEL: func.func @squeeze_expand_to_reshape
// CHECK-NEXT:    %b = ivy.reshape %x {shape = [6, 1]} : (tensor<1x6xf32>) -> tensor<6x1xf32>

func.func @single_expand_stays(%x: tensor<6xf32>) -> tensor<1x6xf32> {
  %a = ivy.expand_dims %x {axis = [0]} : (tensor<6xf32>) -> tensor<1x6xf32>
  func.return %a : tensor<1x6xf32>
}
// CHECK-LABEL: func.func @single_expand_stays
// CHECK-NEXT:    %a = ivy.expand_dims %x {axis = [0]}

func.func @shared_reshape(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %a = ivy.reshape %x {shape = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = ivy.reshape %a {shape = [3, 2]} : (tensor<6xf32>) -> tensor<3x2xf32>
  func.return %a, %b : tensor<6xf32>, tensor<3x2xf32>
}
// the inner reshape has another use: it stays, the outer reads x directly
// CHECK-LABEL: func.func @shared_reshape
// CHECK-NEXT:    %a = ivy.reshape %x {shape = [6]}
// CHECK-NEXT:    %b = ivy.reshape %x {shape = [3, 2]}

func.func @permute_permute(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %p = ivy.permute_dims %x {axes = [1, 2, 0]} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %q = ivy.permute_dims %p {axes = [0, 2, 1]} : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32>
  func.return %q : tensor<3x2x4xf32>
}
// [1, 2, 0] then [0, 2, 1] is [1, 0, 2]: not inverses, so one permute remains
// CHECK-LABEL: func.func @permute_permute
// CHECK-NEXT:    %q = ivy.permute_dims %x {axes = [1, 0, 2]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT:    func.return %q
// STRIP-LABEL: func.func @permute_permute
// STRIP-NEXT:    %p = ivy.permute_dims %x {axes = [1, 2, 0]}
// STRIP-NEXT:    %q = ivy.permute_dims %p {axes = [0, 2, 1]}

func.func @permute_three_back(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %p = ivy.permute_dims %x {axes = [1, 2, 0]} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %q = ivy.permute_dims %p {axes = [1, 2, 0]} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  %r = ivy.permute_dims %q {axes = [1, 2, 0]} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  func.return %r : tensor<2x3x4xf32>
}
// three rotations come back to x: a round trip, stripped by both passes
// CHECK-LABEL: func.func @permute_three_back
// CHECK-NEXT:    func.return %x
// STRIP-LABEL: func.func @permute_three_back
// STRIP-NEXT:    func.return %x

func.func @broadcast_broadcast(%x: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %a = ivy.broadcast_to %x {shape = [2, 3]} : (tensor<3xf32>) -> tensor<2x3xf32>
  %b = ivy.broadcast_to %a {shape = [4, 2, 3]} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  func.return %b : tensor<4x2x3xf32>
}
// CHECK-LABEL: func.func @broadcast_broadcast
// CHECK-NEXT:    %b = ivy.broadcast_to %x {shape = [4, 2, 3]} : (tensor<3xf32>) -> tensor<4x2x3xf32>

func.func @stack_one(%x: tensor<2x3xf32>) -> tensor<2x1x3xf32> {
  %a = ivy.stack %x {axis = 1} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  func.return %a : tensor<2x1x3xf32>
}
// CHECK-LABEL: func.func @stack_one
// CHECK-NEXT:    %a = ivy.expand_dims %x {axis = [1]} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>

func.func @astype_lossless_middle(%i: tensor<3xi32>, %h: tensor<3xf16>) -> (tensor<3xf32>, tensor<3xi32>) {
  %a = ivy.astype %i {dtype = i64} : (tensor<3xi32>) -> tensor<3xi64>
  %b = ivy.astype %a {dtype = f32} : (tensor<3xi64>) -> tensor<3xf32>
  %c = ivy.astype %h {dtype = f64} : (tensor<3xf16>) -> tensor<3xf64>
  %d = ivy.astype %c {dtype = i32} : (tensor<3xf64>) -> tensor<3xi32>
  func.return %b, %d : tensor<3xf32>, tensor<3xi32>
}
// i32 -> i64 and f16 -> f64 hold every value: the outer cast sees the same values
// CHECK-LABEL: func.func @astype_lossless_middle
// CHECK-NEXT:    %b = ivy.astype %i {dtype = f32} : (tensor<3xi32>) -> tensor<3xf32>
// CHECK-NEXT:    %d = ivy.astype %h {dtype = i32} : (tensor<3xf16>) -> tensor<3xi32>

func.func @astype_lossy_middle(%x: tensor<3xf32>, %l: tensor<3xi64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %a = ivy.astype %x {dtype = f16} : (tensor<3xf32>) -> tensor<3xf16>
  %b = ivy.astype %a {dtype = f64} : (tensor<3xf16>) -> tensor<3xf64>
  %c = ivy.astype %l {dtype = i32} : (tensor<3xi64>) -> tensor<3xi32>
  %d = ivy.astype %c {dtype = f64} : (tensor<3xi32>) -> tensor<3xf64>
  func.return %b, %d : tensor<3xf64>, tensor<3xf64>
}
// f32 -> f16 rounds and i64 -> i32 wraps: both chains stay
// CHECK-LABEL: func.func @astype_lossy_middle
// CHECK-NEXT:    %a = ivy.astype %x {dtype = f16}
// CHECK-NEXT:    %b = ivy.astype %a {dtype = f64}
// CHECK-NEXT:    %c = ivy.astype %l {dtype = i32}
// CHECK-NEXT:    %d = ivy.astype %c {dtype = f64}

func.func @unit_permute_is_reshape(%x: tensor<5x1x16xf32>) -> tensor<1x5x16xf32> {
  %p = ivy.permute_dims %x {axes = [1, 0, 2]} : (tensor<5x1x16xf32>) -> tensor<1x5x16xf32>
  func.return %p : tensor<1x5x16xf32>
}
// only a size-1 dim moves: the element order is unchanged
// CHECK-LABEL: func.func @unit_permute_is_reshape
// CHECK-NEXT:    %p = ivy.reshape %x {shape = [1, 5, 16]}
// CHECK-NEXT:    func.return %p

func.func @moving_a_real_dim_stays(%x: tensor<1x5x3xf32>) -> tensor<3x5x1xf32> {
  %p = ivy.permute_dims %x {axes = [2, 1, 0]} : (tensor<1x5x3xf32>) -> tensor<3x5x1xf32>
  func.return %p : tensor<3x5x1xf32>
}
// CHECK-LABEL: func.func @moving_a_real_dim_stays
// CHECK-NEXT:    %p = ivy.permute_dims %x {axes = [2, 1, 0]}

func.func @mha_qkv_split(%x: tensor<5x2x48xf32>) -> (tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>) {
  %a = ivy.reshape %x {shape = [1, 5, 2, 3, 16]} : (tensor<5x2x48xf32>) -> tensor<1x5x2x3x16xf32>
  %p = ivy.permute_dims %a {axes = [3, 1, 2, 0, 4]} : (tensor<1x5x2x3x16xf32>) -> tensor<3x5x2x1x16xf32>
  %b = ivy.reshape %p {shape = [3, 5, 2, 16]} : (tensor<3x5x2x1x16xf32>) -> tensor<3x5x2x16xf32>
  %q = ivy.slice %b {start = [0, 0, 0, 0], stop = [1, 5, 2, 16], step = [1, 1, 1, 1]} : (tensor<3x5x2x16xf32>) -> tensor<1x5x2x16xf32>
  %k = ivy.slice %b {start = [1, 0, 0, 0], stop = [2, 5, 2, 16], step = [1, 1, 1, 1]} : (tensor<3x5x2x16xf32>) -> tensor<1x5x2x16xf32>
  func.return %q, %k : tensor<1x5x2x16xf32>, tensor<1x5x2x16xf32>
}
// torch's nn.MultiheadAttention: the unit dims leave before the (3, ...) transpose,
// each slice moves above it, and the transposes of size-1 dims become reshapes: no
// permute is left
// CHECK-LABEL: func.func @mha_qkv_split
// CHECK-NEXT:    [[R:%.*]] = ivy.reshape %x {shape = [5, 2, 3, 16]}
// CHECK-NEXT:    [[Q:%.*]] = ivy.slice [[R]] {start = [0, 0, 0, 0], stop = [5, 2, 1, 16], step = [1, 1, 1, 1]}
// CHECK-NEXT:    [[Q1:%.*]] = ivy.reshape [[Q]] {shape = [1, 5, 2, 16]}
// CHECK-NEXT:    [[K:%.*]] = ivy.slice [[R]] {start = [0, 0, 1, 0], stop = [5, 2, 2, 16], step = [1, 1, 1, 1]}
// CHECK-NEXT:    [[K1:%.*]] = ivy.reshape [[K]] {shape = [1, 5, 2, 16]}
// CHECK-NEXT:    func.return [[Q1]], [[K1]]

func.func @permute_read_by_a_slice_and_more(%x: tensor<2x3xf32>) -> (tensor<1x2xf32>, tensor<3x2xf32>) {
  %p = ivy.permute_dims %x {axes = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = ivy.slice %p {start = [0, 0], stop = [1, 2], step = [1, 1]} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  func.return %s, %p : tensor<1x2xf32>, tensor<3x2xf32>
}
// the whole permute is needed anyway: the slice stays below it
// CHECK-LABEL: func.func @permute_read_by_a_slice_and_more
// CHECK-NEXT:    %p = ivy.permute_dims %x {axes = [1, 0]}
// CHECK-NEXT:    %s = ivy.slice %p

func.func @strided_slice_moves_above_a_permute(%x: tensor<4x6xf32>) -> tensor<2x4xf32> {
  %p = ivy.permute_dims %x {axes = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %s = ivy.slice %p {start = [1, 0], stop = [5, 4], step = [2, 1]} : (tensor<6x4xf32>) -> tensor<2x4xf32>
  func.return %s : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @strided_slice_moves_above_a_permute
// CHECK-NEXT:    [[S:%.*]] = ivy.slice %x {start = [0, 1], stop = [4, 5], step = [1, 2]} : (tensor<4x6xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    [[P:%.*]] = ivy.permute_dims [[S]] {axes = [1, 0]}
// CHECK-NEXT:    func.return [[P]]

func.func @linear_of_a_permute(%x: tensor<2x5x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>) -> tensor<5x2x6xf32> {
  %p = ivy.permute_dims %x {axes = [1, 0, 2]} : (tensor<2x5x8xf32>) -> tensor<5x2x8xf32>
  %y = ivy.linear %p, %w, bias = %b : (tensor<5x2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<5x2x6xf32>
  func.return %y : tensor<5x2x6xf32>
}
// a batch-first input made seq-first before a product (nn.MultiheadAttention's
// in-projection): the product reads x as it lies, the permute moves below it
// CHECK-LABEL: func.func @linear_of_a_permute
// CHECK-NEXT:    [[L:%.*]] = ivy.linear %x, %w, bias = %b : (tensor<2x5x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x5x6xf32>
// CHECK-NEXT:    [[P:%.*]] = ivy.permute_dims [[L]] {axes = [1, 0, 2]}
// CHECK-NEXT:    func.return [[P]]

func.func @linear_of_a_permute_that_stays(%x: tensor<8x5xf32>, %u: tensor<2x5x8xf32>, %w: tensor<6x8xf32>) -> (tensor<5x6xf32>, tensor<5x2x8xf32>, tensor<5x2x6xf32>) {
  %p = ivy.permute_dims %x {axes = [1, 0]} : (tensor<8x5xf32>) -> tensor<5x8xf32>
  %y = ivy.linear %p, %w : (tensor<5x8xf32>, tensor<6x8xf32>) -> tensor<5x6xf32>
  %r = ivy.permute_dims %u {axes = [1, 0, 2]} : (tensor<2x5x8xf32>) -> tensor<5x2x8xf32>
  %s = ivy.linear %r, %w : (tensor<5x2x8xf32>, tensor<6x8xf32>) -> tensor<5x2x6xf32>
  func.return %y, %r, %s : tensor<5x6xf32>, tensor<5x2x8xf32>, tensor<5x2x6xf32>
}
// a permute that moves the product's dim, or that another op reads, stays above it
// CHECK-LABEL: func.func @linear_of_a_permute_that_stays
// CHECK-NEXT:    %p = ivy.permute_dims %x {axes = [1, 0]}
// CHECK-NEXT:    %y = ivy.linear %p, %w
// CHECK-NEXT:    %r = ivy.permute_dims %u {axes = [1, 0, 2]}
// CHECK-NEXT:    %s = ivy.linear %r, %w
