"""Just enough of an HTML tree for the UI tests: elements with their attributes and text,
found by tag and attribute, built with the standard library's parser (no test dependency)."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = None

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs: str | bool) -> list[Element]:
        """Elements by tag and attributes; an attribute value of True only asks for its presence.
        Attribute names use `_` for `-` (`data_change="added"`)."""
        wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
        out = []
        for e in self.iter():
            if tag is not None and e.tag != tag:
                continue
            if all((k in e.attrs) if v is True else e.attrs.get(k) == v for k, v in wanted.items()):
                out.append(e)
        return out

    def find(self, tag: str | None = None, **attrs: str | bool) -> Element | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Element(tag, {k: v or "" for k, v in attrs}, parent=self.current))

    def handle_endtag(self, tag: str) -> None:
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
