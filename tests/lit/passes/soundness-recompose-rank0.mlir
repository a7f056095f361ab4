// Found by tests/test_pass_soundness.py: recompose's keepdims rule normalized the axes of
// an expand_dims with the rank of the reduced tensor, which is 0 for a 0-d reduction, and
// crashed (ZeroDivisionError). Nothing here can be recomposed, so the IR stays as it is.
// RUN: ivy-opt -p recompose %s | filecheck %s

func.func @f(%x: tensor<f64>) -> tensor<1xf64> {
  %v = ivy.var %x : (tensor<f64>) -> tensor<f64>
  %e = ivy.expand_dims %v {axis = [0]} : (tensor<f64>) -> tensor<1xf64>
  func.return %e : tensor<1xf64>
}

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %v = ivy.var %x : (tensor<f64>) -> tensor<f64>
// CHECK-NEXT:    %e = ivy.expand_dims %v {axis = [0]} : (tensor<f64>) -> tensor<1xf64>
// CHECK-NEXT:    func.return %e : tensor<1xf64>
