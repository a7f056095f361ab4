// The unsigned and complex dtypes in IR text: operand and result types, dtype
// attributes and constants print and parse back unchanged. Finite complex constants
// print as MLIR's (re,im) pairs; ones with an inf or NaN part print as MLIR's hex data
// string (xDSL 0.74 cannot read hex bit patterns inside a pair, which is how its own
// generic form, `--print-op-generic`, prints them: a known limitation).
// RUN: ivy-opt %s | ivy-opt | filecheck %s

builtin.module {
  func.func @unsigned(%a: tensor<2xui16>, %b: tensor<2xui32>, %c: tensor<2xui64>) -> (tensor<2xui16>, tensor<2xui32>, tensor<2xui64>, tensor<2xui64>) {
    %0 = ivy.add %a, %a : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
    %1 = ivy.astype %a {dtype = ui32} : (tensor<2xui16>) -> tensor<2xui32>
    %2 = ivy.constant {value = dense<[0, 18446744073709551615]> : tensor<2xui64>} : () -> tensor<2xui64>
    %3 = ivy.multiply %c, %2 : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
    func.return %0, %1, %2, %3 : tensor<2xui16>, tensor<2xui32>, tensor<2xui64>, tensor<2xui64>
  }
}
// CHECK-LABEL: func.func @unsigned
// CHECK-NEXT: ivy.add %{{.*}}, %{{.*}} : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
// CHECK-NEXT: ivy.astype %{{.*}} {dtype = ui32} : (tensor<2xui16>) -> tensor<2xui32>
// CHECK-NEXT: dense<[0, 18446744073709551615]> : tensor<2xui64>
// CHECK-NEXT: ivy.multiply

builtin.module {
  func.func @complex(%x: tensor<2xcomplex<f32>>, %y: tensor<complex<f64>>) -> (tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>, tensor<complex<f64>>) {
    %0 = ivy.abs %x : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    %1 = ivy.constant {value = dense<[(1.500000e+00,-2.000000e+00), (0.000000e+00,1.000000e-01)]> : tensor<2xcomplex<f32>>} : () -> tensor<2xcomplex<f32>>
    %2 = ivy.constant {value = dense<"0x000000000000F07F000000000000F83F000000000000F03F000000000000F8FF"> : tensor<2xcomplex<f64>>} : () -> tensor<2xcomplex<f64>>
    %3 = ivy.exp %1 : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    %4 = ivy.astype %x {dtype = complex<f64>} : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f64>>
    %5 = ivy.sum %y : (tensor<complex<f64>>) -> tensor<complex<f64>>
    func.return %0, %1, %2, %3, %5 : tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>, tensor<complex<f64>>
  }
}
// CHECK-LABEL: func.func @complex
// CHECK-NEXT: ivy.abs %{{.*}} : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK-NEXT: dense<[(1.500000e+00,-2.000000e+00), (0.000000e+00,1.000000e-01)]> : tensor<2xcomplex<f32>>
// CHECK-NEXT: dense<"0x000000000000F07F000000000000F83F000000000000F03F000000000000F8FF"> : tensor<2xcomplex<f64>>
// CHECK-NEXT: ivy.exp
// CHECK-NEXT: ivy.astype %{{.*}} {dtype = complex<f64>} : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f64>>
// CHECK-NEXT: ivy.sum %{{.*}} : (tensor<complex<f64>>) -> tensor<complex<f64>>
