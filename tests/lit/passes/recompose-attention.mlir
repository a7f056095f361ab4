// RUN: ivy-opt %s -p recompose | filecheck %s

// softmax(q k^T * 1/sqrt(d)) v: the default scale
func.func @attn_default_scale(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 1, 3, 2]} : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %c = ivy.constant {value = dense<0.353553385> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %p = ivy.softmax %sc : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  func.return %y : tensor<2x4x6x8xf32>
}
// CHECK-LABEL: func.func @attn_default_scale
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
// CHECK-NEXT:    func.return %y

// divided by 4 (not sqrt(8)), with the softmax spelled out: it recomposes first
func.func @attn_divide_scale(%q: tensor<6x8xf32>, %k: tensor<5x8xf32>, %v: tensor<5x3xf32>) -> tensor<6x3xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<5x8xf32>) -> tensor<8x5xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %c = ivy.constant {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.divide %s, %c : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %m = ivy.max %sc {axis = [-1], keepdims = true} : (tensor<6x5xf32>) -> tensor<6x1xf32>
  %z = ivy.subtract %sc, %m : (tensor<6x5xf32>, tensor<6x1xf32>) -> tensor<6x5xf32>
  %e = ivy.exp %z : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %sum = ivy.sum %e {axis = [-1], keepdims = true} : (tensor<6x5xf32>) -> tensor<6x1xf32>
  %p = ivy.divide %e, %sum : (tensor<6x5xf32>, tensor<6x1xf32>) -> tensor<6x5xf32>
  %y = ivy.matmul %p, %v : (tensor<6x5xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
  func.return %y : tensor<6x3xf32>
}
// CHECK-LABEL: func.func @attn_divide_scale
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v {scale = 0.25} : (tensor<6x8xf32>, tensor<5x8xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT:    func.return %y

// the scale applied to q (q = q * scale), as many hand-written attentions do
func.func @attn_scaled_q(%q: tensor<4x6x8xf32>, %k: tensor<4x6x8xf32>, %v: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %c = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %qs = ivy.multiply %q, %c : (tensor<4x6x8xf32>, tensor<f32>) -> tensor<4x6x8xf32>
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<4x6x8xf32>) -> tensor<4x8x6xf32>
  %s = ivy.matmul %qs, %kt : (tensor<4x6x8xf32>, tensor<4x8x6xf32>) -> tensor<4x6x6xf32>
  %p = ivy.softmax %s {axis = 2} : (tensor<4x6x6xf32>) -> tensor<4x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<4x6x6xf32>, tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
  func.return %y : tensor<4x6x8xf32>
}
// CHECK-LABEL: func.func @attn_scaled_q
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v {scale = 0.5}
// CHECK-NEXT:    func.return %y

// the decompose form of causal=True: where(tril(ones_like(scores)), scores, -inf)
func.func @attn_causal(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %c = ivy.constant {value = dense<0.353553385> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %ones = ivy.ones_like %sc {dtype = i1} : (tensor<2x6x6xf32>) -> tensor<2x6x6xi1>
  %keep = ivy.tril %ones : (tensor<2x6x6xi1>) -> tensor<2x6x6xi1>
  %ninf = ivy.full {shape = [], fill_value = -inf} : () -> tensor<f32>
  %sm = ivy.where %keep, %sc, %ninf : (tensor<2x6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %p = ivy.softmax %sm : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y : tensor<2x6x8xf32>
}
// CHECK-LABEL: func.func @attn_causal
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v {causal = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
// CHECK-NEXT:    func.return %y

// torch masked_fill(triu(ones, 1), -inf): the masked-out part is the strict upper
// triangle, i.e. causal; the mask is shared with another layer, so it stays
func.func @attn_causal_masked_fill(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> (tensor<2x6x8xf32>, tensor<6x6xi1>) {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %ones = ivy.ones {shape = [6, 6], dtype = i1} : () -> tensor<6x6xi1>
  %drop = ivy.triu %ones {k = 1} : (tensor<6x6xi1>) -> tensor<6x6xi1>
  %ninf = ivy.full {shape = [], fill_value = -inf} : () -> tensor<f32>
  %sm = ivy.where %drop, %ninf, %s : (tensor<6x6xi1>, tensor<f32>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %p = ivy.softmax %sm {axis = -1} : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y, %drop : tensor<2x6x8xf32>, tensor<6x6xi1>
}
// CHECK-LABEL: func.func @attn_causal_masked_fill
// CHECK:         %drop = ivy.triu
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v {causal = true, scale = 1.0}
// CHECK-NEXT:    func.return %y, %drop

// a boolean padding mask (keep where True) broadcast over heads and queries
func.func @attn_bool_mask(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %mask: tensor<2x1x1x6xi1>) -> tensor<2x4x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 1, 3, 2]} : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %c = ivy.constant {value = dense<0.353553385> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %ninf = ivy.full {shape = [], fill_value = -inf} : () -> tensor<f32>
  %sm = ivy.where %mask, %sc, %ninf : (tensor<2x1x1x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %p = ivy.softmax %sm : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  func.return %y : tensor<2x4x6x8xf32>
}
// CHECK-LABEL: func.func @attn_bool_mask
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v, mask = %mask : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x6x8xf32>
// CHECK-NEXT:    func.return %y

// an additive float mask, added before the scale is (mask + scores order)
func.func @attn_float_mask(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %bias: tensor<6x6xf32>) -> tensor<2x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %c = ivy.constant {value = dense<0.353553385> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %c, %s : (tensor<f32>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %sm = ivy.add %bias, %sc : (tensor<6x6xf32>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %p = ivy.softmax %sm : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y : tensor<2x6x8xf32>
}
// CHECK-LABEL: func.func @attn_float_mask
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v, mask = %bias : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<6x6xf32>) -> tensor<2x6x8xf32>
// CHECK-NEXT:    func.return %y

// our decomposition's form: the causal and boolean masks added as where(keep, 0, -inf)
// (one inverted), and the softmax clamped (max raised to the lowest float32, sum to 1/2)
// so that rows masked out throughout give zeros
func.func @attn_added_masks_clamped(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %drop: tensor<6x6xi1>) -> tensor<2x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %c = ivy.constant {value = dense<0.353553385> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %ones = ivy.ones_like %sc {dtype = i1} : (tensor<2x6x6xf32>) -> tensor<2x6x6xi1>
  %keep = ivy.tril %ones : (tensor<2x6x6xi1>) -> tensor<2x6x6xi1>
  %zeros = ivy.zeros_like %sc : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %ninf = ivy.full {shape = [], fill_value = -inf} : () -> tensor<f32>
  %causal = ivy.where %keep, %zeros, %ninf : (tensor<2x6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %s1 = ivy.add %sc, %causal : (tensor<2x6x6xf32>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %mzeros = ivy.zeros_like %drop {dtype = f32} : (tensor<6x6xi1>) -> tensor<6x6xf32>
  %dropped = ivy.where %drop, %ninf, %mzeros : (tensor<6x6xi1>, tensor<f32>, tensor<6x6xf32>) -> tensor<6x6xf32>
  %s2 = ivy.add %s1, %dropped : (tensor<2x6x6xf32>, tensor<6x6xf32>) -> tensor<2x6x6xf32>
  %m = ivy.max %s2 {axis = [2], keepdims = true} : (tensor<2x6x6xf32>) -> tensor<2x6x1xf32>
  %lo = ivy.constant {value = dense<-3.40282347e+38> : tensor<f32>} : () -> tensor<f32>
  %ml = ivy.maximum %m, %lo : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
  %z = ivy.subtract %s2, %ml : (tensor<2x6x6xf32>, tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
  %e = ivy.exp %z : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %sum = ivy.sum %e {axis = [2], keepdims = true} : (tensor<2x6x6xf32>) -> tensor<2x6x1xf32>
  %half = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %total = ivy.maximum %sum, %half : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
  %p = ivy.divide %e, %total : (tensor<2x6x6xf32>, tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y : tensor<2x6x8xf32>
}
// CHECK-LABEL: func.func @attn_added_masks_clamped
// CHECK:         %[[KEEP:.*]] = ivy.logical_not %drop
// CHECK-NEXT:    %y = ivy.scaled_dot_product_attention %q, %k, %v, mask = %[[KEEP]] {causal = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<6x6xi1>) -> tensor<2x6x8xf32>
// CHECK-NEXT:    func.return %y

// negative: a max raised to -1e9 instead of the lowest float changes rows whose scores
// all lie below it, so that softmax is not the op's
func.func @attn_clamped_too_high(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %m = ivy.max %s {axis = [1], keepdims = true} : (tensor<6x6xf32>) -> tensor<6x1xf32>
  %lo = ivy.constant {value = dense<-1.0e+09> : tensor<f32>} : () -> tensor<f32>
  %ml = ivy.maximum %m, %lo : (tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
  %z = ivy.subtract %s, %ml : (tensor<6x6xf32>, tensor<6x1xf32>) -> tensor<6x6xf32>
  %e = ivy.exp %z : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %sum = ivy.sum %e {axis = [1], keepdims = true} : (tensor<6x6xf32>) -> tensor<6x1xf32>
  %half = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %total = ivy.maximum %sum, %half : (tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
  %p = ivy.divide %e, %total : (tensor<6x6xf32>, tensor<6x1xf32>) -> tensor<6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  func.return %y : tensor<6x8xf32>
}
// CHECK-LABEL: func.func @attn_clamped_too_high
// CHECK-NOT:     ivy.scaled_dot_product_attention
// CHECK:         %y = ivy.matmul %p, %v

// negative: a finite fill (-1e9) is not the op's boolean mask (a fully masked row would
// average the values instead of giving NaN): the attention stays spelled out
func.func @attn_finite_fill(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %mask: tensor<2x6x6xi1>) -> tensor<2x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %fill = ivy.constant {value = dense<-1.0e+09> : tensor<f32>} : () -> tensor<f32>
  %sm = ivy.where %mask, %s, %fill : (tensor<2x6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %p = ivy.softmax %sm : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y : tensor<2x6x8xf32>
}
// CHECK-LABEL: func.func @attn_finite_fill
// CHECK-NOT:     ivy.scaled_dot_product_attention
// CHECK:         ivy.softmax
// CHECK:         %y = ivy.matmul %p, %v

// negative: a softmax over the query axis is not attention
func.func @attn_softmax_wrong_axis(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %kt = ivy.permute_dims %k {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %p = ivy.softmax %s {axis = 1} : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %y = ivy.matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  func.return %y : tensor<2x6x8xf32>
}
// CHECK-LABEL: func.func @attn_softmax_wrong_axis
// CHECK-NOT:     ivy.scaled_dot_product_attention
// CHECK:         %y = ivy.matmul %p, %v

// multi-head attention with the head split around it: (B, L, H*D) -> (B, H, L, D); k^T is
// folded into k's head-split transpose (permute 0, 2, 3, 1), so k becomes (0, 2, 1, 3)
func.func @attn_head_split(%x: tensor<2x5x16xf32>) -> tensor<2x5x16xf32> {
  %x4 = ivy.reshape %x {shape = [2, 5, 4, 4]} : (tensor<2x5x16xf32>) -> tensor<2x5x4x4xf32>
  %q = ivy.permute_dims %x4 {axes = [0, 2, 1, 3]} : (tensor<2x5x4x4xf32>) -> tensor<2x4x5x4xf32>
  %kt = ivy.permute_dims %x4 {axes = [0, 2, 3, 1]} : (tensor<2x5x4x4xf32>) -> tensor<2x4x4x5xf32>
  %s = ivy.matmul %q, %kt : (tensor<2x4x5x4xf32>, tensor<2x4x4x5xf32>) -> tensor<2x4x5x5xf32>
  %c = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %sc = ivy.multiply %s, %c : (tensor<2x4x5x5xf32>, tensor<f32>) -> tensor<2x4x5x5xf32>
  %p = ivy.softmax %sc : (tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %o = ivy.matmul %p, %q : (tensor<2x4x5x5xf32>, tensor<2x4x5x4xf32>) -> tensor<2x4x5x4xf32>
  %ot = ivy.permute_dims %o {axes = [0, 2, 1, 3]} : (tensor<2x4x5x4xf32>) -> tensor<2x5x4x4xf32>
  %y = ivy.reshape %ot {shape = [2, 5, 16]} : (tensor<2x5x4x4xf32>) -> tensor<2x5x16xf32>
  func.return %y : tensor<2x5x16xf32>
}
// CHECK-LABEL: func.func @attn_head_split
// CHECK:         %q = ivy.permute_dims %x4 {axes = [0, 2, 1, 3]}
// CHECK-NEXT:    %[[K:.*]] = ivy.permute_dims %x4 {axes = [0, 2, 1, 3]}
// CHECK-NEXT:    %o = ivy.scaled_dot_product_attention %q, %[[K]], %q : (tensor<2x4x5x4xf32>, tensor<2x4x5x4xf32>, tensor<2x4x5x4xf32>) -> tensor<2x4x5x4xf32>
// CHECK-NEXT:    %ot = ivy.permute_dims %o {axes = [0, 2, 1, 3]}
// CHECK-NEXT:    %y = ivy.reshape %ot {shape = [2, 5, 16]}
