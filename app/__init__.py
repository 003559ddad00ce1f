"""sqlregistry: a Confluent-compatible schema registry on SQL storage.

This package module is deliberately empty: `app.client` is used by producers and
consumers that must not pull in Flask or SQLAlchemy just by importing it.
"""
