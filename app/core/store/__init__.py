"""The storage port: what the core needs from storage, by role. `app/storage` implements it
with SQL; a service names the role it needs."""
