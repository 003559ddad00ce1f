"""What the tests against confluent-kafka's serializers share."""
from __future__ import annotations

from confluent_kafka.serialization import MessageField, SerializationContext


def context(topic: str) -> SerializationContext:
    """The context a producer gives a value serializer for `topic`."""
    return SerializationContext(topic, MessageField.VALUE)
