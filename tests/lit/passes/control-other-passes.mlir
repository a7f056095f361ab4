// strip-wrappers, decompose, recompose and channels-last inside control-flow bodies:
// each rewrites a body's ops as it would a function's, within the body (what it
// emits lands in the body, next to the op it rewrites; permutes never cross the
// region boundary).
// RUN: ivy-opt %s -p strip-wrappers | filecheck %s --check-prefix=STRIP
// RUN: ivy-opt %s -p decompose | filecheck %s --check-prefix=DECOMP
// RUN: ivy-opt %s -p decompose,recompose | filecheck %s --check-prefix=RECOMP
// RUN: ivy-opt %s -p channels-last | filecheck %s --check-prefix=CL

func.func @wrappers_and_composites(%h0: tensor<2x3xf32>, %xs: tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 4} : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
    %a = ivy.astype %c {dtype = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sm = ivy.softmax %t {axis = 1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = ivy.add %a, %sm : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ivy.yield %y, %sm : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.return %h, %ys : tensor<2x3xf32>, tensor<4x2x3xf32>
}
// STRIP-LABEL: func.func @wrappers_and_composites
// STRIP:         body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
// STRIP-NEXT:      %sm = ivy.softmax %t
// STRIP-NEXT:      %y = ivy.add %c, %sm

// DECOMP-LABEL: func.func @wrappers_and_composites
// DECOMP:         body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
// DECOMP-NEXT:      %a = ivy.astype %c
// DECOMP-NEXT:      ivy.max %t
// DECOMP-NEXT:      ivy.subtract %t
// DECOMP-NEXT:      ivy.exp
// DECOMP-NEXT:      ivy.sum
// DECOMP-NEXT:      %sm = ivy.divide
// DECOMP-NEXT:      %y = ivy.add %a, %sm

// RECOMP-LABEL: func.func @wrappers_and_composites
// RECOMP:         body(%c: tensor<2x3xf32>, %t: tensor<2x3xf32>) {
// RECOMP-NEXT:      %sm = ivy.softmax %t
// RECOMP-NEXT:      %y = ivy.add %c, %sm
// RECOMP-NEXT:      ivy.yield %y, %sm

func.func @conv_in_body(%x: tensor<2x1x3x5x5xf32>) -> tensor<2x1x3x5x5xf32> {
  %ys = ivy.scan %x {num_carry = 0, length = 2} : (tensor<2x1x3x5x5xf32>) -> tensor<2x1x3x5x5xf32> body(%t: tensor<1x3x5x5xf32>) {
    %k = ivy.ones {shape = [3, 3, 3, 3]} : () -> tensor<3x3x3x3xf32>
    %y = ivy.conv %t, %k {strides = [1, 1], padding = [1, 1, 1, 1], dilations = [1, 1]} : (tensor<1x3x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x5x5xf32>
    %r = ivy.relu %y : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
    ivy.yield %r : tensor<1x3x5x5xf32>
  }
  func.return %ys : tensor<2x1x3x5x5xf32>
}
// CL-LABEL: func.func @conv_in_body
// CL-NEXT:    %ys = ivy.scan %x
// CL-NEXT:      %k = ivy.ones
// CL-NEXT:      %[[T:.*]] = ivy.permute_dims %t {axes = [0, 2, 3, 1]}
// CL-NEXT:      %[[K:.*]] = ivy.permute_dims %k {axes = [2, 3, 1, 0]}
// CL-NEXT:      %[[Y:.*]] = ivy.conv %[[T]], %[[K]] {{.*}}layout = "channels_last"
// CL-NEXT:      %[[R:.*]] = ivy.relu %[[Y]]
// CL-NEXT:      %r = ivy.permute_dims %[[R]] {axes = [0, 3, 1, 2]}
// CL-NEXT:      ivy.yield %r
