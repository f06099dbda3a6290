"""Stored text made safe to print on a terminal.

A memory's text comes from agents, chats and imports: it can hold control characters (ESC
sequences that recolour, move the cursor or retitle the window; BEL; a carriage return that
hides what came before it). The console script shows every control character except newline
and tab as a visible escape (``\\x1b``), wherever it prints stored or given text for a person;
its JSON output escapes them as JSON does.
"""

from __future__ import annotations

import inspect

# Unicode's control characters (category Cc): C0, DEL and C1; and the bidirectional embeddings,
# overrides and isolates (U+202A-U+202E, U+2066-U+2069), which reorder what follows them on the
# line ("Trojan Source", CVE-2021-42574), so a memory could make its neighbours read otherwise.
_VISIBLE = {
    code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)] if chr(code) not in "\n\t"
} | {code: f"\\u{code:04x}" for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}


def shown(text: str) -> str:
    """``text`` with each control character (Unicode category Cc: C0, DEL and C1) other than
    newline and tab written as ``\\xNN``, and each bidirectional embedding, override or isolate
    as ``\\uNNNN``.

    Examples:
        >>> shown("red\\x1b[31m alert\\x07")
        'red\\\\x1b[31m alert\\\\x07'
        >>> shown("two\\tcolumns\\nand lines")
        'two\\tcolumns\\nand lines'
        >>> shown("abc\\u202edef")
        'abc\\\\u202edef'
    """
    return text.translate(_VISIBLE)


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless the count is 1 (a regular plural: ``noun + "s"``).

    Examples:
        >>> counted(1, "edge"), counted(2, "thought"), counted(0, "message")
        ('1 edge', '2 thoughts', '0 messages')
    """
    return f"{count} {noun}{'' if count == 1 else 's'}"


def flowing(doc: str) -> str:
    """A command's docstring as its help text: each paragraph on one line, for the terminal to
    wrap. Typer keeps the line breaks of the paragraphs after the first (and of the first in
    the command list), so a docstring wrapped at 100 columns printed ragged on a narrower
    terminal.

    Examples:
        >>> flowing('''Do it.
        ...
        ...     Refused when
        ...     it is done.''')
        'Do it.\\n\\nRefused when it is done.'
    """
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))
