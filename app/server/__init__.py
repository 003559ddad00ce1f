"""The app and how it is served: the Flask application and its factory, gunicorn's options,
worker and start-up (the master's database step and preloading), access logs, URL rules and
the operator-facing start-up errors. `app.wiring` builds the registry these serve."""
