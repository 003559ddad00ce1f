"""The app and how it is served: the Flask application and its factory, the authentication
gate in front of it, gunicorn's options, worker and start-up (the master's database step and
preloading, a worker's warm-up), access logs, URL rules and the operator-facing start-up
errors; the in-process registry (the API answered in this process, for `--database-url`
transfers and the exporters), and `runners/`, the background work a serving worker starts.
`app.wiring` builds the registry these serve."""
