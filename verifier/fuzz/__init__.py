"""``privinfer fuzz``: random programs checked against the exact semantics (docs/fuzz.md)."""
