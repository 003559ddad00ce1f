"""The registry's rules: format-agnostic, HTTP-agnostic."""
