"""RE2 patterns rewritten for Python's `re`, so every target matches as RE2 does.

ONNX's RegexFullMatch (and the IR's `regex_full_match`) takes RE2 syntax; TensorFlow
and onnxruntime run RE2 itself, the other targets run `re`. The two engines read many
patterns differently: RE2's `\\w`, `\\d`, `\\s`, `\\b` and POSIX classes are ASCII,
its `$` is the end of the text (not before a final newline), `a{,3}` is literal text,
flags may start mid-pattern and scope to the enclosing group, `(?U)` swaps greedy and
lazy, `\\pL` names Unicode categories, `\\Q...\\E` quotes. `python_pattern` rewrites
each of these into an equivalent `re` spelling, and rejects with `RE2Error` what RE2
itself rejects (lookarounds, backreferences, possessive repeats, `\\u` escapes) or what
`re` cannot express (Unicode scripts such as `\\p{Greek}`, `\\C`), so a pattern that
would work on one target and fail on another fails on all of them at compile time.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

WORD = "0-9A-Za-z_"
PERL = {"d": "0-9", "s": "\\t\\n\\f\\r ", "w": WORD}
"""RE2's Perl classes, as `re` class bodies (ASCII only; `\\s` has no `\\v`)."""

POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
         "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
         "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
         "upper": "A-Z", "word": WORD, "xdigit": "0-9A-Fa-f"}
"""RE2's `[[:name:]]` classes (ASCII)."""

CONTROL = {"a": "\\a", "f": "\\f", "t": "\\t", "n": "\\n", "r": "\\r", "v": "\\v"}
MAX_REPEAT = 1000
_BOUNDARY = {"b": f"(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))",
             "B": f"(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))"}
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


class RE2Error(ValueError):
    """A pattern RE2 rejects, or one whose RE2 meaning `re` cannot express."""


@functools.cache
def unicode_class(name: str) -> str:
    """A `re` class body of the code points in Unicode general category `name` (`L`,
    `Lu`, `Nd`, ..., or `Any`), from this Python's `unicodedata`."""
    if name == "Any":
        return "\\x00-\\U0010ffff"
    if not re.fullmatch(r"[LMNPSZC][a-z]?", name):
        raise RE2Error(f"\\p{{{name}}}: only Unicode general categories (L, Lu, Nd, ...) "
                       "and Any are supported, not scripts or other properties")
    ranges: list[list[int]] = []
    for cp in range(sys.maxunicode + 1):
        if unicodedata.category(chr(cp)).startswith(name):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    if not ranges:
        raise RE2Error(f"\\p{{{name}}} is not a Unicode general category")
    return "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b > a else "") for a, b in ranges)


def _literal(ch: str) -> str:
    return f"\\U{ord(ch):08x}"


class _Reader:
    """The pattern, read left to right; `fail` names the position."""

    def __init__(self, pattern: str) -> None:
        self.text, self.i = pattern, 0

    def fail(self, what: str) -> RE2Error:
        return RE2Error(f"{what} at position {self.i} of {self.text!r} (RE2 syntax)")

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.text[j] if j < len(self.text) else ""

    def take(self) -> str:
        """The next character, or "" at the end."""
        ch = self.peek()
        self.i += 1
        return ch


def _escape(r: _Reader) -> tuple[str, bool]:
    """The escape after a backslash as (`re` class body or text, is a class); class
    bodies come back as ("^" + body) when negated."""
    start = r.i - 1
    ch = r.take()
    if not ch:
        raise r.fail("trailing backslash")
    if ch.lower() in PERL:
        return ("^" if ch.isupper() else "") + PERL[ch.lower()], True
    if ch in "pP":
        if r.peek() == "{":
            end = r.text.find("}", r.i)
            if end < 0:
                raise r.fail("unclosed \\p{")
            name, r.i = r.text[r.i + 1:end], end + 1
        else:
            name = r.take()
        negated = (ch == "P") != name.startswith("^")
        return ("^" if negated else "") + unicode_class(name.lstrip("^")), True
    if ch == "x":
        if r.peek() == "{":
            end = r.text.find("}", r.i)
            digits, r.i = r.text[r.i + 1:end] if end > 0 else "", end + 1
        else:
            digits = r.text[r.i:r.i + 2]
            r.i += 2
        if not re.fullmatch(r"[0-9A-Fa-f]{1,8}", digits) or int(digits, 16) > sys.maxunicode:
            raise r.fail("invalid \\x escape")
        return _literal(chr(int(digits, 16))), False
    if ch.isdigit():
        octal = re.match(r"0[0-7]{0,2}|[1-7][0-7]{2}", r.text[start + 1:])
        if octal is None:
            raise r.fail("backreferences are not RE2 syntax")
        r.i = start + 1 + octal.end()
        return _literal(chr(int(octal.group(), 8))), False
    if ch in CONTROL:
        return CONTROL[ch], False
    if ch.isascii() and ch.isalnum():
        raise r.fail(f"invalid escape \\{ch}")
    return _literal(ch), False


def _bracket(r: _Reader) -> str:
    """A `[...]` class (the `[` taken) as `re` text: positive items join one class;
    negated ones (`\\W`, `[:^alpha:]`, `\\PL`) become alternatives, or lookaheads
    under `[^...]`, since `re` has no class arithmetic."""
    negated = r.peek() == "^"
    r.i += negated
    pos: list[str] = []
    neg: list[str] = []
    first = True
    while True:
        ch = r.take()
        if not ch:
            raise r.fail("missing ]")
        if ch == "]" and not first:
            break
        first = False
        if ch == "[" and r.peek() == ":":
            end = r.text.find(":]", r.i)
            name = r.text[r.i + 1:end] if end > 0 else ""
            if name.lstrip("^") not in POSIX:
                raise r.fail(f"unknown class [:{name}:]")
            r.i = end + 2
            (neg if name.startswith("^") else pos).append(POSIX[name.lstrip("^")])
            _literal_dash(r, pos)
            continue
        if ch == "\\":
            if r.peek() == "b":
                raise r.fail("invalid escape \\b in a class")
            body, is_class = _escape(r)
            if is_class:
                (neg if body.startswith("^") else pos).append(body.lstrip("^"))
                _literal_dash(r, pos)
                continue
            pos.append(body)
        elif ch == "-" or ch.isalnum():
            pos.append(ch)
        else:
            pos.append(_literal(ch))
    own = "".join(pos)
    if not neg:
        return f"[{'^' if negated else ''}{own}]"
    if not negated:
        return "(?:" + "|".join(([f"[{own}]"] if own else []) + [f"[^{n}]" for n in neg]) + ")"
    guards = ([f"(?![{own}])"] if own else []) + [f"(?=[{n}])" for n in neg[:-1]]
    return "(?:" + "".join(guards) + f"[{neg[-1]}])"


def _literal_dash(r: _Reader, pos: list[str]) -> None:
    """A `-` after a class inside brackets is a literal dash in RE2 (`[\\d-z]`)."""
    if r.peek() == "-":
        r.i += 1
        pos.append("\\-")


def _flags(r: _Reader) -> tuple[str, bool]:
    """A `(?flags)` or `(?flags:` group's flags (the `(?` taken) and whether it opens
    a group; RE2 knows i, m, s and U, with `-` to clear."""
    found = re.match(r"([imsU]*)(?:-([imsU]*))?([:)])", r.text[r.i:])
    if found is None or found.group(2) == "":
        raise r.fail("invalid or unsupported group (RE2 has no lookaround, comments, "
                     "backreferences or named groups other than (?P<name>...))")
    r.i += found.end()
    on, off = found.group(1), found.group(2) or ""
    return on + ("-" + off if off else ""), found.group(3) == ":"


def python_pattern(pattern: str) -> str:
    """`pattern` (RE2 syntax) as a Python `re` pattern that matches the same strings;
    `RE2Error` where RE2 rejects it or `re` cannot follow it."""
    r = _Reader(pattern)
    out: list[str] = []
    # per open group: its flags, the scoped-flag groups opened inside it so far, and
    # where in `out` it starts
    stack: list[tuple[set[str], list[str], int]] = [(set(), [], 0)]
    atom_at = 0  # where in `out` the last atom starts
    after_repeat: bool | None = False  # None: right after a `(?flags)` group
    # where that group opened, and whether an atom (repeated or not) came before it
    flag_spot = (0, False, False, 0)
    while r.i < len(r.text):
        flags, scoped, _ = stack[-1]
        ch = r.take()
        repeat = None
        if ch in "*+?":
            repeat = ch
        elif ch == "{":
            m = _REPEAT.match(r.text, r.i - 1)
            if m:
                lo, hi = int(m.group(1)), m.group(3)
                if lo > MAX_REPEAT or (hi and (int(hi) > MAX_REPEAT or int(hi) < lo)):
                    raise r.fail(f"invalid repetition size {m.group()}")
                repeat, r.i = m.group(), m.end()
        if repeat is not None:
            lazy = r.peek() == "?"
            r.i += lazy
            text = repeat + ("?" if lazy != ("U" in flags) else "")
            if after_repeat is None:  # RE2 repeats the atom before the flags group
                at, atom, repeated, start = flag_spot
                if not atom:
                    raise r.fail("missing argument to repetition operator")
                out.insert(at, ")" + text if repeated else text)
                if repeated:  # a repeat of a repeat: `re` needs the group
                    out.insert(start, "(?:")
            elif after_repeat:
                raise r.fail("bad repetition operator")
            else:
                out.append(text)
            after_repeat = True
            continue
        repeated_before, after_repeat = after_repeat is True, False
        last_atom, atom_at = atom_at, len(out)
        if ch == "\\":
            if r.peek() == "Q":
                end = r.text.find("\\E", r.i + 1)
                end = len(r.text) if end < 0 else end
                quoted, r.i = r.text[r.i + 1:end], min(end + 2, len(r.text))
                out.append("".join(_literal(c) for c in quoted))
            elif r.peek() in _BOUNDARY:
                out.append(_BOUNDARY[r.take()])
            elif r.peek() in ("A", "z"):
                out.append("(?:\\A)" if r.take() == "A" else "(?:\\Z)")
            elif r.peek() == "C":
                raise r.fail("\\C (one byte) cannot be matched on text")
            else:
                body, is_class = _escape(r)
                out.append(f"[{body}]" if is_class else body)
        elif ch == "[":
            out.append(_bracket(r))
        elif ch == "(":
            if r.peek() == "?":
                r.i += 1
                if r.text.startswith("P<", r.i):  # a full match reads no group by name,
                    # and RE2 lets names repeat where `re` does not
                    name = re.match(r"P<(\w+)>", r.text[r.i:])
                    if name is None:
                        raise r.fail("invalid group name")
                    out.append("(")
                    r.i += name.end()
                    stack.append((set(flags), [], atom_at))
                    continue
                spec, opens = _flags(r)
                new = _apply(flags, spec)
                text = _re_flags(spec)
                if opens:
                    out.append(f"(?{text}:" if text else "(?:")
                    stack.append((new, [], atom_at))
                else:  # scoped to the rest of the enclosing group
                    opener = f"(?{text}:" if text else "(?:"
                    atom = bool(out) and not out[-1].endswith(("(", ":", "|"))
                    flag_spot = (len(out), atom, repeated_before, last_atom)
                    out.append(opener)
                    scoped.append(opener)
                    stack[-1] = (new, scoped, stack[-1][2])
                    after_repeat, atom_at = None, last_atom
                continue
            out.append("(")
            stack.append((set(flags), [], atom_at))
        elif ch == ")":
            if len(stack) == 1:
                raise r.fail("unexpected )")
            out.append(")" * len(scoped) + ")")
            atom_at = stack.pop()[2]
        elif ch == "|":
            # RE2's flags hold on in the group's later alternatives too
            out.append(")" * len(scoped) + "|" + "".join(scoped))
        elif ch == "$":
            # assertions sit in groups: RE2 repeats them (`^*`), `re` refuses
            out.append("(?:$)" if "m" in flags else "(?:\\Z)")
        elif ch == "^":
            out.append("(?:^)")
        elif ch == ".":
            out.append(ch)
        else:
            out.append(_literal(ch) if not ch.isalnum() else ch)
    if len(stack) > 1:
        raise r.fail("missing )")
    out.append(")" * len(stack[0][1]))
    text = "".join(out)
    try:
        re.compile(text)
    except re.error as exc:
        raise RE2Error(f"{pattern!r} is not a valid regular expression: {exc}") from None
    return text


def _apply(flags: set[str], spec: str) -> set[str]:
    on, _, off = spec.partition("-")
    return (flags | set(on)) - set(off)


def _re_flags(spec: str) -> str:
    """RE2 flags as `re`'s scoped ones: `U` has none (the repeats are swapped instead)."""
    on, _, off = (part.replace("U", "") for part in spec.partition("-"))
    return on + ("-" + off if off else "")
