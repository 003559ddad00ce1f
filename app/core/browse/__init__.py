"""The web UI's views of the registry: listings and search, the settings in force, structural
diffs and candidate checks, the contexts a caller is shown. `RegistryService` holds them as
`browse`, built on first use (a server nobody browses never imports them)."""
