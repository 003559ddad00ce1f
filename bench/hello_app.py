"""The baseline for bench/read_path.py: the cheapest Flask app gunicorn can serve.

The registry's read path is reported as a fraction of this, which separates what the
registry costs from what Flask, gunicorn and the machine cost anyway.
"""
from flask import Flask

app = Flask(__name__)


@app.get("/")
def root() -> tuple[str, int, dict[str, str]]:
    return "{}", 200, {"Content-Type": "application/vnd.schemaregistry.v1+json"}
