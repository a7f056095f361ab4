// Symbolic sizes: an input names its dynamic dims ({ivy.dims}), and shape attributes
// hold size expressions over those names. They survive printing, parsing, the generic
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
