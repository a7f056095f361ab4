// The verifier of ivy.fused: body ops must be elementwise, the body may only read its
// block arguments, yield types must match the results, operand and block argument
// types must agree. Each error names the fused op's location (and the body op's).
// RUN: ivy-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @matmul_inside(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = ivy.fused (%a = %x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
    %h = ivy.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc("m.py":3:4)
    ivy.yield %h : tensor<4x4xf32>
  } loc("m.py":4:1)
  func.return %y : tensor<4x4xf32>
}
// CHECK: Operation does not verify: m.py:4:1: ivy.fused: body op ivy.matmul at m.py:3:4 is not elementwise

// -----

func.func @reads_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ivy.fused (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %h = ivy.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    ivy.yield %h : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}
// CHECK: Operation using value defined out of its IsolatedFromAbove parent

// -----

func.func @bad_yield(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %y = ivy.fused (%a = %x) : (tensor<4x4xf32>) -> tensor<4xf32> {
    %h = ivy.exp %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
    ivy.yield %h : tensor<4x4xf32>
  }
  func.return %y : tensor<4xf32>
}
// CHECK: ivy.fused: yields (tensor<4x4xf32>) but its results are (tensor<4xf32>)

// -----

func.func @bad_arg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "ivy.fused"(%x) ({
  ^bb0(%a: tensor<4xf64>):
    %h = ivy.exp %a : (tensor<4xf64>) -> tensor<4xf64>
    ivy.yield %h : tensor<4xf64>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: ivy.fused: block argument types (tensor<4xf64>) do not match the operand types (tensor<4xf32>)

// -----

func.func @stray_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = ivy.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  ivy.yield %h : tensor<4xf32>
}
// CHECK: 'ivy.yield' expects parent op to be one of 'ivy.fused', 'ivy.cond', 'ivy.while_loop', 'ivy.scan'
