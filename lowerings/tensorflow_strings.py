"""The text ops on TensorFlow: `tf.string` tensors and the `tf.strings` ops.

TF holds text as UTF-8 bytes: a NumPy object array of `str` goes in through
`tf.convert_to_tensor` (which encodes it), and `lowerings.runtime.host_array` decodes
results back into `str`, so callers see what the NumPy target gives. Case changes use
`encoding="utf-8"` so non-ASCII letters change too; `regex_full_match` runs RE2 (the
syntax ONNX specifies), which agrees with Python's `re` on the common subset.
"""

from __future__ import annotations

import tensorflow as tf

from ivy_ir.core.rules import Rule


def string_normalize(x: tf.Tensor, case: str, case_sensitive: bool,
                     stopwords: tuple[str, ...]) -> tf.Tensor:
    """The reference's rule (`reference_strings.string_normalize`) on a [C] or [1, C]
    tensor: stopwords dropped by a mask, case changed, one "" when nothing is left."""
    words = tf.reshape(x, [-1])
    if stopwords:
        fold = (lambda t: t) if case_sensitive else (lambda t: tf.strings.lower(t, "utf-8"))
        stops = tf.constant([w if case_sensitive else w.lower() for w in stopwords])
        hit = tf.reduce_any(tf.equal(tf.expand_dims(fold(words), -1), stops), axis=-1)
        words = tf.boolean_mask(words, tf.logical_not(hit))
    if case == "lower":
        words = tf.strings.lower(words, "utf-8")
    elif case == "upper":
        words = tf.strings.upper(words, "utf-8")
    kept = tf.concat([words, [""]], 0)[:tf.maximum(tf.size(words), 1)]
    return tf.reshape(kept, [1, -1]) if x.shape.rank == 2 else kept


def string_split(x: tf.Tensor, delimiter: str | None, maxsplit: int | None) -> list[tf.Tensor]:
    """`tf.strings.split` of the flat strings (ragged), padded with "" into a dense
    tensor of x's shape plus the longest count, and the counts."""
    flat = tf.reshape(x, [-1])
    ragged = tf.strings.split(flat, sep=delimiter, maxsplit=-1 if maxsplit is None else maxsplit)
    if delimiter is None:  # TF keeps an empty part after trailing whitespace; Python none
        ragged = tf.ragged.boolean_mask(ragged, tf.not_equal(ragged, ""))
    padded = ragged.to_tensor(default_value="")
    width = tf.shape(padded, out_type=tf.int64)[1:]
    shape = tf.shape(x, out_type=tf.int64)
    return [tf.reshape(padded, tf.concat([shape, width], 0)),
            tf.reshape(ragged.row_lengths(), shape)]


def string_lookup(x: tf.Tensor, keys: tuple[str, ...]) -> tf.Tensor:
    """The first position of each string among `keys` (`len(keys)` where absent)."""
    if not keys:
        return tf.zeros(tf.shape(x), tf.int64)
    hit = tf.equal(tf.expand_dims(x, -1), tf.constant(keys))
    first = tf.argmax(tf.cast(hit, tf.int32), axis=-1, output_type=tf.int64)
    return tf.where(tf.reduce_any(hit, axis=-1), first, tf.constant(len(keys), tf.int64))


STRING_RULES: dict[str, Rule] = {
    "string_equal": "tf.equal({x}, {y})",
    "string_concat": "tf.add({x}, {y})",
    "string_normalize": "string_normalize({x}, {case}, {case_sensitive}, {stopwords})",
    "string_split": "string_split({x}, {delimiter}, {maxsplit})",
    "regex_full_match": "tf.strings.regex_full_match({x}, {pattern})",
    "string_lookup": "string_lookup({x}, {keys})",
}
"""The TensorFlow rules of the text ops (merged into `tensorflow.TF_RULES`)."""

__all__ = ["string_lookup", "string_normalize", "string_split"]
