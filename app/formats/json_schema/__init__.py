"""JSON Schema (`schemaType: "JSON"`) behind the format protocol of `app.formats.base`."""
from app.formats.json_schema.format import JsonSchemaFormat

__all__ = ["JsonSchemaFormat"]
