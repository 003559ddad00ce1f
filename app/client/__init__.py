"""Python client and serializers for sqlregistry (and any Confluent-compatible registry).

Built in a later issue; importing this package must never import Flask or SQLAlchemy.
"""
