"""Registration: how a schema becomes a version of a subject. `registrar` runs the steps under
the subject's lock; `verdict` decides policies and compatibility before the lock and confirms
them under it; `documents` merges a request's metadata and rule set with the config's;
`identity` is what makes two registrations the same schema; `imported_ids` who may choose ids."""
