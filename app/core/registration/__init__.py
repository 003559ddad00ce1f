"""Registration: how a schema becomes a version of a subject. `registrar` runs the steps under
the subject's lock over the records of `steps`; `verdict` decides policies and compatibility
before the lock and confirms them under it; `identity` is what makes two registrations the
same schema; `imported_ids` who may choose ids; `lookup` finds the version holding a schema;
`tags` derives a version from another (app/core/documents.py merges a request's metadata and
rule set with the config's)."""
