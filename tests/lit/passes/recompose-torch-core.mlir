// RUN: ivy-opt %s -p recompose | filecheck %s

// What torch's core-ATen decompositions (`ep.run_decompositions()`) make of a layer:
// 4-D matmuls run as `bmm` on flattened batch dims, `x @ W` as a `bmm` against an
// expanded W, and sdpa spelled out with both q and k^T scaled by sqrt(scale) and the
// softmax guarded against rows that are -inf throughout (`_safe_softmax`).

// nn.MultiheadAttention's sdpa as torch decomposes it: one sdpa, default scale
func.func @sdpa_core_aten(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v3: tensor<8x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %c = ivy.constant {value = dense<0.594603539> : tensor<f32>} : () -> tensor<f32>
  %qs = ivy.multiply %q, %c : (tensor<2x4x6x8xf32>, tensor<f32>) -> tensor<2x4x6x8xf32>
  %kt = ivy.permute_dims %k {axes = [0, 1, 3, 2]} : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %ks = ivy.multiply %kt, %c : (tensor<2x4x8x6xf32>, tensor<f32>) -> tensor<2x4x8x6xf32>
  %q3 = ivy.reshape %qs {shape = [8, 6, 8]} : (tensor<2x4x6x8xf32>) -> tensor<8x6x8xf32>
  %k3 = ivy.reshape %ks {shape = [8, 8, 6]} : (tensor<2x4x8x6xf32>) -> tensor<8x8x6xf32>
  %s3 = ivy.matmul %q3, %k3 : (tensor<8x6x8xf32>, tensor<8x8x6xf32>) -> tensor<8x6x6xf32>
  %s = ivy.reshape %s3 {shape = [2, 4, 6, 6]} : (tensor<8x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = ivy.softmax %s : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %eq = ivy.equal %s, %ninf : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xi1>
  %ne = ivy.logical_not %eq : (tensor<2x4x6x6xi1>) -> tensor<2x4x6x6xi1>
  %any = ivy.any %ne {axis = [3], keepdims = true} : (tensor<2x4x6x6xi1>) -> tensor<2x4x6x1xi1>
  %dead = ivy.logical_not %any : (tensor<2x4x6x1xi1>) -> tensor<2x4x6x1xi1>
  %zeros = ivy.full {shape = [2, 4, 6, 6], fill_value = 0.0} : () -> tensor<2x4x6x6xf32>
  %safe = ivy.where %dead, %zeros, %p : (tensor<2x4x6x1xi1>, tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p3 = ivy.reshape %safe {shape = [8, 6, 6]} : (tensor<2x4x6x6xf32>) -> tensor<8x6x6xf32>
  %y3 = ivy.matmul %p3, %v3 : (tensor<8x6x6xf32>, tensor<8x6x8xf32>) -> tensor<8x6x8xf32>
  %y = ivy.reshape %y3 {shape = [2, 4, 6, 8]} : (tensor<8x6x8xf32>) -> tensor<2x4x6x8xf32>
  func.return %y : tensor<2x4x6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_core_aten
// CHECK-NEXT:    %{{.*}} = ivy.reshape %v3 {shape = [2, 4, 6, 8]} : (tensor<8x6x8xf32>) -> tensor<2x4x6x8xf32>
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %{{.*}} : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
// CHECK-NEXT:    func.return %y

// the guard spelled `all(s == -inf)`, -inf on the left, with a causal mask (which never
// empties a row) and a non-default scale
func.func @sdpa_guard_all_causal(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %c = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
  %ones = ivy.ones {shape = [6, 6], dtype = i1} : () -> tensor<6x6xi1>
  %keep = ivy.tril %ones : (tensor<6x6xi1>) -> tensor<6x6xi1>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %m = ivy.where %keep, %sc, %ninf : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
  %p = ivy.softmax %m : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %eq = ivy.equal %ninf, %m : (tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xi1>
  %dead = ivy.all %eq {axis = [-1], keepdims = true} : (tensor<6x6xi1>) -> tensor<6x1xi1>
  %zero = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %safe = ivy.where %dead, %zero, %p : (tensor<6x1xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %safe, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_guard_all_causal
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v {causal = true, scale = 0.5}
// CHECK-NEXT:    func.return %y

// with a boolean mask a row can be masked out entirely: the guard gives 0 there, as
// the op does, so the guarded softmax recomposes
func.func @sdpa_guard_masked(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %mask: tensor<6x6xi1>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %m = ivy.where %mask, %s, %ninf : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
  %p = ivy.softmax %m : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %eq = ivy.equal %m, %ninf : (tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xi1>
  %dead = ivy.all %eq {axis = [1], keepdims = true} : (tensor<6x6xi1>) -> tensor<6x1xi1>
  %zero = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %safe = ivy.where %dead, %zero, %p : (tensor<6x1xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %safe, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_guard_masked
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v, mask = %mask {scale = 1.0}
// CHECK-NEXT:    func.return %y

// negative: a guard over another axis than the softmax's is not `_safe_softmax`
func.func @sdpa_guard_wrong_axis(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %p = ivy.softmax %s : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %eq = ivy.equal %s, %ninf : (tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xi1>
  %dead = ivy.all %eq {axis = [0], keepdims = true} : (tensor<6x6xi1>) -> tensor<1x6xi1>
  %zero = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %safe = ivy.where %dead, %zero, %p : (tensor<1x6xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %safe, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_guard_wrong_axis
// CHECK-NOT:     scaled_dot_product_attention
// CHECK:         %y = ivy.matmul %safe, %v

// negative: a guard that fills another value than 0 is not torch's
func.func @sdpa_guard_nonzero(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %p = ivy.softmax %s : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %eq = ivy.equal %s, %ninf : (tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xi1>
  %dead = ivy.all %eq {axis = [1], keepdims = true} : (tensor<6x6xi1>) -> tensor<6x1xi1>
  %fill = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %safe = ivy.where %dead, %fill, %p : (tensor<6x1xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %safe, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_guard_nonzero
// CHECK-NOT:     scaled_dot_product_attention
// CHECK:         %y = ivy.matmul %safe, %v

// `x @ W + b` as torch decomposes a linear on 3-D input: a bmm against W expanded
// over the batch; the expand is dropped and the product with bias is one linear
func.func @linear_expanded_weight(%x: tensor<4x8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<4x8x32xf32> {
  %wt = ivy.permute_dims %w {axes = [1, 0]} : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %we = ivy.broadcast_to %wt {shape = [4, 16, 32]} : (tensor<16x32xf32>) -> tensor<4x16x32xf32>
  %m = ivy.matmul %x, %we : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
  %y = ivy.add %b, %m : (tensor<32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  func.return %y : tensor<4x8x32xf32>
}
// CHECK-LABEL: func.func @linear_expanded_weight
// CHECK-NEXT:    %y = ivy.linear %x, %w, bias = %b : (tensor<4x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x8x32xf32>
// CHECK-NEXT:    func.return %y

// negative: broadcasting batch dims the other operand lacks is needed (the product
// would have another shape without it)
func.func @matmul_needed_broadcast(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<4x8x32xf32> {
  %we = ivy.broadcast_to %w {shape = [4, 16, 32]} : (tensor<16x32xf32>) -> tensor<4x16x32xf32>
  %y = ivy.matmul %x, %we : (tensor<8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
  func.return %y : tensor<4x8x32xf32>
}
// CHECK-LABEL: func.func @matmul_needed_broadcast
// CHECK-NEXT:    %we = ivy.broadcast_to %w
// CHECK-NEXT:    %y = ivy.matmul %x, %we

// a bmm on flattened batch dims whose inputs are both reshapes: the 4-D matmul
func.func @bmm_flattened(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %a3 = ivy.reshape %a {shape = [6, 4, 5]} : (tensor<2x3x4x5xf32>) -> tensor<6x4x5xf32>
  %b3 = ivy.reshape %b {shape = [6, 5, 6]} : (tensor<2x3x5x6xf32>) -> tensor<6x5x6xf32>
  %m = ivy.matmul %a3, %b3 : (tensor<6x4x5xf32>, tensor<6x5x6xf32>) -> tensor<6x4x6xf32>
  %y = ivy.reshape %m {shape = [2, 3, 4, 6]} : (tensor<6x4x6xf32>) -> tensor<2x3x4x6xf32>
  func.return %y : tensor<2x3x4x6xf32>
}
// CHECK-LABEL: func.func @bmm_flattened
// CHECK-NEXT:    %y = ivy.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
// CHECK-NEXT:    func.return %y

// negative: neither input has the unflattened shape (it would only move the reshapes)
func.func @bmm_no_source(%a: tensor<6x4x5xf32>, %b: tensor<6x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %m = ivy.matmul %a, %b : (tensor<6x4x5xf32>, tensor<6x5x6xf32>) -> tensor<6x4x6xf32>
  %y = ivy.reshape %m {shape = [2, 3, 4, 6]} : (tensor<6x4x6xf32>) -> tensor<2x3x4x6xf32>
  func.return %y : tensor<2x3x4x6xf32>
}
// CHECK-LABEL: func.func @bmm_no_source
// CHECK-NEXT:    %m = ivy.matmul %a, %b
// CHECK-NEXT:    %y = ivy.reshape %m

// negative: a reshape that also splits the matrix rows is not a batch unflattening
func.func @bmm_splits_rows(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x2x12xf32> {
  %a3 = ivy.reshape %a {shape = [6, 4, 5]} : (tensor<2x3x4x5xf32>) -> tensor<6x4x5xf32>
  %b3 = ivy.reshape %b {shape = [6, 5, 6]} : (tensor<2x3x5x6xf32>) -> tensor<6x5x6xf32>
  %m = ivy.matmul %a3, %b3 : (tensor<6x4x5xf32>, tensor<6x5x6xf32>) -> tensor<6x4x6xf32>
  %y = ivy.reshape %m {shape = [2, 3, 2, 12]} : (tensor<6x4x6xf32>) -> tensor<2x3x2x12xf32>
  func.return %y : tensor<2x3x2x12xf32>
}
// CHECK-LABEL: func.func @bmm_splits_rows
// CHECK-NEXT:    %a3 = ivy.reshape %a
// CHECK-NEXT:    %b3 = ivy.reshape %b
// CHECK-NEXT:    %m = ivy.matmul %a3, %b3
// CHECK-NEXT:    %y = ivy.reshape %m

// a linear on 3-D input as core ATen runs it: addmm on a 2-D view, viewed back
func.func @linear_flattened(%x: tensor<4x8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<4x8x32xf32> {
  %x2 = ivy.reshape %x {shape = [32, 16]} : (tensor<4x8x16xf32>) -> tensor<32x16xf32>
  %wt = ivy.permute_dims %w {axes = [1, 0]} : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %m = ivy.matmul %x2, %wt : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
  %a = ivy.add %b, %m : (tensor<32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = ivy.reshape %a {shape = [4, 8, 32]} : (tensor<32x32xf32>) -> tensor<4x8x32xf32>
  func.return %y : tensor<4x8x32xf32>
}
// CHECK-LABEL: func.func @linear_flattened
// CHECK-NEXT:    %y = ivy.linear %x, %w, bias = %b : (tensor<4x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x8x32xf32>
// CHECK-NEXT:    func.return %y

// negative: the 2-D input has no earlier 3-D form (moving the reshape saves nothing)
func.func @linear_flat_input(%x2: tensor<32x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x8x32xf32> {
  %l = ivy.linear %x2, %w : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x32xf32>
  %y = ivy.reshape %l {shape = [4, 8, 32]} : (tensor<32x32xf32>) -> tensor<4x8x32xf32>
  func.return %y : tensor<4x8x32xf32>
}
// CHECK-LABEL: func.func @linear_flat_input
// CHECK-NEXT:    %l = ivy.linear %x2, %w
// CHECK-NEXT:    %y = ivy.reshape %l

// negative: a view that regroups the output features is not the batched linear
func.func @linear_regrouped(%x: tensor<4x8x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x16x16xf32> {
  %x2 = ivy.reshape %x {shape = [32, 16]} : (tensor<4x8x16xf32>) -> tensor<32x16xf32>
  %l = ivy.linear %x2, %w : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x32xf32>
  %y = ivy.reshape %l {shape = [4, 16, 16]} : (tensor<32x32xf32>) -> tensor<4x16x16xf32>
  func.return %y : tensor<4x16x16xf32>
}
// CHECK-LABEL: func.func @linear_regrouped
// CHECK-NEXT:    %x2 = ivy.reshape %x
// CHECK-NEXT:    %l = ivy.linear %x2, %w
// CHECK-NEXT:    %y = ivy.reshape %l

// our own decomposition also zeroes the scores of such rows before the softmax, so its
// gradient stays finite: that inner `where` belongs to the guard too
func.func @sdpa_guard_safe_scores(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %mask: tensor<6x6xi1>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %ninf = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
  %m = ivy.where %mask, %s, %ninf : (tensor<6x6xi1>, tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xf32>
  %eq = ivy.equal %m, %ninf : (tensor<6x6xf32>, tensor<f32>) -> tensor<6x6xi1>
  %dead = ivy.all %eq {axis = [1], keepdims = true} : (tensor<6x6xi1>) -> tensor<6x1xi1>
  %zero = ivy.constant {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %z = ivy.where %dead, %zero, %m : (tensor<6x1xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %p = ivy.softmax %z : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %safe = ivy.where %dead, %zero, %p : (tensor<6x1xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %safe, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @sdpa_guard_safe_scores
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v, mask = %mask {scale = 1.0}
// CHECK-NEXT:    func.return %y
