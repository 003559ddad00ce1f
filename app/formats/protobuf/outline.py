"""A Protobuf schema as an outline (`app.formats.base.Node`): messages and enums as named
types, their fields and oneofs below them, as the `.proto` text declares them.

Built from the checker's views (`diff.symbols`), which show the schema as the text has it
(map fields as maps, no synthetic oneofs, labels as written). Fields pair up by number, so
a renamed field is one changed row; messages, enums and oneofs by name. A field stays a
child of its message (its oneof is detail, so moving it into a oneof is one changed row);
each oneof also has a node listing its members, where the checker's reasons about the
oneof as a whole land. A proto2 field's `[default = ...]` is the node's default, as the text
writes it. Each node's locations are Confluent's (`#/Order/3`, `#/Order/payment/4` for a
oneof member, `#/Order/payment` for the oneof, `#/Order/Address` for a nested message), as
the checker reports them.

Comments are not shown: the registry stores the formatted text Confluent stores, which has
none (lookups find a schema however it is commented), so only a text never stored could
show them, and a diff against its own stored version would then list every comment.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from google.protobuf.descriptor_pb2 import DescriptorProto, FileDescriptorProto

from app.formats import work_budget
from app.formats.base import FIELD_NODE, GROUP_NODE, TYPE_NODE, Declaration, Node
from app.formats.protobuf.diff.symbols import EnumView, FieldView, MessageView, SchemaView, view_of
from app.formats.protobuf.model import ProtobufNative
from app.formats.protobuf.printer import default_literal

# Full field name ("acme.Order.id") -> its default as written, for the fields that have one.
_Defaults = dict[str, str]
_MESSAGE = Declaration("message", spells=("type",))


def outline(native: ProtobufNative) -> Node:
    view = view_of(native)
    defaults = _defaults(native.file)
    children = [_message(view, defaults, m, "") for m in view.messages]
    children += [_enum(e, "") for e in view.enums]
    detail = {"package": view.package} if view.package else {}
    return Node("", view.package, GROUP_NODE, "file", "", children=tuple(children), detail=detail)


def _defaults(file: FileDescriptorProto) -> _Defaults:
    """The proto2 defaults of every field of the file's messages, nested ones included
    (without recursion: nesting is unbounded)."""
    prefix = f"{file.package}." if file.package else ""
    pending: list[tuple[str, DescriptorProto]] = [(prefix + m.name, m) for m in file.message_type]
    found: _Defaults = {}
    while pending:
        full_name, message = pending.pop()
        found.update(
            (f"{full_name}.{f.name}", default_literal(f)) for f in message.field if f.HasField("default_value")
        )
        pending.extend((f"{full_name}.{nested.name}", nested) for nested in message.nested_type)
    return found


def _message(view: SchemaView, defaults: _Defaults, message: MessageView, parent: str) -> Node:
    work_budget.check()
    path = f"{parent}.{message.name}" if parent else message.name
    pointer = "#/" + path.replace(".", "/")
    children = [
        _field(view, f, path, pointer, message.oneof_of.get(f.number), defaults.get(f"{message.full_name}.{f.name}"))
        for f in message.fields.values()
    ]
    children += [_oneof(view, message, name, numbers, path, pointer) for name, numbers in message.oneofs]
    children += [_message(view, defaults, m, path) for m in message.messages]
    children += [_enum(e, path) for e in message.enums]
    return Node(
        path, message.name, TYPE_NODE, "message", f"message:{message.name}", children=tuple(children),
        locations=(pointer,), named=message.full_name, named_kind="message", declared=_MESSAGE,
    )


def _field(
    view: SchemaView, field: FieldView, parent: str, pointer: str, oneof: str | None, default: str | None
) -> Node:
    detail: dict[str, Any] = {"number": field.number}
    if field.label is not None:
        detail["label"] = field.label.lower()
    if oneof is not None:
        detail["oneof"] = oneof
    info = view.types.get(field.type_name or "")
    if info is not None and not info.own:
        # The file a type comes from: an import can change a type whose name stays the same.
        detail["import"] = info.file.name
    locations = (f"{pointer}/{field.number}",) + ((f"{pointer}/{oneof}/{field.number}",) if oneof else ())
    options = f" [default = {default}]" if default is not None else ""
    declared = Declaration(
        _typed(view, field, parent), f"= {field.number}{options}", spells=("type", "number", "label", "default"),
    )
    return Node(
        f"{parent}.{field.name}", field.name, FIELD_NODE, _label(view, field), f"#{field.number}", default,
        detail=detail, locations=locations, declared=declared,
    )


def _oneof(
    view: SchemaView, message: MessageView, name: str, numbers: tuple[int, ...], parent: str, pointer: str
) -> Node:
    fields = [message.fields[n] for n in numbers if n in message.fields]
    members = [f"{f.name} = {f.number}" for f in fields]
    declared = Declaration("oneof", _braced(f"{_label(view, f)} {f.name} = {f.number}" for f in fields),
                           spells=("type", "fields"))
    return Node(
        f"{parent}.{name}", name, GROUP_NODE, "oneof", f"oneof:{name}", detail={"fields": members},
        locations=(f"{pointer}/{name}",), declared=declared,
    )


def _enum(enum: EnumView, parent: str) -> Node:
    path = f"{parent}.{enum.name}" if parent else enum.name
    symbols = [f"{name} = {number}" for number, name in sorted(enum.values.items())]
    return Node(
        path, enum.name, TYPE_NODE, "enum", f"enum:{enum.name}", detail={"symbols": symbols},
        locations=("#/" + path.replace(".", "/"),), named=enum.full_name, named_kind="enum",
        declared=Declaration("enum", _braced(symbols), spells=("type", "symbols")),
    )


def _typed(view: SchemaView, field: FieldView, scope: str) -> str:
    """The field's label and type as the text writes them: `repeated string`, `int64`,
    `optional Address`, `map<string, int32>` (a map field has no label). A type nested in the
    field's own message (`scope`, its path) is written by its name there, as a `.proto` file
    writes it (`Kind`, not `Item.Kind`): the name resolves to it from inside the message."""
    label = field.label.lower() if field.label is not None else ""
    written = re.sub(rf"(?<![\w.]){re.escape(scope)}\.(?=\w)", "", _label(view, field))
    return f"{label} {written}".strip()


def _braced(entries: Iterable[str]) -> str:
    """Declarations in a block as the text writes them: `{ string card = 6; string iban = 7; }`."""
    return "{ " + "".join(f"{entry}; " for entry in entries) + "}"


def _label(view: SchemaView, field: FieldView) -> str:
    """`int64`, `Address`, `map<string, int32>`, `google.protobuf.Timestamp` (a type of
    another package, by its full name); `repeated` is shown by the label detail."""
    if field.scalar is not None:
        return field.scalar
    info = view.types.get(field.type_name or "")
    if info is None:
        return field.type_name or ""
    if info.map_key is not None and info.map_value is not None:
        return f"map<{_label(view, info.map_key)}, {_label(view, info.map_value)}>"
    return info.local_name if info.package == view.package else info.full_name
