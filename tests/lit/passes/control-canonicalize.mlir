// canonicalize on control flow: branch folding, short scans, loop-invariant code
// motion, dead carries and results; the ordinary rules work inside bodies.
// RUN: ivy-opt %s -p canonicalize | filecheck %s

func.func @cond_on_constant(%x: tensor<3xf32>) -> tensor<3xf32> {
  %p = ivy.constant {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %s : tensor<3xf32>
  } orelse(%b: tensor<3xf32>) {
    %c = ivy.cos %b : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %c : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
// A constant predicate picks its branch: the branch's ops replace the cond.
// CHECK-LABEL: func.func @cond_on_constant
// CHECK-NEXT:    %s = ivy.sin %x
// CHECK-NEXT:    func.return %s

func.func @cond_dead_values(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<2xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r, %q, %e = ivy.cond %p, %x, %y : (tensor<i1>, tensor<3xf32>, tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) then(%a: tensor<3xf32>, %b: tensor<2xf32>) {
    %s = ivy.sin %a : (tensor<3xf32>) -> tensor<3xf32>
    %t = ivy.exp %b : (tensor<2xf32>) -> tensor<2xf32>
    ivy.yield %s, %t, %a : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
  } orelse(%a2: tensor<3xf32>, %b2: tensor<2xf32>) {
    ivy.yield %a2, %b2, %a2 : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
  }
  func.return %r, %e : tensor<3xf32>, tensor<3xf32>
}
// An unused result leaves both yields, an input no branch reads any more leaves the
// cond, and a result both branches yield as the same input is that input.
// CHECK-LABEL: func.func @cond_dead_values
// CHECK-NEXT:    %r = ivy.cond %p, %x : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> then(%a: tensor<3xf32>) {
// CHECK-NEXT:      %s = ivy.sin %a
// CHECK-NEXT:      ivy.yield %s : tensor<3xf32>
// CHECK-NEXT:    } orelse(%a2: tensor<3xf32>) {
// CHECK-NEXT:      ivy.yield %a2 : tensor<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %x

func.func @while_invariants(%x: tensor<3xf32>, %w: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %z = ivy.constant {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %d0 = ivy.constant {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %r, %ww, %k, %nn, %d = ivy.while_loop %x, %w, %z, %n, %d0 : (tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<f32>) cond(%a: tensor<3xf32>, %v: tensor<3xf32>, %i: tensor<i32>, %m: tensor<i32>, %e: tensor<f32>) {
    %two = ivy.constant {value = dense<2> : tensor<i32>} : () -> tensor<i32>
    %m2 = ivy.multiply %m, %two : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %c = ivy.less %i, %m2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    ivy.yield %c : tensor<i1>
  } body(%b: tensor<3xf32>, %u: tensor<3xf32>, %j: tensor<i32>, %mm: tensor<i32>, %f: tensor<f32>) {
    %one = ivy.constant {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %j2 = ivy.add %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %half = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %s = ivy.sin %u : (tensor<3xf32>) -> tensor<3xf32>
    %sh = ivy.multiply %s, %half : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %b2 = ivy.add %b, %sh : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %f2 = ivy.multiply %f, %f : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ivy.yield %b2, %u, %j2, %mm, %f2 : tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<f32>
  }
  func.return %r, %ww : tensor<3xf32>, tensor<3xf32>
}
// Loop-invariant code motion: what the condition and the body compute from
// pass-through carries (%n, %w) and constants runs once before the loop, carried in
// as new pass-through values; carries nothing needs (%f, then %w and %n once their
// users moved out) are dropped, and the pass-through result %ww is %w.
// CHECK-LABEL: func.func @while_invariants
// CHECK:         %m2 = ivy.multiply %n, %two
// CHECK:         %s = ivy.sin %w
// CHECK-NEXT:    %sh = ivy.multiply %s, %half
// CHECK-NEXT:    %r, %k, %{{.*}}, %{{.*}} = ivy.while_loop %x, %z, %m2, %sh : (tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<3xf32>)
// CHECK-SAME:    cond(%a: tensor<3xf32>, %i: tensor<i32>, %[[M:.*]]: tensor<i32>, %{{.*}}: tensor<3xf32>) {
// CHECK-NEXT:      %c = ivy.less %i, %[[M]]
// CHECK:         } body(%b: tensor<3xf32>, %j: tensor<i32>, %[[M2:.*]]: tensor<i32>, %[[SH:.*]]: tensor<3xf32>) {
// CHECK-NOT:       ivy.sin
// CHECK:           %b2 = ivy.add %b, %[[SH]]
// CHECK-NEXT:      ivy.yield %b2, %j2, %[[M2]], %[[SH]]
// CHECK:         func.return %r, %w

func.func @scan_of_one(%h0: tensor<3xf32>, %xs: tensor<1x3xf32>) -> (tensor<3xf32>, tensor<1x3xf32>) {
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 1} : (tensor<3xf32>, tensor<1x3xf32>) -> (tensor<3xf32>, tensor<1x3xf32>) body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %u = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %u, %s : tensor<3xf32>, tensor<3xf32>
  }
  func.return %h, %ys : tensor<3xf32>, tensor<1x3xf32>
}
// A scan of length 1 is its body once, on the one slice; each y gets its axis back.
// CHECK-LABEL: func.func @scan_of_one
// CHECK-NEXT:    %[[X:.*]] = ivy.squeeze %xs {axis = [0]} : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %s = ivy.add %h0, %[[X]]
// CHECK-NEXT:    %u = ivy.tanh %s
// CHECK-NEXT:    %ys = ivy.expand_dims %s {axis = [0]} : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    func.return %u, %ys

func.func @scan_of_none(%h0: tensor<3xf32>, %xs: tensor<0x3xf32>) -> (tensor<3xf32>, tensor<0x3xi32>) {
  %h, %ys = ivy.scan %h0, %xs {num_carry = 1, length = 0} : (tensor<3xf32>, tensor<0x3xf32>) -> (tensor<3xf32>, tensor<0x3xi32>) body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %i = ivy.astype %s {dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
    ivy.yield %s, %i : tensor<3xf32>, tensor<3xi32>
  }
  func.return %h, %ys : tensor<3xf32>, tensor<0x3xi32>
}
// A scan of length 0 runs no step: the carry comes back, each y is empty.
// CHECK-LABEL: func.func @scan_of_none
// CHECK-NEXT:    %ys = ivy.zeros {shape = [0, 3], dtype = i32}
// CHECK-NEXT:    func.return %h0, %ys

func.func @scan_dead_values(%h0: tensor<3xf32>, %g0: tensor<f32>, %xs: tensor<4x3xf32>, %zs: tensor<4xf32>) -> tensor<3xf32> {
  %h, %g, %ys, %y2 = ivy.scan %h0, %g0, %xs, %zs {num_carry = 2, length = 4, reverse = true} : (tensor<3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4xf32>) body(%c: tensor<3xf32>, %d: tensor<f32>, %t: tensor<3xf32>, %z: tensor<f32>) {
    %s = ivy.add %c, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %d2 = ivy.add %d, %z : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %u = ivy.tanh %s : (tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %u, %d2, %s, %d2 : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>
  }
  func.return %h : tensor<3xf32>
}
// Unused ys, a carry only its own update reads, and the xs only they read go.
// CHECK-LABEL: func.func @scan_dead_values
// CHECK-NEXT:    %h = ivy.scan %h0, %xs {num_carry = 1, length = 4, reverse = true} : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> body(%c: tensor<3xf32>, %t: tensor<3xf32>) {
// CHECK-NEXT:      %s = ivy.add %c, %t
// CHECK-NEXT:      %u = ivy.tanh %s
// CHECK-NEXT:      ivy.yield %u : tensor<3xf32>

func.func @fold_in_body(%h0: tensor<2xf32>, %xs: tensor<3x2xf32>) -> tensor<2xf32> {
  %h = ivy.scan %h0, %xs {num_carry = 1, length = 3} : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<2xf32> body(%c: tensor<2xf32>, %t: tensor<2xf32>) {
    %two = ivy.constant {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %three = ivy.constant {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
    %six = ivy.multiply %two, %three : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = ivy.constant {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %t1 = ivy.multiply %t, %one : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %s = ivy.add %c, %t1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %y = ivy.multiply %s, %six : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    ivy.yield %y : tensor<2xf32>
  }
  func.return %h : tensor<2xf32>
}
// Inside a body every other rule works as anywhere: constants fold, x * 1 goes.
// CHECK-LABEL: func.func @fold_in_body
// CHECK-NEXT:    %h = ivy.scan
// CHECK-NEXT:      %six = ivy.constant {value = dense<6.000000e+00> : tensor<f32>}
// CHECK-NEXT:      %s = ivy.add %c, %t
// CHECK-NEXT:      %y = ivy.multiply %s, %six

func.func @loop_on_constants() -> tensor<f32> {
  %x = ivy.constant {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %r = ivy.while_loop %x : (tensor<f32>) -> tensor<f32> cond(%a: tensor<f32>) {
    %lim = ivy.constant {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %c = ivy.less %a, %lim : (tensor<f32>, tensor<f32>) -> tensor<i1>
    ivy.yield %c : tensor<i1>
  } body(%b: tensor<f32>) {
    %b2 = ivy.add %b, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    ivy.yield %b2 : tensor<f32>
  }
  func.return %r : tensor<f32>
}
// Constant folding never evaluates a region op, even on constant operands.
// CHECK-LABEL: func.func @loop_on_constants
// CHECK-NEXT:    %x = ivy.constant
// CHECK-NEXT:    %r = ivy.while_loop %x
func.func @only_echoes(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %r, %v = ivy.scan %x, %w {num_carry = 2, length = 3} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) body(%b: tensor<3xf32>, %u: tensor<3xf32>) {
    %n = ivy.add %b, %u : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ivy.yield %n, %u : tensor<3xf32>, tensor<3xf32>
  }
  func.return %v : tensor<3xf32>
}
// A loop used only for a pass-through carry is that carry's operand.
// CHECK-LABEL: func.func @only_echoes
// CHECK-NEXT:    func.return %w
