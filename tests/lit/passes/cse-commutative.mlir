// canonicalize puts the operands of commutative ops in one order (values by position,
// constants last), so cse merges add(a, b) with add(b, a). Without canonicalize cse
// compares operands as written.
// RUN: ivy-opt %s -p canonicalize,cse | filecheck %s
// RUN: ivy-opt %s -p cse | filecheck %s --check-prefix=PLAIN

func.func @add_swapped(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %x = ivy.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = ivy.add %b, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %x, %y : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @add_swapped
// CHECK-NEXT:    %x = ivy.add %a, %b
// CHECK-NEXT:    func.return %x, %x
// PLAIN-LABEL: func.func @add_swapped
// PLAIN-NEXT:    %x = ivy.add %a, %b
// PLAIN-NEXT:    %y = ivy.add %b, %a

func.func @results_by_position(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %e = ivy.exp %a : (tensor<3xf32>) -> tensor<3xf32>
  %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
  %x = ivy.multiply %s, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = ivy.multiply %e, %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %z = ivy.multiply %e, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %x, %y : tensor<3xf32>, tensor<3xf32>
}
// op results in block order; block arguments before op results
// CHECK-LABEL: func.func @results_by_position
// CHECK-NEXT:    %e = ivy.exp %a
// CHECK-NEXT:    %s = ivy.sin %a
// CHECK-NEXT:    %x = ivy.multiply %e, %s
// CHECK-NEXT:    func.return %x, %x

func.func @constant_last(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi1>) {
  %c = ivy.constant {value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %x = ivy.add %c, %a : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %y = ivy.equal %c, %a : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  func.return %x, %y : tensor<3xi32>, tensor<3xi1>
}
// CHECK-LABEL: func.func @constant_last
// CHECK:         %x = ivy.add %a, %c
// CHECK-NEXT:    %y = ivy.equal %a, %c

func.func @float_max_keeps_order(%a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %x = ivy.maximum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = ivy.maximum %b, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %u = ivy.minimum %i, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %v = ivy.minimum %j, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  func.return %x, %y, %u, %v : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>
}
// maximum(-0.0, +0.0) and maximum(+0.0, -0.0) differ in sign: float ones keep their
// order (and are not merged); integer ones merge
// CHECK-LABEL: func.func @float_max_keeps_order
// CHECK-NEXT:    %x = ivy.maximum %a, %b
// CHECK-NEXT:    %y = ivy.maximum %b, %a
// CHECK-NEXT:    %u = ivy.minimum %i, %j
// CHECK-NEXT:    func.return %x, %y, %u, %u

func.func @subtract_not_commutative(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %x = ivy.subtract %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = ivy.subtract %b, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %x, %y : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @subtract_not_commutative
// CHECK-NEXT:    %x = ivy.subtract %a, %b
// CHECK-NEXT:    %y = ivy.subtract %b, %a
