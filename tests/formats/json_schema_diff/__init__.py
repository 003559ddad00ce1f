"""Tests of the JSON Schema compatibility checker (`app.formats.json_schema.diff`)."""
