// Ops that hand their input back unchanged: strip-wrappers and canonicalize remove
// them alike (one shared rule table), and keep every op that changes a value or shape.
// RUN: ivy-opt %s -p strip-wrappers | filecheck %s
// RUN: ivy-opt %s -p canonicalize | filecheck %s

func.func @astype_same(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = ivy.astype %x {dtype = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @astype_same
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>

func.func @reshape_same(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = ivy.reshape %x {shape = [2, 3]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @reshape_same
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>

func.func @broadcast_same(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %y = ivy.broadcast_to %x {shape = [2, 3]} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %y : tensor<2x3xi32>
}
// CHECK-LABEL: func.func @broadcast_same
// CHECK-NEXT:    func.return %x : tensor<2x3xi32>

func.func @permute_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = ivy.permute_dims %x {axes = [0, -2, 2]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @permute_identity
// CHECK-NEXT:    func.return %x : tensor<2x3x4xf32>

func.func @slice_full(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %y = ivy.slice %x {start = [0, -9223372036854775808], stop = [5, 9223372036854775807], step = [1, 1]} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  func.return %y : tensor<2x?xf32>
}
// CHECK-LABEL: func.func @slice_full
// CHECK-NEXT:    func.return %x : tensor<2x?xf32>

func.func @slice_partial(%x: tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %a = ivy.slice %x {start = [0], stop = [4], step = [2]} : (tensor<4xf32>) -> tensor<2xf32>
  %b = ivy.slice %x {start = [9223372036854775807], stop = [-9223372036854775808], step = [-1]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b : tensor<2xf32>, tensor<4xf32>
}
// a strided slice and a reversal keep their slices
// CHECK-LABEL: func.func @slice_partial
// CHECK-NEXT:    %a = ivy.slice %x {start = [0], stop = [4], step = [2]}
// CHECK-NEXT:    %b = ivy.slice %x {start = [9223372036854775807], stop = [-9223372036854775808], step = [-1]}

func.func @tile_pad_roll_flip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = ivy.tile %x {reps = [1, 1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = ivy.pad %a {pad_width = [0, 0, 0, 0]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = ivy.roll %b {shift = [0]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = ivy.flip %c {axis = []} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @tile_pad_roll_flip
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>

func.func @concat_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = ivy.concat %x {axis = 1} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @concat_one
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>

func.func @permute_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %p = ivy.permute_dims %x {axes = [1, 2, 0]} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %q = ivy.permute_dims %p {axes = [2, 0, 1]} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  func.return %q : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @permute_inverse
// CHECK-NEXT:    func.return %x : tensor<2x3x4xf32>

func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = ivy.reshape %x {shape = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = ivy.expand_dims %a {axis = [0]} : (tensor<6xf32>) -> tensor<1x6xf32>
  %c = ivy.reshape %b {shape = [2, 3]} : (tensor<1x6xf32>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>

func.func @expand_squeeze(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %a = ivy.expand_dims %x {axis = [1]} : (tensor<?x3xf32>) -> tensor<?x1x3xf32>
  %b = ivy.squeeze %a {axis = [1]} : (tensor<?x1x3xf32>) -> tensor<?x3xf32>
  func.return %b : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @expand_squeeze
// CHECK-NEXT:    func.return %x : tensor<?x3xf32>

func.func @astype_widen_and_back(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %a = ivy.astype %x {dtype = f64} : (tensor<3xf32>) -> tensor<3xf64>
  %b = ivy.astype %a {dtype = f32} : (tensor<3xf64>) -> tensor<3xf32>
  %c = ivy.astype %i {dtype = i64} : (tensor<3xi32>) -> tensor<3xi64>
  %d = ivy.astype %c {dtype = i32} : (tensor<3xi64>) -> tensor<3xi32>
  func.return %b, %d : tensor<3xf32>, tensor<3xi32>
}
// CHECK-LABEL: func.func @astype_widen_and_back
// CHECK-NEXT:    func.return %x, %i : tensor<3xf32>, tensor<3xi32>

func.func @astype_lossy_round_trip(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %a = ivy.astype %x {dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
  %b = ivy.astype %a {dtype = f32} : (tensor<3xi32>) -> tensor<3xf32>
  %c = ivy.astype %i {dtype = f32} : (tensor<3xi32>) -> tensor<3xf32>
  %d = ivy.astype %c {dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
  func.return %b, %d : tensor<3xf32>, tensor<3xi32>
}
// f32 -> i32 truncates and i32 -> f32 rounds above 2**24: both round trips stay
// CHECK-LABEL: func.func @astype_lossy_round_trip
// CHECK-NEXT:    %a = ivy.astype %x {dtype = i32}
// CHECK-NEXT:    %b = ivy.astype %a {dtype = f32}
// CHECK-NEXT:    %c = ivy.astype %i {dtype = f32}
// CHECK-NEXT:    %d = ivy.astype %c {dtype = i32}

func.func @copies(%x: tensor<2x3xf32>, %i: tensor<3xi64>) -> (tensor<2x3xf32>, tensor<3xi64>, tensor<2x3xf32>) {
  %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %a = ivy.multiply %one, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = ivy.zeros {shape = [3], dtype = i64} : () -> tensor<3xi64>
  %b = ivy.add %i, %z : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %nz = ivy.constant {value = dense<-0.0> : tensor<1x3xf32>} : () -> tensor<1x3xf32>
  %c = ivy.add %x, %nz : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %a, %b, %c : tensor<2x3xf32>, tensor<3xi64>, tensor<2x3xf32>
}
// x * 1, i + 0 and x + (-0.0) are copies (the constants broadcast into x's shape)
// CHECK-LABEL: func.func @copies
// CHECK-NEXT:    func.return %x, %i, %x : tensor<2x3xf32>, tensor<3xi64>, tensor<2x3xf32>

func.func @not_copies(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>) {
  %z = ivy.constant {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %a = ivy.add %x, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %zb = ivy.zeros {shape = [4, 3]} : () -> tensor<4x3xf32>
  %b = ivy.add %x, %zb : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %nz = ivy.constant {value = dense<-0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %c = ivy.subtract %x, %nz : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b, %c : tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>
}
// x + 0.0 turns -0.0 into +0.0, x + zeros((4, 3)) changes the shape, x - (-0.0) is x + 0.0
// CHECK-LABEL: func.func @not_copies
// CHECK:         %a = ivy.add %x, %z
// CHECK:         %b = ivy.add %x, %zb
// CHECK:         %c = ivy.subtract %x, %nz

func.func @copies_like(%x: tensor<2x3xf32>, %i: tensor<3xi8>) -> (tensor<2x3xf32>, tensor<3xi8>) {
  %o = ivy.ones_like %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = ivy.multiply %x, %o : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = ivy.full_like %i {fill_value = 0.25} : (tensor<3xi8>) -> tensor<3xi8>
  %b = ivy.add %z, %i : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  func.return %a, %b : tensor<2x3xf32>, tensor<3xi8>
}
// ones_like(x) is 1 everywhere; full_like(i, 0.25) in int8 is 0 everywhere
// CHECK-LABEL: func.func @copies_like
// CHECK-NEXT:    func.return %x, %i : tensor<2x3xf32>, tensor<3xi8>
