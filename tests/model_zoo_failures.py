"""The diagnosed causes of the zoo's failures, by model (or `model:target` where one
target fails for its own reason): `scripts/zoo.py` prints each after its failure in
`docs/zoo.md`. The fixes belong in the files named; the zoo only records them, and a
diagnosis whose model passes again is simply not printed."""

from __future__ import annotations

DIAGNOSES: dict[str, str] = {
    "keras_resizing_nearest": (
        "`Resizing(interpolation=\"nearest\")` emits ResizeNearestNeighbor with "
        "`half_pixel_centers=True`, which samples input pixel floor((j + 0.5) * in/out) "
        "(`importers/tensorflow_image.py`, `_tf_nearest`): PyTorch's 'nearest-exact'. "
        "`ivy.interpolate` has only 'nearest' (floor(j * in/out), PyTorch's legacy rule) "
        "and 'bilinear' (`ivy_ir/dialect/ops.spec`), so where the two rules pick other "
        "pixels (the non-integer 24x20 -> 9x7 here; integer upscales agree, as "
        "`UpSampling2D` nearest shows) `_resample` finds no candidate and reports the op "
        "(by design: never approximated). Fix: a 'nearest-exact' mode of "
        "`ivy.interpolate` (spec, `ivy_ir/core` resample taps, each lowering: torch "
        "`mode='nearest-exact'`, TF `half_pixel_centers=True`) and its row in "
        "`CANDIDATES`."),
    "keras_upsampling2d_bicubic": (
        "`UpSampling2D(interpolation=\"bicubic\")` emits ResizeBicubic, which has no rule "
        "in `importers/tensorflow_image.py` (`IMAGE` holds ResizeBilinear, "
        "ResizeNearestNeighbor, ScaleAndTranslate) and no `ivy.interpolate` mode to map "
        "to; a 'bicubic' mode with PyTorch's coefficient (a = -0.75) would not match TF's "
        "Keys kernel (a = -0.5) either. Fix: the module already computes TF's per-axis "
        "(out, in) weight matrices for its other resizes: a ResizeBicubic rule can emit "
        "those matrices as constants applied by two matmuls over H and W (exact for any "
        "size), or `ivy.interpolate` can gain a cubic mode with the coefficient as an "
        "attribute."),
}
