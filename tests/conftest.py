"""Test-wide settings.

The certificate kernel records on the machine the lemmas whose artifacts re-checked
(``checker.lemma_records``). Tests must not depend on (or write) that record, so it is
turned off here; the tests of the record give it a temporary place of their own."""
import os

os.environ["PRIVINFER_CACHE_DIR"] = ""
