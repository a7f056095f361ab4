"""RE2 patterns on Python's `re` (`ivy_ir/dialect/re2_patterns.py`), differentially
against RE2 itself: TensorFlow's `tf.strings.regex_full_match` runs RE2, so each
rewritten pattern must give its answers on every string, and each pattern RE2 refuses
must be refused (at compile time, on every target)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.re2_patterns import RE2Error, python_pattern
from lowerings.runtime import host_array

tf = pytest.importorskip("tensorflow")

STRINGS = ["", "a", "A", "aa", "aaa", "ab", "aB", "AB", "xA", "B", "b", "\u00e9", "\u00c9",
           "1", "\u0663", " ", "\v", "\n", "a\n", "\u00a0", "_", "-", "]", "&", "a.b",
           "axb", "a{,3}", "abc_1", "x y", "\x00", "\x07", "\U0001f600", "\u03b1", "k", "K",
           "\u212a", "\u00df", "\u1e9e", "foo bar", "a1", "1a", "\t", "^", "$", "\\"]

AGREE = [
    # RE2's Perl and POSIX classes are ASCII; inside brackets too, negated ones included
    r"\w+", r"\d", r"\s", r"\W", r"[\w.]+", r"[\W]", r"[^\W]", r"[^\W\d]", r"[\W\d]",
    r"[^\D]", r"[a\S]", r"[^a\S]", r"[[:alpha:]]+", r"[[:^alpha:]]", r"[[:space:]]",
    r"[\s]", r"\v", r"[[:word:]]", r"[[:punct:]]", r"[[:cntrl:]]", r"[[:print:]]+",
    r"[[:xdigit:]]+", r"[[:blank:]]", r"(?i)[[:upper:]]", r"(?i)\W", r"(?i)[^a]",
    # ASCII word boundaries, which RE2 also finds in an empty string
    r"\b", r"a\b", r"\ba\b", r"\B", r"\Ba", r"a\B.", r".\b.",
    # `$` is the end of the text; `{,3}` is literal; repeated assertions
    r"a{,3}", r"a$", "a$\n", r"a\z", r"(?m)a$\nb", r"(?m)a$", r"\A", r"^*a", r"$?",
    # flags mid-pattern, scoped to the rest of their group and its later alternatives
    r"a(?i)b", r"x(?i)a|b", r"a|(?i)b", r"(a|b)(?i)c|d", r"(?i)(a)(?-i)b", r"(a(?i)b)c",
    r"(?i:a)B", r"(?-i:a)", r"(?i-s)a", r"(?s).", r".", r"(?sm)", r"(?U)a+",
    r"(?U)(a+)(a*)", r"(?U)a+?", r"(?)a", r"a(?i)*", r"(ab)?(?i)*", r"b|a{2}(?U)?",
    # Unicode categories, quoting, escapes, names that repeat
    r"\pL+", r"\PL", r"[\pL]", r"[^\PL]", r"\pN", r"\p{Lu}", r"\p{^Lu}", r"\pZ",
    r"\p{Any}", r"\Qa.b\E", r"\Qa.b", r"\Q\E", r"\x{e9}", r"\x41", r"\0", r"\141", r"\01",
    r"\08", r"\x{1F600}", r"[\x{0}-\x{7f}]+", r"[^\x00-\x7f]", r"(?P<n>a)",
    r"(?P<n>a)(?P<n>b)?", r"\a", r"\\", r"[\\]", r"[\]]", r"a\.b", r"\^", r"\$",
    # brackets RE2 reads as `re` does not: `&&`, a dash after a class, `]` first
    r"[a&&b]", r"[\d-z]", r"[[:alpha:]-z]", r"[a-]", r"[-a]", r"[]a]", r"[^]a]",
    r"[\^a]", r"[a^]", r"(?i)k", "(?i)\u00df", r"(?i)\x{212a}", r"[^\W\d]+",
    r"a{2}", r"a{2,}", r"a{1,3}", r"a{1,2}?", r"a??", r"a|", r"()", r"(?:)",
]

REFUSED = [r"a\Z", r"(?<n>a)", r"\8", r"a(?=b)b", r"a(?!b)", r"(?<=a)b", r"a*+",
           r"(?#c)a", r"a{2}{3}", r"x{2,1}", r"\e", r"a**", r"[a-\d]", r"\d{1001}",
           r"\u0041", r"\N{LATIN SMALL LETTER A}", r"[\b]", r"\1", r"(a)\1", r"\7",
           r"\18", r"\x{110000}", r"[\Q]\E]", r"(?x) a", r"(?P=n)", r"[[:foo:]]", r"[z-a]",
           r"(", r")", r"[a", r"(?i-)a", r"*a"]


def _re2(pattern: str, strings: list[str]) -> list[bool] | None:
    """RE2's answers, or None where RE2 refuses the pattern."""
    try:
        return tf.strings.regex_full_match(tf.constant(strings), pattern).numpy().tolist()
    except (tf.errors.InvalidArgumentError, ValueError):
        return None


def _ours(pattern: str, strings: list[str]) -> list[bool]:
    compiled = re.compile(python_pattern(pattern))
    return [compiled.fullmatch(s) is not None for s in strings]


@pytest.mark.parametrize("pattern", AGREE)
def test_rewritten_pattern_matches_as_re2(pattern: str) -> None:
    assert _ours(pattern, STRINGS) == _re2(pattern, STRINGS)


@pytest.mark.parametrize("pattern", REFUSED)
def test_patterns_re2_refuses_are_refused(pattern: str) -> None:
    assert _re2(pattern, STRINGS) is None
    with pytest.raises(RE2Error, match=re.escape(repr(pattern))):
        python_pattern(pattern)


@pytest.mark.parametrize("pattern, reason", [
    (r"\p{Greek}", "not scripts"), (r"\C", "one byte")])
def test_what_re_cannot_follow_is_refused_by_name(pattern: str, reason: str) -> None:
    """RE2 takes these, `re` cannot match them so: a clear refusal, never an answer."""
    with pytest.raises(RE2Error, match=reason):
        python_pattern(pattern)


_ATOMS = ["a", "b", "A", "\u00e9", "1", " ", ".", r"\w", r"\W", r"\d", r"\D", r"\s", r"\S",
          r"\b", r"\B", "^", "$", r"\z", r"\A", "[ab]", "[^a]", r"[\W]", r"[^\W]",
          r"[\d\s]", r"[^\d\s]", "[[:alpha:]]", "[[:^digit:]]", r"\pL", r"\PN", r"[\pLx]",
          r"[^\pL1]", r"\x{e9}", r"\Q.\E", "\n", r"\n", "-", "{", "}", "]", r"\.", "_",
          "[a-c]", "[^a-c]", "(?=a)", r"\1", "*", "a{3,1}", "(?<n>a)", r"\Z", "[z-a]",
          "(?x)", ")", "(", "[", "(?P<n>a)", r"\0", r"[\b]", "[[:nope:]]"]
_REPEATS = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{,2}", "*?", "+?", "??", "{0,}"]
_FLAGS = ["(?i)", "(?m)", "(?s)", "(?U)", "(?-i)", "(?i:", "(?U:", "(?ims:"]
_ALPHABET = ["a", "b", "A", "\u00e9", "\u00c9", "1", " ", "\n", "_", ".", "-", "{", "}",
             "]", "x", "2", "\t"]


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        pick = rng.random()
        if pick < 0.15 and depth < 2:
            parts.append(f"({_random_pattern(rng, depth + 1)}){rng.choice(_REPEATS)}")
        elif pick < 0.25 and depth < 2:
            flags = rng.choice(_FLAGS)
            parts.append(flags + _random_pattern(rng, depth + 1) + ")" * flags.endswith(":"))
        elif pick < 0.32:
            parts.append("|")
        else:
            parts.append(rng.choice(_ATOMS) + rng.choice(_REPEATS))
    return "".join(parts)


def test_random_patterns_match_or_fail_as_re2() -> None:
    """Seeded random patterns over the constructs above: each is refused by both or
    answers as RE2 on random strings."""
    rng = random.Random(20261129)
    compared = refused = 0
    for _ in range(400):
        pattern = _random_pattern(rng)
        strings = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 4)))
                   for _ in range(20)]
        want = _re2(pattern, strings)
        if want is None:
            with pytest.raises(RE2Error):
                python_pattern(pattern)
            refused += 1
        else:
            assert _ours(pattern, strings) == want, pattern
            compared += 1
    assert compared > 100 and refused > 100


@pytest.mark.parametrize("target", ["numpy", "jax", "tensorflow"])
def test_targets_answer_as_re2(target: str) -> None:
    x = np.array(STRINGS, dtype=object)
    for pattern in (r"[\W]+", r"a\b.*", r"[^\W\d]+", r"a$", r"(?i)A(?-i)b|c", r"\pL"):
        c = ivy_ir.compile(lambda t, p=pattern: ivy.regex_full_match(t, p), target=target,
                           args=(x,))
        got = host_array(c(x)).tolist()
        assert got == _re2(pattern, STRINGS), (target, pattern)


@pytest.mark.parametrize("target", ["numpy", "tensorflow"])
def test_refused_pattern_fails_at_compile_time(target: str) -> None:
    x = np.array(["ab"], dtype=object)
    with pytest.raises(InferError, match=r"backreferences are not RE2 syntax.*test_re2_pat"):
        ivy_ir.compile(lambda t: ivy.regex_full_match(t, r"(a)\1"), target=target, args=(x,))
