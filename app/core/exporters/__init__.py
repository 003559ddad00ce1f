"""Schema exporters (Confluent's Schema Linking API): definitions, their rules and the service."""
