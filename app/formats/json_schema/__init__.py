"""JSON Schema (`schemaType: "JSON"`) behind the format protocol of `app.formats.base`."""
