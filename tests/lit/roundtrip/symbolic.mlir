// Symbolic sizes: an input names its dynamic dims ({ivy.dims}), and shape attributes
// and arange bounds hold size expressions over those names. They survive printing, parsing, the generic
// format and the default pipeline, which must neither fold a dynamic-size op to a
// constant nor drop the names.
// RUN: IVY_ROUNDTRIP
// RUN: ivy-opt %s | ivy-opt | filecheck %s
// RUN: ivy-opt %s --print-op-generic | ivy-opt | filecheck %s
// RUN: ivy-opt %s -p default | filecheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @heads
// CHECK-SAME: {ivy.dims = ["batch", "seq", ""]}
// CHECK: ivy.reshape %x {shape = ["batch", "seq", 2, 8]} : (tensor<?x?x16xf32>) -> tensor<?x?x2x8xf32>
// CHECK: ivy.zeros {shape = ["batch * seq // 2", 2], dtype = f32} : () -> tensor<?x2xf32>
// OPT-LABEL: func.func @heads
// OPT-SAME: {ivy.dims = ["batch", "seq", ""]}
// OPT: ivy.reshape %x {shape = ["batch", "seq", 2, 8]}
// OPT: ivy.zeros {shape = ["batch * seq // 2", 2]
func.func @heads(%x: tensor<?x?x16xf32> {ivy.dims = ["batch", "seq", ""]}) -> (tensor<?x?x2x8xf32>, tensor<?x2xf32>) {
  %h = ivy.reshape %x {shape = ["batch", "seq", 2, 8]} : (tensor<?x?x16xf32>) -> tensor<?x?x2x8xf32>
  %z = ivy.zeros {shape = ["(batch*seq)//2", 2], dtype = f32} : () -> tensor<?x2xf32>
  func.return %h, %z : tensor<?x?x2x8xf32>, tensor<?x2xf32>
}

// CHECK-LABEL: func.func @positions
// CHECK: ivy.arange {start = 0.0, stop = "seq"} : () -> tensor<?xi64>
// CHECK: ivy.arange {start = "seq - 1", stop = -1.0, step = -1.0, dtype = i32} : () -> tensor<?xi32>
// CHECK: ivy.arange {start = 2.0, stop = "batch * seq + 2", step = 1.0, dtype = f32} : () -> tensor<?xf32>
// OPT-LABEL: func.func @positions
// OPT: ivy.arange {start = 0.0, stop = "seq"} : () -> tensor<?xi64>
// OPT: ivy.arange {start = "seq - 1", stop = -1.0, step = -1.0, dtype = i32}
// OPT: ivy.arange {start = 2.0, stop = "batch * seq + 2", dtype = f32}
func.func @positions(%x: tensor<?x?xf32> {ivy.dims = ["batch", "seq"]}) -> (tensor<?xi64>, tensor<?xi32>, tensor<?xf32>) {
  %p = ivy.arange {start = 0.0, stop = "seq"} : () -> tensor<?xi64>
  %r = ivy.arange {start = "seq-1", stop = -1.0, step = -1.0, dtype = i32} : () -> tensor<?xi32>
  %f = ivy.arange {start = 2.0, stop = "batch*seq + 2", step = 1.0, dtype = f32} : () -> tensor<?xf32>
  func.return %p, %r, %f : tensor<?xi64>, tensor<?xi32>, tensor<?xf32>
}
