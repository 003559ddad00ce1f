"""SQL storage: the only package that builds queries."""
