"""Tests of the Protobuf compatibility checker (`app.formats.protobuf.diff`)."""
