"""Readers for the exploration assets (``cypher/browser``, ``cypher/bloom``), strict enough to
catch what Neo4j Browser and Bloom would misread."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from engrava_graph.browser_assets import GUIDE_FILE, STYLE_FILE, assets_dir
from engrava_graph.graph.registry import cypher_root

_RULE = re.compile(r"\s*([a-z]+(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*\{((?:[^{}']|'[^']*')*)\}\s*")
_PARAM = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*'([^']*)'$")
PARAM_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
GRASS_PROPERTIES = frozenset(
    {
        "diameter",
        "color",
        "border-color",
        "border-width",
        "text-color-internal",
        "text-color-external",
        "font-size",
        "caption",
        "shaft-width",
        "padding",
    }
)


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """``{selector: {property: value}}`` of a GraSS style sheet.

    Neo4j Browser's own reader (``GraphStyle.parse``) has no comments, splits a declaration on
    its first ``:`` and keeps one more piece, and matches a selector by tag and labels; so this
    rejects comments, a ``:`` or ``;`` inside a quoted value, unknown properties, a selector
    other than ``node[.Label]`` / ``relationship[.TYPE]``, and duplicates.

    Raises:
        ValueError: where the sheet breaks one of those rules.
    """
    rules: dict[str, dict[str, str]] = {}
    pos = 0
    while pos < len(text):
        match = _RULE.match(text, pos)
        if match is None:
            raise ValueError(f"GraSS syntax error at {pos}: {text[pos : pos + 40]!r}")
        selector, body = match.groups()
        if selector.split(".")[0] not in ("node", "relationship") or selector in rules:
            raise ValueError(f"bad or repeated selector {selector!r}")
        props: dict[str, str] = {}
        for declaration in filter(str.strip, body.split(";")):
            key, sep, value = (part.strip() for part in declaration.partition(":"))
            if not sep or key not in GRASS_PROPERTIES or not value or ":" in value:
                raise ValueError(f"{selector}: bad declaration {declaration.strip()!r}")
            if value.count("'") not in (0, 2) or "/*" in value:
                raise ValueError(f"{selector}: bad value {value!r}")
            props[key] = value.strip("'")
        rules[selector] = props
        pos = match.end()
    return rules


def grass_text() -> str:
    return (assets_dir() / STYLE_FILE).read_text(encoding="utf-8")


@dataclass
class Slide:
    """One ``<slide>`` of the guide: its title and its runnable blocks (text as Browser puts
    it into the editor)."""

    title: str = ""
    blocks: list[str] = field(default_factory=list)


class _GuideParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.slides: list[Slide] = []
        self.in_article = False
        self._capture: str | None = None
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "article" and "guide" in classes:
            self.in_article = True
        elif tag == "slide":
            self.slides.append(Slide())
        elif self.slides and (tag == "h3" or (tag == "pre" and "runnable" in classes)):
            self._capture, self._buffer = tag, []

    def handle_endtag(self, tag: str) -> None:
        if tag == self._capture:
            text = "".join(self._buffer).strip()
            if tag == "h3":
                self.slides[-1].title = text
            else:
                self.slides[-1].blocks.append(text)
            self._capture = None

    def handle_data(self, data: str) -> None:
        if self._capture:
            self._buffer.append(data)


def guide_slides() -> list[Slide]:
    """The guide's slides (``<article class="guide">`` required)."""
    parser = _GuideParser()
    parser.feed((assets_dir() / GUIDE_FILE).read_text(encoding="utf-8"))
    parser.close()
    if not parser.in_article:
        raise ValueError("the guide has no <article class='guide'>")
    return parser.slides


def guide_params(slides: list[Slide]) -> dict[str, str]:
    """The ``:param name => 'value'`` blocks of the guide."""
    params = {}
    for block in (b for s in slides for b in s.blocks if b.startswith(":param")):
        match = _PARAM.match(block)
        if match is None:
            raise ValueError(f"unreadable :param block {block!r}")
        params[match.group(1)] = match.group(2)
    return params


def guide_cypher(slides: list[Slide]) -> list[str]:
    """The guide's Cypher blocks (every runnable block that is not a ``:`` command)."""
    return [b for s in slides for b in s.blocks if not b.startswith(":")]


def bloom_perspective() -> dict[str, Any]:
    return json.loads((cypher_root() / "bloom" / "engrava-perspective.json").read_text("utf-8"))
