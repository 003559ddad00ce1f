"""Protobuf (`schemaType: "PROTOBUF"`) behind the format protocol of `app.formats.base`."""
