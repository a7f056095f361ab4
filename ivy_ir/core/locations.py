"""Where the user wrote an op: the locations every recorded op carries.

Frames inside this project are never the user's code, so the innermost frame outside
its folders is the call site an IR dump or an error points back at.
"""

from __future__ import annotations

import os
import sys
from types import FrameType

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, UnknownLoc
from xdsl.ir import Attribute

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OWN_DIRS = tuple(os.path.join(_ROOT, d) + os.sep
                 for d in ("ivy_ir", "ivy", "lowerings", "importers"))
"""This project's source folders: frames in them are never the user's code."""
GENERATED = ("<ivy ", "<ivy_ir ")
"""File names of the code the facade and the lowerings generate: never the user's."""


def _user_frame(skip: tuple[str, ...] = ()) -> tuple[FrameType | None, int]:
    """The innermost frame outside this project (and the folders in `skip`) above the
    caller of the function calling this, and how many frames above that caller it is
    (1: the caller itself)."""
    skipped = OWN_DIRS + GENERATED + skip
    frame, level = sys._getframe(2), 1
    while frame is not None and frame.f_code.co_filename.startswith(skipped):
        frame, level = frame.f_back, level + 1
    return frame, level


def user_stacklevel() -> int:
    """The `warnings.warn` stacklevel of the innermost frame outside this project, so a
    warning points at the user's call (`ivy_ir.compile(...)`), not at an importer."""
    return _user_frame()[1]


def user_location(skip: tuple[str, ...] = ()) -> Attribute:
    """The innermost stack frame outside this package (and the folders in `skip`):
    where the user called the op."""
    frame = _user_frame(skip)[0]
    if frame is None:
        return UnknownLoc()
    pos = frame.f_code.co_positions()
    col = 0
    for i, p in enumerate(pos):
        if i == frame.f_lasti // 2 and p[2] is not None:
            col = p[2] + 1
            break
    return FileLineColLoc(StringAttr(short_path(frame.f_code.co_filename)),
                          IntAttr(frame.f_lineno), IntAttr(col))


def short_path(path: str) -> str:
    """`path` relative to the working directory when below it: short, stable IR text."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def where(loc: Attribute) -> str:
    """` at file:line` for a source location, "" when there is none."""
    if isinstance(loc, FileLineColLoc):
        return f" at {loc.filename.data}:{loc.line.data}"
    return ""


def identifier(name: str) -> str:
    """An SSA name hint for a source name such as `layers.0.w` or `dense/kernel`: ASCII
    letters, digits and `_` only, as xDSL accepts (`é` or a full-width `ｗ` become `_`)."""
    out = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)
    # xDSL drops a trailing `_<digits>` from hints, and would leave nothing of `_0`
    return out if out and not out[0].isdigit() else f"v_{out}"
