// RUN: ivy-opt %s -p recompose | filecheck %s

// jax.nn.gelu(approximate=False): x * (erf(x / sqrt(2)) + 1) / 2
func.func @gelu_erf_jax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s2 = ivy.constant {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %z = ivy.divide %x, %s2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = ivy.erf %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = ivy.multiply %x, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %two = ivy.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %y = ivy.divide %m, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @gelu_erf_jax
// CHECK-NEXT:    %y = ivy.gelu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %y

// torch / decompose: (x * 0.5) * (1 + erf(x * 0.70710678))
func.func @gelu_erf_torch(%x: tensor<8xf64>) -> tensor<8xf64> {
  %h = ivy.constant {value = dense<0.5> : tensor<f64>} : () -> tensor<f64>
  %xh = ivy.multiply %x, %h : (tensor<8xf64>, tensor<f64>) -> tensor<8xf64>
  %r = ivy.constant {value = dense<0.70710678118654757> : tensor<f64>} : () -> tensor<f64>
  %z = ivy.multiply %r, %x : (tensor<f64>, tensor<8xf64>) -> tensor<8xf64>
  %e = ivy.erf %z : (tensor<8xf64>) -> tensor<8xf64>
  %one = ivy.constant {value = dense<1.0> : tensor<f64>} : () -> tensor<f64>
  %a = ivy.add %one, %e : (tensor<f64>, tensor<8xf64>) -> tensor<8xf64>
  %y = ivy.multiply %xh, %a : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  func.return %y : tensor<8xf64>
}
// CHECK-LABEL: func.func @gelu_erf_torch
// CHECK-NEXT:    %y = ivy.gelu %x : (tensor<8xf64>) -> tensor<8xf64>
// CHECK-NEXT:    func.return %y

// tf.nn.gelu(approximate=True): 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x^3)))
func.func @gelu_tanh_tf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = ivy.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %x3 = ivy.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %c = ivy.constant {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %cx3 = ivy.multiply %c, %x3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %inner = ivy.add %x, %cx3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %k = ivy.constant {value = dense<0.7978845608> : tensor<f32>} : () -> tensor<f32>
  %z = ivy.multiply %k, %inner : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = ivy.tanh %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.add %one, %t : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %hx = ivy.multiply %h, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = ivy.multiply %hx, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @gelu_tanh_tf
// CHECK-NEXT:    %y = ivy.gelu %x {approximate = "tanh"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %y

// jax.nn.gelu(approximate=True) with x^3 as x*x*x and the 0.5 inside the cdf:
// x * (0.5 * (1 + tanh(sqrt(2/pi) * x * (1 + 0.044715 * x * x))))
func.func @gelu_tanh_factored(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %xx = ivy.multiply %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = ivy.constant {value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %cxx = ivy.multiply %xx, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %p = ivy.add %cxx, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %k = ivy.constant {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %kx = ivy.multiply %x, %k : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %z = ivy.multiply %kx, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = ivy.tanh %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = ivy.add %t, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %cdf = ivy.multiply %h, %a : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = ivy.multiply %x, %cdf : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @gelu_tanh_factored
// CHECK-NEXT:    %y = ivy.gelu %x {approximate = "tanh"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %y

// negative: 0.04 is not gelu's 0.044715
func.func @gelu_wrong_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = ivy.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %x3 = ivy.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %c = ivy.constant {value = dense<0.04> : tensor<f32>} : () -> tensor<f32>
  %cx3 = ivy.multiply %c, %x3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %inner = ivy.add %x, %cx3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %k = ivy.constant {value = dense<0.7978845608> : tensor<f32>} : () -> tensor<f32>
  %z = ivy.multiply %k, %inner : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = ivy.tanh %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.add %one, %t : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %hx = ivy.multiply %h, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = ivy.multiply %hx, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @gelu_wrong_constant
// CHECK-NOT:     ivy.gelu
// CHECK:         ivy.tanh
// CHECK:         func.return %y

// negative: the inner x * 0.5 is also returned, so it must stay (no duplicate work)
func.func @gelu_shared_half(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %h = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xh = ivy.multiply %x, %h : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %r = ivy.constant {value = dense<0.707106769> : tensor<f32>} : () -> tensor<f32>
  %z = ivy.multiply %x, %r : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = ivy.erf %z : (tensor<8xf32>) -> tensor<8xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = ivy.multiply %xh, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %y, %xh : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @gelu_shared_half
// CHECK-NOT:     ivy.gelu
// CHECK:         ivy.erf

// 1 / (1 + exp(-x))
func.func @sigmoid_exp(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %n = ivy.negative %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = ivy.exp %n : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %d = ivy.add %one, %e : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = ivy.divide %one, %d : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @sigmoid_exp
// CHECK-NEXT:    %y = ivy.sigmoid %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %y

// the decompose form: tanh(x * 0.5) * 0.5 + 0.5
func.func @sigmoid_tanh(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %h = ivy.constant {value = dense<0.5> : tensor<f16>} : () -> tensor<f16>
  %z = ivy.multiply %x, %h : (tensor<3x5xf16>, tensor<f16>) -> tensor<3x5xf16>
  %t = ivy.tanh %z : (tensor<3x5xf16>) -> tensor<3x5xf16>
  %th = ivy.multiply %t, %h : (tensor<3x5xf16>, tensor<f16>) -> tensor<3x5xf16>
  %y = ivy.add %th, %h : (tensor<3x5xf16>, tensor<f16>) -> tensor<3x5xf16>
  func.return %y : tensor<3x5xf16>
}
// CHECK-LABEL: func.func @sigmoid_tanh
// CHECK-NEXT:    %y = ivy.sigmoid %x : (tensor<3x5xf16>) -> tensor<3x5xf16>
// CHECK-NEXT:    func.return %y

// x * sigmoid(x)
func.func @silu_sigmoid(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %s = ivy.sigmoid %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = ivy.multiply %s, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @silu_sigmoid
// CHECK-NEXT:    %y = ivy.silu %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %y

// x / (1 + exp(-x))
func.func @silu_exp(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %m1 = ivy.constant {value = dense<-1.0> : tensor<f32>} : () -> tensor<f32>
  %n = ivy.multiply %x, %m1 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %e = ivy.exp %n : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %d = ivy.add %e, %one : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %y = ivy.divide %x, %d : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @silu_exp
// CHECK-NEXT:    %y = ivy.silu %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %y

// negative: 1 / (1 + exp(x)) is sigmoid(-x), and no op computes -x here to feed sigmoid
func.func @sigmoid_wrong_sign(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = ivy.exp %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %d = ivy.add %one, %e : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = ivy.divide %one, %d : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %y : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @sigmoid_wrong_sign
// CHECK-NOT:     ivy.sigmoid
// CHECK:         ivy.divide
