"""The registry's rules: format-agnostic, HTTP-agnostic.

`registry.RegistryService` and its kernel (records, types, errors, access, audit, subjects,
resolver, config, metadata, documents, limits, caches) stand here; each feature has a room:
`registration/` (register, lookup, tags), `compatibility/` (levels, checks), `reads/` (reads by
schema, the read cache), `browse/` (the web UI's views), `dek/`, `exporters/`; `store/` is the
storage port, by role."""
