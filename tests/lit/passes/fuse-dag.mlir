// A DAG (two branches of one input joining, then a comparison that changes the
// dtype) is one group: the input is bound once, only the final value is a result.
// RUN: ivy-opt %s -p fuse-elementwise | filecheck %s

func.func @diamond(%x: tensor<3xf32>) -> tensor<3xi1> {
  %e = ivy.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %s = ivy.sin %x : (tensor<3xf32>) -> tensor<3xf32>
  %a = ivy.add %e, %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %g = ivy.greater %a, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  func.return %g : tensor<3xi1>
}

// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    %g = ivy.fused (%[[X:.*]] = %x) : (tensor<3xf32>) -> tensor<3xi1> {
// CHECK-NEXT:      %e = ivy.exp %[[X]]
// CHECK-NEXT:      %s = ivy.sin %[[X]]
// CHECK-NEXT:      %a = ivy.add %e, %s
// CHECK-NEXT:      %[[G:.*]] = ivy.greater %a, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT:      ivy.yield %[[G]] : tensor<3xi1>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %g : tensor<3xi1>
