// Constant folding: an op whose operands are all constants becomes a constant computed
// by the NumPy reference, when its result is small (fold-limit, 16 elements).
// RUN: ivy-opt %s -p canonicalize | filecheck %s
// RUN: ivy-opt %s -p 'canonicalize{fold-limit=0}' | filecheck %s --check-prefix=NOFOLD

func.func @fold_add() -> tensor<3xi32> {
  %a = ivy.constant {value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %b = ivy.constant {value = dense<10> : tensor<i32>} : () -> tensor<i32>
  %c = ivy.add %a, %b : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  func.return %c : tensor<3xi32>
}
// CHECK-LABEL: func.func @fold_add
// CHECK-NEXT:    %c = ivy.constant {value = dense<[11, 12, 13]> : tensor<3xi32>} : () -> tensor<3xi32>
// CHECK-NEXT:    func.return %c
// NOFOLD-LABEL: func.func @fold_add
// NOFOLD:         %c = ivy.add %a, %b

func.func @fold_chain() -> tensor<2xf32> {
  %a = ivy.constant {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = ivy.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = ivy.exp %b : (tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
// exp([0, 2]) in float32
// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT:    %c = ivy.constant {value = dense<[1.000000e+00, 7.38905{{[0-9]+}}]> : tensor<2xf32>}
// CHECK-NEXT:    func.return %c

func.func @fold_creation_operand() -> tensor<4xf32> {
  %r = ivy.arange {start = 0.0, stop = 4.0, dtype = f32} : () -> tensor<4xf32>
  %o = ivy.ones {shape = [4]} : () -> tensor<4xf32>
  %s = ivy.subtract %r, %o : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
// creation ops stay as they are, but count as constants where they feed another op
// CHECK-LABEL: func.func @fold_creation_operand
// CHECK-NEXT:    %s = ivy.constant {value = dense<[-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<4xf32>}
// CHECK-NEXT:    func.return %s

func.func @fold_scalar_and_empty() -> (tensor<i64>, tensor<0x2xf32>) {
  %a = ivy.constant {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %s = ivy.sum %a : (tensor<2x2xi64>) -> tensor<i64>
  %e = ivy.zeros {shape = [0, 2]} : () -> tensor<0x2xf32>
  %n = ivy.negative %e : (tensor<0x2xf32>) -> tensor<0x2xf32>
  func.return %s, %n : tensor<i64>, tensor<0x2xf32>
}
// CHECK-LABEL: func.func @fold_scalar_and_empty
// CHECK-NEXT:    %s = ivy.constant {value = dense<10> : tensor<i64>} : () -> tensor<i64>
// CHECK-NEXT:    %n = ivy.constant {value = dense<> : tensor<0x2xf32>} : () -> tensor<0x2xf32>

func.func @fold_multi_result() -> (tensor<1xi32>, tensor<2xi32>) {
  %a = ivy.constant {value = dense<[5, 6, 7]> : tensor<3xi32>} : () -> tensor<3xi32>
  %p, %q = ivy.split %a {sizes = [1, 2]} : (tensor<3xi32>) -> (tensor<1xi32>, tensor<2xi32>)
  func.return %p, %q : tensor<1xi32>, tensor<2xi32>
}
// CHECK-LABEL: func.func @fold_multi_result
// CHECK-NEXT:    %{{.*}} = ivy.constant {value = dense<5> : tensor<1xi32>}
// CHECK-NEXT:    %{{.*}} = ivy.constant {value = dense<[6, 7]> : tensor<2xi32>}

func.func @fold_too_big() -> tensor<20xf32> {
  %a = ivy.constant {value = dense<2.0> : tensor<20xf32>} : () -> tensor<20xf32>
  %b = ivy.sqrt %a : (tensor<20xf32>) -> tensor<20xf32>
  func.return %b : tensor<20xf32>
}
// 20 elements is more than the tracer would inline: not folded into the IR text
// CHECK-LABEL: func.func @fold_too_big
// CHECK:         %b = ivy.sqrt %a

func.func @no_fold_random() -> tensor<2xf32> {
  %k = ivy.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %r = ivy.random_uniform %k {shape = [2]} : (tensor<i64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
// random streams are per target: NumPy's would not be what JAX or torch draws
// CHECK-LABEL: func.func @no_fold_random
// CHECK:         %r = ivy.random_uniform %k

func.func @fold_int_division() -> tensor<4xi32> {
  %a = ivy.constant {value = dense<[7, -7, 7, -7]> : tensor<4xi32>} : () -> tensor<4xi32>
  %b = ivy.constant {value = dense<[2, 2, -2, -2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %c = ivy.floor_divide %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %c : tensor<4xi32>
}
// floor division rounds toward -inf, as the reference does
// CHECK-LABEL: func.func @fold_int_division
// CHECK-NEXT:    %c = ivy.constant {value = dense<[3, -4, -4, 3]> : tensor<4xi32>}

func.func @fold_to_inf_and_nan() -> tensor<3xf32> {
  %a = ivy.constant {value = dense<[1.0, -1.0, 0.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %z = ivy.zeros {shape = [3]} : () -> tensor<3xf32>
  %c = ivy.divide %a, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %c : tensor<3xf32>
}
// 1/0, -1/0 and 0/0 fold to +inf, -inf and NaN (printed as their bit patterns)
// CHECK-LABEL: func.func @fold_to_inf_and_nan
// CHECK-NEXT:    %c = ivy.constant {value = dense<[0x7f800000, 0xff800000, 0x{{[0-9a-f]+}}]> : tensor<3xf32>}
