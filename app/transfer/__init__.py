"""Moving a registry's history between Confluent-compatible registries, keeping every id.

`sqlregistry export | import | mirror | verify`. The dump format lives in
`dump`, the REST side in `rest`, and each phase in its own module; `commands` wires them
to the command line. Nothing here imports Flask: the REST paths only need urllib3.
"""
