"""Moving a registry's history between Confluent-compatible registries, keeping every id.

`sqlregistry export | import | mirror | verify`. The dump format lives in
`dump`, the REST side in `rest`, and each phase in its own module; app/cli/transfer.py wires
them to the command line, and a database without a server is reached through
app/server/in_process.py. Nothing here imports Flask: the REST paths only need urllib3.
"""
