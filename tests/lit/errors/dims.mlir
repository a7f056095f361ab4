// The verifier follows each dynamic dim through the ops (`dim_flow`) and refuses an op
// that needs two different dims equal, or a dim equal to a fixed size: the program
// would only run at the sizes where they happen to agree. One case per chunk.
// RUN: ivy-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @broadcast(%x: tensor<?x16xf32> {ivy.dims = ["batch", ""]}, %y: tensor<?x16xf32> {ivy.dims = ["seq", ""]}) -> tensor<?x16xf32> {
  %r = ivy.add %x, %y : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
// CHECK: ivy.add: broadcasting needs batch == seq, which the dynamic dims batch, seq do not promise

// -----

func.func @contraction(%x: tensor<2x?xf32> {ivy.dims = ["", "seq"]}, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %r = ivy.matmul %x, %w : (tensor<2x?xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
// CHECK: ivy.matmul: matmul's contraction needs seq == 8

// -----

func.func @concat_sums(%x: tensor<?x16xf32> {ivy.dims = ["batch", ""]}) -> tensor<?x16xf32> {
  %c = ivy.concat %x, %x {axis = 0} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  %r = ivy.add %c, %x : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
// CHECK: ivy.add: broadcasting needs 2 * batch == batch

// -----

func.func @reshape_count(%x: tensor<?x?xf32> {ivy.dims = ["batch", "seq"]}) -> tensor<?x2xf32> {
  %r = ivy.reshape %x {shape = ["batch * seq // 3", 2]} : (tensor<?x?xf32>) -> tensor<?x2xf32>
  %s = ivy.reshape %x {shape = ["seq", "batch * 2"]} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x2xf32>
}
// the floor division of the first reshape cannot be compared; the second is wrong
// CHECK: :33:8: ivy.reshape: reshape (the element count) needs batch * seq == 2 * batch * seq
