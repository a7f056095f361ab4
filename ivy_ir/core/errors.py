"""The errors a user mistake raises, shared by every layer that can detect one."""

from __future__ import annotations


class IRError(ValueError):
    """Malformed or invalid IR text; the message has line:column or names the op.

    Errors raised while reading text also carry where they point, so that tools can
    use the position without parsing the message: `file`, `line` and `col` (1-based)
    and `token`, the offending text ("" at the end of the input); all None otherwise.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 col: int | None = None, token: str | None = None):
        super().__init__(message)
        self.file, self.line, self.col, self.token = file, line, col, token


class CustomGradientWarning(UserWarning):
    """A source function's own gradient rule (a `jax.custom_vjp` or `custom_jvp` of the
    user's code) that the IR cannot carry: the compiled program runs the function's
    forward computation, and its gradients are that computation's, not the rule's."""


class TraceError(RuntimeError):
    """A traced program did something that a static graph cannot record."""


class UnsupportedOpsError(TraceError):
    """Source ops with no mapping to the ivy dialect, all of them at once.

    `missing` maps each framework op name to the locations (`file:line`) of its uses.
    """

    def __init__(self, framework: str, missing: dict[str, list[str]]):
        self.framework = framework
        self.missing = {k: list(v) for k, v in missing.items()}
        total = sum(len(v) for v in missing.values())
        lines = [f"{total} {framework} op{'s' * (total != 1)} of {len(missing)} kind"
                 f"{'s' * (len(missing) != 1)} cannot be imported (no mapping to the ivy "
                 "dialect):"]
        for name, locs in sorted(missing.items()):
            shown = ", ".join(dict.fromkeys(locs))
            lines.append(f"  {name} (x{len(locs)}): {shown}")
        super().__init__("\n".join(lines))
