// ivy.fused prints and parses back, in the custom and the generic form, with the
// source locations of the group and of each body op.
// RUN: IVY_ROUNDTRIP
// RUN: ivy-opt %s --print-debuginfo | ivy-opt --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: ivy-opt %s --print-op-generic | filecheck %s --check-prefix=GEN

func.func @f(%x: tensor<4xf32>, %c: tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %h, %y = ivy.fused (%a = %x, %b = %c) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>) {
    %m = ivy.multiply %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc("model.py":3:9)
    %t = ivy.isnan %m : (tensor<4xf32>) -> tensor<4xi1> loc("model.py":4:9)
    ivy.yield %m, %t : tensor<4xf32>, tensor<4xi1>
  } loc("model.py":4:9)
  func.return %h, %y : tensor<4xf32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @f(%x: tensor<4xf32>, %c: tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>) {
// CHECK-NEXT:    %h, %y = ivy.fused (%a = %x, %b = %c) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>) {
// CHECK-NEXT:      %m = ivy.multiply %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:      %t = ivy.isnan %m : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:      ivy.yield %m, %t : tensor<4xf32>, tensor<4xi1>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %h, %y : tensor<4xf32>, tensor<4xi1>

// LOC:         %m = ivy.multiply %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc("model.py":3:9)
// LOC-NEXT:    %t = ivy.isnan %m : (tensor<4xf32>) -> tensor<4xi1> loc("model.py":4:9)
// LOC:         } loc("model.py":4:9)

// GEN:         %h, %y = "ivy.fused"(%x, %c) ({
// GEN-NEXT:    ^bb0(%a: tensor<4xf32>, %b: tensor<f32>):
// GEN:           "ivy.yield"(%m, %t) : (tensor<4xf32>, tensor<4xi1>) -> ()
// GEN-NEXT:    }) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>)
