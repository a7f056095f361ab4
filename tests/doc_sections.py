"""The generated sections of a docs page: each starts at its `## ` heading and runs to
the next heading or the end, and is compared and replaced as one block of text."""

from __future__ import annotations


def section(text: str, heading: str) -> str:
    """The section of `text` headed `heading` (its trailing blank lines dropped, one
    newline kept), or "" when the page has none."""
    start = text.find(heading)
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(heading))
    return (text[start:] if end < 0 else text[start:end]).rstrip("\n") + "\n"
