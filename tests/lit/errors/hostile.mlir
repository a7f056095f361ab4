// Hostile input fails fast and at its token: an unterminated string (which made
// xDSL's lexer backtrack for hours), a splat declaring 400 MB (refused before it is
// allocated), brackets nested past the limit, a value its type cannot hold.
// RUN: ivy-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func @f() {
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
}
// CHECK: hostile.mlir:7:3
// CHECK: unterminated string literal (a string must end on its own line)

// -----

func.func @splat() -> tensor<100000000xf32> {
  %c = ivy.constant {value = dense<1.0> : tensor<100000000xf32>} : () -> tensor<100000000xf32>
  func.return %c : tensor<100000000xf32>
}
// CHECK: hostile.mlir:15:43
// CHECK: dense literal of 100000000 elements: the dense literals of one parse may hold 1048576 elements in all

// -----

func.func @deep() attributes {a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]} {
  func.return
}
// CHECK: hostile.mlir:23:98
// CHECK: brackets nested deeper than 64

// -----

func.func @range() -> tensor<2xf32> {
  %c = ivy.constant {value = dense<1.0e300> : tensor<2xf32>} : () -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
// CHECK: hostile.mlir:32:36
// CHECK: 1.0e300 is out of range for f32
