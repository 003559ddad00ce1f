"""Reads: those that start from a subject (its versions, one version, the ids referencing it),
those that start from a schema (by id, GUID, fingerprint, the `GET /schemas` listing), and the
cache of the hottest reads' replies."""
