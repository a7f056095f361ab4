// inf and NaN print as hex bit patterns; they must parse back as the same floats
// (xDSL 0.74's own dense parser reads the hex as an integer value, so the generic
// form `<{value = dense<0xff800000>}>` still misparses: a known xDSL limitation).
// RUN: ivy-opt %s | ivy-opt | filecheck %s

builtin.module {
  func.func @special() -> (tensor<f32>, tensor<3xf64>, tensor<2x2xf16>) {
    %0 = ivy.constant {value = dense<0xff800000> : tensor<f32>} : () -> tensor<f32>
    %1 = ivy.constant {value = dense<[1.500000e+00, 0x7ff8000000000000, 0x7ff0000000000000]> : tensor<3xf64>} : () -> tensor<3xf64>
    %2 = ivy.constant {value = dense<[[0x7c00, -2.000000e+00], [0xfc00, 0.000000e+00]]> : tensor<2x2xf16>} : () -> tensor<2x2xf16>
    func.return %0, %1, %2 : tensor<f32>, tensor<3xf64>, tensor<2x2xf16>
  }
}
// CHECK-LABEL: func.func @special
// CHECK-NEXT: dense<0xff800000> : tensor<f32>
// CHECK-NEXT: dense<[1.500000e+00, 0x7ff8000000000000, 0x7ff0000000000000]> : tensor<3xf64>
// CHECK-NEXT: dense<{{\[\[}}0x7c00, -2.000000e+00], [0xfc00, 0.000000e+00]]> : tensor<2x2xf16>

// Types whose text holds "0x" (size-0 dims, 10x2) and no hex literal parse as before.
builtin.module {
  func.func @hexlike_types() -> (tensor<0x4xf32>, tensor<10x2xf32>) {
    %0 = ivy.constant {value = dense<> : tensor<0x4xf32>} : () -> tensor<0x4xf32>
    %1 = ivy.constant {value = dense<1.000000e+00> : tensor<10x2xf32>} : () -> tensor<10x2xf32>
    func.return %0, %1 : tensor<0x4xf32>, tensor<10x2xf32>
  }
}
// CHECK-LABEL: func.func @hexlike_types
// CHECK-NEXT: dense<> : tensor<0x4xf32>
// CHECK-NEXT: dense<1.000000e+00> : tensor<10x2xf32>
