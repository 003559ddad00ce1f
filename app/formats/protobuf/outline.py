"""A Protobuf schema as an outline (`app.formats.base.Node`): messages and enums as named
types, their fields below them, as the `.proto` text declares them.

Built from the checker's views (`diff.symbols`), which show the schema as the text has it
(map fields as maps, no synthetic oneofs, labels as written). Fields pair up by number, so
a renamed field is one changed row; messages and enums by name. Each node's locations are
Confluent's (`#/Order/3`, `#/Order/payment/4` for a oneof member, `#/Order/Address` for a
nested message), as the checker reports them.
"""
from __future__ import annotations

from typing import Any

from app.formats.base import FIELD_NODE, GROUP_NODE, TYPE_NODE, Node
from app.formats.protobuf.diff.symbols import EnumView, FieldView, MessageView, SchemaView, view_of
from app.formats.protobuf.model import ProtobufNative


def outline(native: ProtobufNative) -> Node:
    view = view_of(native)
    children = [_message(view, m, "") for m in view.messages]
    children += [_enum(e, "") for e in view.enums]
    detail = {"package": view.package} if view.package else {}
    return Node("", view.package, GROUP_NODE, "file", "", children=tuple(children), detail=detail)


def _message(view: SchemaView, message: MessageView, parent: str) -> Node:
    path = f"{parent}.{message.name}" if parent else message.name
    pointer = "#/" + path.replace(".", "/")
    children = [_field(view, f, path, pointer, message.oneof_of.get(f.number)) for f in message.fields.values()]
    children += [_message(view, m, path) for m in message.messages]
    children += [_enum(e, path) for e in message.enums]
    return Node(
        path, message.name, TYPE_NODE, "message", f"message:{message.name}", children=tuple(children),
        locations=(pointer,), named=message.full_name, named_kind="message",
    )


def _field(view: SchemaView, field: FieldView, parent: str, pointer: str, oneof: str | None) -> Node:
    detail: dict[str, Any] = {"number": field.number}
    if field.label is not None:
        detail["label"] = field.label.lower()
    if oneof is not None:
        detail["oneof"] = oneof
    locations = (f"{pointer}/{field.number}",) + ((f"{pointer}/{oneof}/{field.number}",) if oneof else ())
    return Node(
        f"{parent}.{field.name}", field.name, FIELD_NODE, _label(view, field), f"#{field.number}",
        detail=detail, locations=locations,
    )


def _enum(enum: EnumView, parent: str) -> Node:
    path = f"{parent}.{enum.name}" if parent else enum.name
    symbols = [f"{name} = {number}" for number, name in sorted(enum.values.items())]
    return Node(
        path, enum.name, TYPE_NODE, "enum", f"enum:{enum.name}", detail={"symbols": symbols},
        locations=("#/" + path.replace(".", "/"),), named=enum.full_name, named_kind="enum",
    )


def _label(view: SchemaView, field: FieldView) -> str:
    """`int64`, `Address`, `map<string, int32>`, `repeated` shown by the label detail."""
    if field.scalar is not None:
        return field.scalar
    info = view.types.get(field.type_name or "")
    if info is None:
        return field.type_name or ""
    if info.map_key is not None and info.map_value is not None:
        return f"map<{_label(view, info.map_key)}, {_label(view, info.map_value)}>"
    return info.local_name
