// An attribute spelled out at its default value is dropped by canonicalize (builders
// never store defaults), so cse sees one op where the text had two spellings.
// RUN: ivy-opt %s -p canonicalize,cse | filecheck %s

func.func @concat_axis0(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x = ivy.concat %a, %b {axis = 0} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %y = ivy.concat %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return %x, %y : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @concat_axis0
// CHECK-NEXT:    %x = ivy.concat %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %x, %x

func.func @softmax_axis(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %x = ivy.softmax %a {axis = -1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = ivy.softmax %a {axis = 1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
}
// axis = 1 names the dimension the default -1 names here: axes are canonical
// (non-negative) in the IR, so the parser reads both spellings as one op and cse merges
// them
// CHECK-LABEL: func.func @softmax_axis
// CHECK-NEXT:    %x = ivy.softmax %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %x, %x
