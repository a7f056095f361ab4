"""The text ops on TensorFlow: `tf.string` tensors and the `tf.strings` ops.

TF holds text as UTF-8 bytes: a NumPy object array of `str` goes in through
`tf.convert_to_tensor` (which encodes it), and `lowerings.runtime.host_array` decodes
results back into `str`, so callers see what the NumPy target gives. Case changes use
`encoding="utf-8"` so non-ASCII letters change too; `regex_full_match` runs RE2 (the
syntax ONNX specifies) as it is; the other targets run `re` on the pattern rewritten to
RE2's meaning (`ivy_ir/dialect/re2_patterns.py`).
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


def space_class() -> str:
    """An RE2 class of the characters Python's `str.split()` splits at (`str.isspace`:
    the ASCII ones, \\x1c-\\x1f, \\x85 and Unicode's spaces); TF's own whitespace split
    knows only the ASCII six."""
    points = [c for c in range(0x3001) if chr(c).isspace()]  # none lies above U+3000
    runs: list[list[int]] = []
    for c in points:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "[" + "".join(f"\\x{{{a:x}}}" + (f"-\\x{{{b:x}}}" if b > a else "")
                         for a, b in runs) + "]"


def string_split(x: tf.Tensor, delimiter: str | None, maxsplit: int | None) -> list[tf.Tensor]:
    """`tf.strings.split` of the flat strings (ragged), padded with "" into a dense
    tensor of x's shape plus the longest count, and the counts. With no delimiter,
    Python's rule: leading whitespace is skipped before splits are counted, every
    `str.isspace` character separates (mapped to " " for TF's ASCII-only split), and a
    rest left by `maxsplit` is the original text, read back by its length in characters."""
    flat = tf.reshape(x, [-1])
    limit = -1 if maxsplit is None or maxsplit < 0 else maxsplit
    if delimiter is None:
        space = space_class()
        flat = tf.strings.regex_replace(flat, f"^{space}+", "")
        ragged = tf.strings.split(tf.strings.regex_replace(flat, space, " "), maxsplit=limit)
        # TF keeps an empty part after trailing whitespace; Python none
        ragged = tf.ragged.boolean_mask(ragged, tf.not_equal(ragged, ""))
        if limit >= 0:
            ragged = original_rest(flat, ragged, limit)
    else:
        ragged = tf.strings.split(flat, sep=delimiter, maxsplit=limit)
    padded = ragged.to_tensor(default_value="")
    width = tf.shape(padded, out_type=tf.int64)[1:]
    shape = tf.shape(x, out_type=tf.int64)
    return [tf.reshape(padded, tf.concat([shape, width], 0)),
            tf.reshape(ragged.row_lengths(), shape)]


def original_rest(flat: tf.Tensor, ragged: tf.RaggedTensor, limit: int) -> tf.RaggedTensor:
    """The last part of each row split `limit` times is the rest of that string: taken
    from the unmapped text, the same number of characters from its end."""
    rows = tf.where(tf.equal(ragged.row_lengths(), limit + 1))[:, 0]
    at = tf.gather(ragged.row_limits(), rows) - 1
    size = tf.strings.length(tf.gather(ragged.values, at), unit="UTF8_CHAR")
    source = tf.gather(flat, rows)
    rest = tf.strings.substr(source, tf.strings.length(source, unit="UTF8_CHAR") - size, size,
                             unit="UTF8_CHAR")
    return ragged.with_values(tf.tensor_scatter_nd_update(ragged.values, at[:, None], rest))


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

__all__ = ["original_rest", "space_class", "string_lookup", "string_normalize", "string_split"]
