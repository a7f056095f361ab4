// RUN: ivy-opt %s -p decompose | filecheck %s
// RUN: ivy-opt %s -p 'decompose{ops=silu}' | filecheck %s --check-prefix=ONLY

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ivy.silu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = ivy.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// silu(x) = x * sigmoid(x), and sigmoid expands too (tanh form); relu = max(x, 0)
// CHECK-LABEL: func.func @f
// CHECK-NOT:   ivy.silu
// CHECK-NOT:   ivy.sigmoid
// CHECK:       ivy.tanh
// CHECK:       ivy.multiply %x,
// CHECK:       %{{.*}} = ivy.constant {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT:  ivy.maximum
// CHECK-NOT:   ivy.relu

// ONLY-NOT:    ivy.silu
// ONLY:        ivy.relu
