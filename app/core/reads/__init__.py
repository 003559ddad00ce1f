"""Reads that start from a schema (by id, GUID, fingerprint, the `GET /schemas` listing) and the
cache of the hottest reads' replies."""
