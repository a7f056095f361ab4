// xDSL's built-in passes work on ivy IR: every ivy op is Pure, so cse merges
// duplicates and dce drops unused ones.
// RUN: ivy-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: ivy-opt %s -p dce | filecheck %s --check-prefix=DCE
// RUN: ivy-opt %s -p canonicalize,cse,dce | filecheck %s --check-prefix=ALL

func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %e1 = ivy.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e2 = ivy.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = ivy.add %e1, %e2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead = ivy.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead2 = ivy.sum %dead {axis = [1]} : (tensor<2x3xf32>) -> tensor<2xf32>
  %m = ivy.matmul %s, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %m : tensor<2x4xf32>
}

// CSE-LABEL: func.func @f
// CSE-NEXT:    %e1 = ivy.exp %x
// CSE-NEXT:    %s = ivy.add %e1, %e1
// CSE-NOT:     %e2
// CSE:         %m = ivy.matmul %s, %w

// DCE-LABEL: func.func @f
// DCE-NEXT:    %e1 = ivy.exp %x
// DCE-NEXT:    %e2 = ivy.exp %x
// DCE-NEXT:    %s = ivy.add %e1, %e2
// DCE-NEXT:    %m = ivy.matmul %s, %w
// DCE-NOT:     ivy.tanh

// ALL-LABEL: func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
// ALL-NEXT:    %e1 = ivy.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// ALL-NEXT:    %s = ivy.add %e1, %e1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// ALL-NEXT:    %m = ivy.matmul %s, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// ALL-NEXT:    func.return %m : tensor<2x4xf32>
// ALL-NEXT:  }
