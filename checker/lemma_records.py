"""What the kernel knows of the lemma library: re-checked now, or recorded as re-checked.

Re-checking a lemma's artifact needs the lemma library, which loads sympy (about a second)
and may take seconds per lemma. So the kernel keeps, per machine, a *record* of the lemmas
whose artifacts re-checked: for each, its status, the lemmas its artifact cites, the SHA-256
of the artifact and its trust-base entries, all under the library's *fingerprint* — the
SHA-256 of every source file of ``lemmas/`` and ``obligations/`` and of the versions of the
tools a re-check runs (sympy, mpmath, python-flint, z3-solver). Any change to that code or to
those tools changes the fingerprint, and nothing recorded under another fingerprint is used.
Only re-checks that succeeded are recorded; a lemma missing from the record is re-checked
(and then recorded).

Trust: the record is as trustworthy as the installed checker's own files (whoever can write
the one can write the other). ``privinfer check --recheck-lemmas`` ignores it; the
environment variable ``PRIVINFER_CACHE_DIR`` moves it (set it empty to keep no record).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, Optional, Tuple

from obligations.records import record

ROOT = Path(__file__).resolve().parent.parent
FINGERPRINTED = ("lemmas", "obligations")
TOOLS = ("sympy", "mpmath", "python-flint", "z3-solver")


@record
class LemmaFacts:
    """What a claim needs to know of a lemma once its artifact has re-checked."""

    id: str
    status: str
    cited: Tuple[str, ...]
    artifact_sha256: str
    trust: Tuple[str, ...]

    def to_json(self) -> Dict[str, object]:
        return {"status": self.status, "cited": list(self.cited),
                "artifact_sha256": self.artifact_sha256, "trust": list(self.trust)}


def fingerprint() -> str:
    """The SHA-256 of the library's code and of the versions of its tools."""
    digest = hashlib.sha256()
    for package in FINGERPRINTED:
        for path in sorted((ROOT / package).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    versions = tool_versions(TOOLS)
    for tool in TOOLS:
        digest.update(f"{tool}=={versions[tool]}\0".encode())
    return digest.hexdigest()


def tool_versions(distributions: Iterable[str]) -> Dict[str, str]:
    """The installed version of each of ``distributions`` (``"absent"`` if not installed):
    the ``Version`` in the metadata of its first ``<name>-<version>.dist-info`` on
    ``sys.path`` (where ``importlib.metadata.version`` looks first), or else what
    ``importlib.metadata.version`` says (other kinds of installs). Importing
    ``importlib.metadata`` alone takes longer than checking a small certificate."""
    wanted = {_normalized(d): d for d in distributions}
    found: Dict[str, str] = {}
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            dist = wanted.get(_normalized(name[:-10].rpartition("-")[0]))
            if dist is not None and dist not in found:
                try:
                    text = (Path(entry or ".") / name / "METADATA").read_text(encoding="utf-8")
                except OSError:
                    continue
                for line in text.split("\n\n", 1)[0].splitlines():
                    if line.startswith("Version:"):
                        found[dist] = line[len("Version:"):].strip()
                        break
    missing = [d for d in wanted.values() if d not in found]
    if missing:
        from importlib.metadata import PackageNotFoundError, version
        for d in missing:
            try:
                found[d] = version(d)
            except PackageNotFoundError:
                found[d] = "absent"
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def record_path() -> Optional[Path]:
    """Where the record lives (``None``: keep none)."""
    configured = os.environ.get("PRIVINFER_CACHE_DIR")
    if configured is not None:
        return Path(configured) / "lemma-checks.json" if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "privinfer" / "lemma-checks.json"


class LemmaRecord:
    """The re-checked lemmas recorded under the current fingerprint (read once, then kept)."""

    def __init__(self, path: Optional[Path]):
        self.path = path
        self._fingerprint: Optional[str] = None
        self._entries: Optional[Dict[str, LemmaFacts]] = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = fingerprint()
        return self._fingerprint

    def entries(self) -> Dict[str, LemmaFacts]:
        if self._entries is None:
            self._entries = {}
            data = self._read()
            if data.get("fingerprint") == self.fingerprint:
                for lid, e in data.get("lemmas", {}).items():
                    try:
                        self._entries[lid] = LemmaFacts(lid, e["status"], tuple(e["cited"]),
                                                        e["artifact_sha256"], tuple(e["trust"]))
                    except (KeyError, TypeError):
                        continue
        return self._entries

    def get(self, lid: str) -> Optional[LemmaFacts]:
        return self.entries().get(lid) if self.path is not None else None

    def add(self, facts: Iterable[LemmaFacts]) -> None:
        """Record lemmas whose artifacts re-checked (best effort: an unwritable place is
        not an error, the lemmas are then re-checked next time)."""
        if self.path is None:
            return
        entries = self.entries()
        for f in facts:
            entries[f.id] = f
        data = {"fingerprint": self.fingerprint,
                "lemmas": {lid: entries[lid].to_json() for lid in sorted(entries)}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            pass

    def _read(self) -> Dict:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}


def artifact_sha256(lemma) -> str:
    """The SHA-256 of a library lemma's artifact (its canonical JSON)."""
    return hashlib.sha256(json.dumps(lemma.artifact, sort_keys=True).encode()).hexdigest()


def facts_of(lemma) -> LemmaFacts:
    """The facts of a library lemma (loads the library's checker, hence sympy)."""
    from lemmas.checking import trust_base
    return LemmaFacts(lemma.id, lemma.status, tuple(lemma.cited), artifact_sha256(lemma),
                      tuple(sorted(trust_base(lemma))))
