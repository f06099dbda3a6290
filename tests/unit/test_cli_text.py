"""Text the console script prints for a person: control characters shown, never sent."""

from __future__ import annotations

from engrava_graph.cli.errors import describe
from engrava_graph.cli.memory import added_line, table_lines
from engrava_graph.cli.text import counted, flowing, shown
from engrava_graph.model.errors import ValidationFailedError


def test_every_control_character_but_newline_and_tab_is_shown_escaped() -> None:
    controls = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]]
    out = shown("".join(controls))
    assert "\n" in out and "\t" in out
    assert not any(c in out for c in controls if c not in "\n\t")
    assert shown("\x1b[31mred\r") == "\\x1b[31mred\\x0d"
    assert shown("café 北京 ✓") == "café 北京 ✓"


def test_bidirectional_overrides_are_shown_escaped() -> None:
    """A memory cannot reorder what a terminal shows after it (Trojan Source)."""
    bidi = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]
    out = shown("a" + "".join(bidi) + "b")
    assert not any(c in out for c in bidi)
    assert shown("x\u202ey") == "x\\u202ey"
    assert shown("שלום, مرحبا") == "שלום, مرحبا"  # right-to-left text itself is untouched


def test_add_messages_says_how_many_are_new_and_how_many_were_stored() -> None:
    """The counts ``--json`` and the REST service give (``messages``, ``created``), in words."""
    assert added_line("c1", {"messages": 3, "created": 3}) == "stored 3 messages of 'c1' (3 new)"
    assert (
        added_line("c1", {"messages": 1, "created": 0})
        == "stored 1 message of 'c1' (0 new, 1 already stored)"
    )
    assert (
        added_line("c1", {"messages": 5, "created": 2})
        == "stored 5 messages of 'c1' (2 new, 3 already stored)"
    )


def test_a_docstring_flows_into_one_line_per_paragraph() -> None:
    doc = """Do it.

        Refused when
        it is done;   say so.

        Last."""
    assert flowing(doc) == "Do it.\n\nRefused when it is done; say so.\n\nLast."


def test_counts_are_singular_for_one() -> None:
    assert [counted(n, "edge") for n in (0, 1, 2)] == ["0 edges", "1 edge", "2 edges"]


def test_an_error_line_never_carries_a_control_character() -> None:
    _, message = describe(ValidationFailedError("no thought '\x1b]0;owned\x07'"))
    assert message == "no thought '\\x1b]0;owned\\x07'"


def test_a_table_line_is_aligned_on_the_escaped_text() -> None:
    rows = [("id", "essence"), ("a", shown("x\x1by"))]
    assert table_lines(rows, None) == ["id\tessence", "a\tx\\x1by"]
