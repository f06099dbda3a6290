"""Stored text made safe to print on a terminal.

A memory's text comes from agents, chats and imports: it can hold control characters (ESC
sequences that recolour, move the cursor or retitle the window; BEL; a carriage return that
hides what came before it). The console script shows every control character except newline
and tab as a visible escape (``\\x1b``), wherever it prints stored or given text for a person;
its JSON output escapes them as JSON does.
"""

from __future__ import annotations

# Unicode's control characters (category Cc): C0, DEL and C1.
_VISIBLE = {
    code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)] if chr(code) not in "\n\t"
}


def shown(text: str) -> str:
    """``text`` with each control character (Unicode category Cc: C0, DEL and C1) other than
    newline and tab written as ``\\xNN``.

    Examples:
        >>> shown("red\\x1b[31m alert\\x07")
        'red\\\\x1b[31m alert\\\\x07'
        >>> shown("two\\tcolumns\\nand lines")
        'two\\tcolumns\\nand lines'
    """
    return text.translate(_VISIBLE)
