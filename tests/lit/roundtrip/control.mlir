// Control-flow ops (hand-written: scripts/gen_roundtrip_lit.py skips ops with regions).
// Each op's text form, regions included, survives custom -> generic -> custom and
// parse -> print -> parse -> print unchanged; the generic form holds the regions in the
// spec's order (then, orelse / cond, body / body).
// RUN: IVY_ROUNDTRIP
// RUN: ivy-opt %s | ivy-opt | filecheck %s
// RUN: ivy-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @cond(%p: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  %r, %m = ivy.cond %p, %x, %n : (tensor<i1>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) then(%a: tensor<3xf32>, %k: tensor<i64>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s, %k : tensor<3xf32>, tensor<i64>
  } orelse(%b: tensor<3xf32>, %l: tensor<i64>) {
    %l2 = ivy.negative %l : (tensor<i64>) -> tensor<i64>
    ivy.yield %b, %l2 : tensor<3xf32>, tensor<i64>
  }
  func.return %r, %m : tensor<3xf32>, tensor<i64>
}
func.func @while_loop(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %r, %k = ivy.while_loop %x, %n : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>) cond(%a: tensor<f32>, %i: tensor<i32>) {
    %z = ivy.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %c = ivy.greater %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    ivy.yield %c : tensor<i1>
  } body(%b: tensor<f32>, %j: tensor<i32>) {
    %one = ivy.constant {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %j2 = ivy.subtract %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %b2 = ivy.cos %b : (tensor<f32>) -> tensor<f32>
    ivy.yield %b2, %j2 : tensor<f32>, tensor<i32>
  }
  func.return %r, %k : tensor<f32>, tensor<i32>
}
func.func @scan(%h0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 5, reverse = true, unroll = 2} : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %u = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %u, %s : tensor<3xf32>, tensor<3xf32>
  }
  func.return %h, %ys : tensor<3xf32>, tensor<5x3xf32>
}
func.func @scan_without_operands() -> tensor<2x4xi32> {
  %ys = ivy.scan {num_carry = 0, length = 2} : () -> tensor<2x4xi32> body() {
    %z = ivy.zeros {shape = [4], dtype = i32} : () -> tensor<4xi32>
    ivy.yield %z : tensor<4xi32>
  }
  func.return %ys : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @cond(%p: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
// CHECK-NEXT: %r, %m = ivy.cond %p, %x, %n : (tensor<i1>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) then(%a: tensor<3xf32>, %k: tensor<i64>) {
// CHECK-NEXT: %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: ivy.yield %s, %k : tensor<3xf32>, tensor<i64>
// CHECK-NEXT: } orelse(%b: tensor<3xf32>, %l: tensor<i64>) {
// CHECK-NEXT: %l2 = ivy.negative %l : (tensor<i64>) -> tensor<i64>
// CHECK-NEXT: ivy.yield %b, %l2 : tensor<3xf32>, tensor<i64>
// CHECK-NEXT: }
// CHECK-NEXT: func.return %r, %m : tensor<3xf32>, tensor<i64>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @while_loop(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
// CHECK-NEXT: %r, %k = ivy.while_loop %x, %n : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>) cond(%a: tensor<f32>, %i: tensor<i32>) {
// CHECK-NEXT: %z = ivy.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
// CHECK-NEXT: %c = ivy.greater %i, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: ivy.yield %c : tensor<i1>
// CHECK-NEXT: } body(%b: tensor<f32>, %j: tensor<i32>) {
// CHECK-NEXT: %one = ivy.constant {value = dense<1> : tensor<i32>} : () -> tensor<i32>
// CHECK-NEXT: %j2 = ivy.subtract %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT: %b2 = ivy.cos %b : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: ivy.yield %b2, %j2 : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return %r, %k : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @scan(%h0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
// CHECK-NEXT: %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 5, reverse = true, unroll = 2} : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
// CHECK-NEXT: %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %u = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: ivy.yield %u, %s : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return %h, %ys : tensor<3xf32>, tensor<5x3xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @scan_without_operands() -> tensor<2x4xi32> {
// CHECK-NEXT: %ys = ivy.scan {num_carry = 0, length = 2} : () -> tensor<2x4xi32> body() {
// CHECK-NEXT: %z = ivy.zeros {shape = [4], dtype = i32} : () -> tensor<4xi32>
// CHECK-NEXT: ivy.yield %z : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return %ys : tensor<2x4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: ^bb0(%p: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i64>):
// GENERIC: %r, %m = "ivy.cond"(%p, %x, %n) ({
// GENERIC: ^bb0(%a: tensor<3xf32>, %k: tensor<i64>):
// GENERIC: "ivy.yield"(%s, %k) : (tensor<3xf32>, tensor<i64>) -> ()
// GENERIC: }, {
// GENERIC: ^bb0(%b: tensor<3xf32>, %l: tensor<i64>):
// GENERIC: "ivy.yield"(%b, %l2) : (tensor<3xf32>, tensor<i64>) -> ()
// GENERIC: ^bb0(%x: tensor<f32>, %n: tensor<i32>):
// GENERIC: %r, %k = "ivy.while_loop"(%x, %n) ({
// GENERIC: ^bb0(%a: tensor<f32>, %i: tensor<i32>):
// GENERIC: "ivy.yield"(%c) : (tensor<i1>) -> ()
// GENERIC: }, {
// GENERIC: ^bb0(%b: tensor<f32>, %j: tensor<i32>):
// GENERIC: "ivy.yield"(%b2, %j2) : (tensor<f32>, tensor<i32>) -> ()
// GENERIC: ^bb0(%h0: tensor<3xf32>, %xs: tensor<5x3xf32>):
// GENERIC: %h, %ys = "ivy.scan"(%h0, %xs) <{num_carry = 1 : i64, length = 5 : i64, reverse = true, unroll = 2 : i64}> ({
// GENERIC: ^bb0(%c: tensor<3xf32>, %t: tensor<3xf32>):
// GENERIC: "ivy.yield"(%u, %s) : (tensor<3xf32>, tensor<3xf32>) -> ()
// GENERIC: %ys = "ivy.scan"() <{num_carry = 0 : i64, length = 2 : i64}> ({
// GENERIC: "ivy.yield"(%z) : (tensor<4xi32>) -> ()
