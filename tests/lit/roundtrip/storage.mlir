// The low-precision storage dtypes (float8, float4, int4, int2) in IR text: function
// types and `astype` into and out of each print as MLIR spells them and parse back
// unchanged, in the custom and the generic form.
// RUN: IVY_ROUNDTRIP
// RUN: ivy-opt %s | ivy-opt | filecheck %s

func.func @storage(%x: tensor<3xf32>, %q: tensor<3xi4>, %u: tensor<3xui2>) -> (tensor<3xf8E4M3FN>, tensor<3xf8E4M3FNUZ>, tensor<3xf8E5M2>, tensor<3xf8E5M2FNUZ>, tensor<3xf8E8M0FNU>, tensor<3xf4E2M1FN>, tensor<3xf32>, tensor<3xi8>) {
  %a = ivy.astype %x {dtype = f8E4M3FN} : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
  %b = ivy.astype %x {dtype = f8E4M3FNUZ} : (tensor<3xf32>) -> tensor<3xf8E4M3FNUZ>
  %c = ivy.astype %x {dtype = f8E5M2} : (tensor<3xf32>) -> tensor<3xf8E5M2>
  %d = ivy.astype %x {dtype = f8E5M2FNUZ} : (tensor<3xf32>) -> tensor<3xf8E5M2FNUZ>
  %e = ivy.astype %x {dtype = f8E8M0FNU} : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
  %f = ivy.astype %x {dtype = f4E2M1FN} : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
  %g = ivy.astype %q {dtype = f32} : (tensor<3xi4>) -> tensor<3xf32>
  %h = ivy.astype %u {dtype = i8} : (tensor<3xui2>) -> tensor<3xi8>
  func.return %a, %b, %c, %d, %e, %f, %g, %h : tensor<3xf8E4M3FN>, tensor<3xf8E4M3FNUZ>, tensor<3xf8E5M2>, tensor<3xf8E5M2FNUZ>, tensor<3xf8E8M0FNU>, tensor<3xf4E2M1FN>, tensor<3xf32>, tensor<3xi8>
}
// CHECK-LABEL: func.func @storage(%x: tensor<3xf32>, %q: tensor<3xi4>, %u: tensor<3xui2>)
// CHECK-NEXT: %a = ivy.astype %x {dtype = f8E4M3FN} : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
// CHECK-NEXT: %b = ivy.astype %x {dtype = f8E4M3FNUZ} : (tensor<3xf32>) -> tensor<3xf8E4M3FNUZ>
// CHECK-NEXT: %c = ivy.astype %x {dtype = f8E5M2} : (tensor<3xf32>) -> tensor<3xf8E5M2>
// CHECK-NEXT: %d = ivy.astype %x {dtype = f8E5M2FNUZ} : (tensor<3xf32>) -> tensor<3xf8E5M2FNUZ>
// CHECK-NEXT: %e = ivy.astype %x {dtype = f8E8M0FNU} : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
// CHECK-NEXT: %f = ivy.astype %x {dtype = f4E2M1FN} : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
// CHECK-NEXT: %g = ivy.astype %q {dtype = f32} : (tensor<3xi4>) -> tensor<3xf32>
// CHECK-NEXT: %h = ivy.astype %u {dtype = i8} : (tensor<3xui2>) -> tensor<3xi8>
