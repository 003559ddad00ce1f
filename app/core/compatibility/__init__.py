"""Compatibility: `levels` turns a level into reader/writer checks, `checks` runs them against
a subject's history (registration and the `/compatibility` endpoints give the same answer)."""
