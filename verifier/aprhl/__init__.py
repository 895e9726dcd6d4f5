"""apRHL derivations for the while-language of the course notes (docs/aprhl.md)."""
