"""A JSON Schema as policy rules read it (`PolicyView`), in the rules' Avro-born vocabulary:
an object schema with `properties` is a record (named by its `title`, its definition's key
or its property's name), each property a field, `description` the doc, an `enum` of strings
an enum with symbols, `items` an array, a schema-valued `additionalProperties` a map,
`oneOf`/`anyOf` a union, each `type` a primitive (its `format` as the logical type).

`$ref`s are not followed: a rule checks what this document defines (its `$defs`/
`definitions` included, at their own locations), as for Avro. The walk keeps its own stack.
"""
from __future__ import annotations

from typing import Any

from app.formats import work_budget
from app.formats.base import SchemaElement

_DEFINITIONS = ("$defs", "definitions")
_UNIONS = ("oneOf", "anyOf")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _type_label(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return "union<" + ",".join(str(k) for k in kind) + ">"
    if kind == "array":
        return f"array<{_type_label(schema.get('items'))}>"
    if isinstance(kind, str):
        return kind
    if "enum" in schema:
        return "enum"
    return "object" if "properties" in schema else "any"


def elements(document: Any) -> list[SchemaElement]:
    out: list[SchemaElement] = []
    # (schema, location, holder path, own name when it is a record, records enclosing it)
    pending: list[tuple[Any, str, str, str, int]] = [(document, "", "", "", 0)]
    while pending:
        work_budget.check()
        schema, location, holder, name, depth = pending.pop()
        if not isinstance(schema, dict) or "$ref" in schema:
            continue
        children: list[tuple[Any, str, str, str, int]] = []
        kind = schema.get("type")
        doc = schema.get("description") if isinstance(schema.get("description"), str) else None
        if isinstance(schema.get("properties"), dict):
            depth += 1
            record_name = schema.get("title") if isinstance(schema.get("title"), str) else name
            path = holder or record_name  # a property's record goes by the property's path
            out.append(SchemaElement("record", record_name, location, path, doc=doc, type="object", depth=depth,
                                     size=len(schema["properties"])))
            for key, prop in schema["properties"].items():
                field_location = f"{location}/properties/{_escape(key)}"
                field_path = f"{path}.{key}" if path else key
                prop_doc = prop.get("description") if isinstance(prop, dict) else None
                out.append(SchemaElement(
                    "field", key, field_location, field_path, doc=prop_doc if isinstance(prop_doc, str) else None,
                    type=_type_label(prop), logical=prop.get("format") if isinstance(prop, dict) else None,
                    depth=depth, has_default=isinstance(prop, dict) and "default" in prop,
                    default=prop.get("default") if isinstance(prop, dict) else None,
                    record=path,
                ))
                children.append((prop, field_location, field_path, key, depth))
        elif isinstance(schema.get("enum"), list):
            enum_name = schema.get("title") if isinstance(schema.get("title"), str) else name
            out.append(SchemaElement("enum", enum_name, location, holder, doc=doc, type="enum", depth=depth,
                                     size=len(schema["enum"])))
            for index, symbol in enumerate(schema["enum"]):
                if isinstance(symbol, str):
                    out.append(SchemaElement("enumSymbol", symbol, f"{location}/enum/{index}", f"{holder}.{symbol}",
                                             depth=depth, record=holder))
        elif isinstance(kind, str) and kind not in ("object", "array"):
            out.append(SchemaElement("primitive", kind, location, holder, type=kind,
                                     logical=schema.get("format") if isinstance(schema.get("format"), str) else None,
                                     depth=depth))
        if kind == "array" or "items" in schema:
            out.append(SchemaElement("array", "", location, holder, type="array", depth=depth))
            if isinstance(schema.get("items"), dict):
                children.append((schema["items"], f"{location}/items", holder, name, depth))
        if isinstance(schema.get("additionalProperties"), dict):
            out.append(SchemaElement("map", "", location, holder, type="map", depth=depth))
            children.append((schema["additionalProperties"], f"{location}/additionalProperties", holder, name, depth))
        for keyword in _UNIONS:
            branches = schema.get(keyword)
            if isinstance(branches, list):
                out.append(SchemaElement("union", "", location, holder, type="union", depth=depth, size=len(branches)))
                children.extend((b, f"{location}/{keyword}/{i}", holder, name, depth) for i, b in enumerate(branches))
        for keyword in _DEFINITIONS:
            definitions = schema.get(keyword)
            if isinstance(definitions, dict):
                children.extend((d, f"{location}/{keyword}/{_escape(k)}", "", k, 0) for k, d in definitions.items())
        pending.extend(reversed(children))
    return out
