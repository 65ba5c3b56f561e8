"""The ids a corpus read has seen, in bounded memory: read_corpus refuses a duplicate id, and a corpus of
millions of passages must not hold millions of ids in memory (about 100 bytes each in a Python set: 500 MB at
5M passages, bench/scale.py).

UniqueIds keeps the first IN_MEMORY ids in a set (a small corpus never touches the disk); past that it moves
them into a private temporary SQLite database (deleted when closed; a fixed page cache, the B-tree on disk)
and checks each further id there with one INSERT OR IGNORE."""
from __future__ import annotations

import sqlite3

IN_MEMORY = 100_000
CACHE_MB = 16


class UniqueIds:
    """add(id) -> True for an id not seen before (and remembers it), False for a duplicate."""

    def __init__(self, in_memory: int | None = None) -> None:
        self.in_memory = in_memory or IN_MEMORY
        self.seen: set[str] = set()
        self.db: sqlite3.Connection | None = None

    def add(self, pid: str) -> bool:
        if self.db is None:
            if pid in self.seen:
                return False
            self.seen.add(pid)
            if len(self.seen) >= self.in_memory:
                self._spill()
            return True
        return self.db.execute("INSERT OR IGNORE INTO ids VALUES (?)", (pid,)).rowcount == 1

    def _spill(self) -> None:
        """Move the ids of the set into a temporary database ("": SQLite's private temporary file)."""
        self.db = sqlite3.connect("", isolation_level=None)
        self.db.executescript(f"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-{CACHE_MB * 1024};"
                              "CREATE TABLE ids(id TEXT PRIMARY KEY) WITHOUT ROWID; BEGIN")
        self.db.executemany("INSERT INTO ids VALUES (?)", ((pid,) for pid in sorted(self.seen)))
        self.seen = set()

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        self.seen = set()
