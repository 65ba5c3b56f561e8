"""Writing files safely: atomic writes (`atomic_write`, `write_json`), folders swapped into place in one step
(`build_dir`, `replace_dir`, `tidy_dir`), exclusive locks (`locked`), checksums (`sha256_file`,
`HashingReader`) and JSON manifests read back (`read_json`). Reading text files: qa_baseline.core.textio."""
import contextlib
import fcntl
import functools
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any


def cache_root() -> str:
    """Where derived files (ONNX exports, the JVM's class-data-sharing archives) are kept: $QA_BASELINE_CACHE,
    else ~/.cache/qa_baseline."""
    return os.environ.get("QA_BASELINE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "qa_baseline")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w", encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """Write to a temporary file beside PATH and move it into place only when the block succeeds."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding,
                       newline=None if "b" in mode else "") as f:
            yield f
        os.chmod(tmp, 0o666 & ~UMASK)  # mkstemp makes files private; outputs get the usual permissions
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def write_lines(path: str, lines: Iterable[str]) -> None:
    """LINES (each without its newline) as the text file PATH, written atomically: a submission's writer."""
    with atomic_write(path) as f:
        for line in lines:
            f.write(line + "\n")


def write_json(path: str, obj: Any) -> None:
    with atomic_write(path) as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def read_json(path: str) -> dict[str, Any]:
    """A JSON object from PATH, or {} when the file is missing, unreadable or not an object."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else {}
    except (OSError, ValueError):
        return {}


def _versions(final_dir: str) -> list[str]:
    """The versions `.NAME.v-STAMP-PID` kept beside FINAL_DIR, oldest first."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    pattern = re.compile(rf"\.{re.escape(name)}\.v-(\d+)-\d+")
    found = [(int(m.group(1)), entry) for entry in os.listdir(parent) if (m := pattern.fullmatch(entry))]
    return [os.path.join(parent, entry) for _, entry in sorted(found)]


def _exchange(a: str, b: str) -> bool:
    """Swap the paths A and B in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not available."""
    try:
        import ctypes
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    return renameat2(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0  # AT_FDCWD, RENAME_EXCHANGE


def build_dir(final_dir: str) -> str:
    """A new empty folder beside FINAL_DIR to build its next version in, named `.NAME.tmp-*` (what tidy_dir
    removes when a killed build leaves it), with the permissions of a shared folder (mkdtemp's are private)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=f".{name}.tmp-")
    os.chmod(tmp, 0o777 & ~UMASK)
    return tmp


def replace_dir(tmp_dir: str, final_dir: str) -> None:
    """Put the finished folder TMP_DIR in place as FINAL_DIR in one atomic step: TMP_DIR becomes the version
    `.NAME.v-STAMP-PID` beside FINAL_DIR, and FINAL_DIR a relative symbolic link to it, swapped in by one
    rename. A reader resolving FINAL_DIR, or a kill at any moment, finds the old index or the new one, never
    neither and never a mix. The version FINAL_DIR pointed to before is removed afterwards (a reader holding
    its files open keeps them; one opening it just then retries: index.layout.open_index). A FINAL_DIR that is
    a real folder (built before versions) is exchanged with the link in one step where Linux allows it
    (renameat2), else moved aside first (a kill in between leaves no FINAL_DIR, which tidy_dir repairs)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    version = os.path.join(parent, f".{name}.v-{time.time_ns()}-{os.getpid()}")
    os.replace(tmp_dir, version)
    _point(final_dir, version)


def _point(final_dir: str, version: str) -> None:
    """Make FINAL_DIR a link to VERSION (beside it) in one rename; remove the version it pointed to before."""
    final_dir = os.path.abspath(final_dir)  # `site/`: a trailing slash would look through the link
    parent, name = os.path.split(final_dir)
    link = os.path.join(parent, f".{name}.link-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.remove(link)
    os.symlink(os.path.basename(version), link)
    before = os.path.realpath(final_dir) if os.path.islink(final_dir) else None
    if os.path.isdir(final_dir) and not os.path.islink(final_dir):  # a real folder from an older build
        before = os.path.join(parent, f".{name}.v-0-{os.getpid()}")
        if _exchange(link, final_dir):
            os.replace(link, before)  # LINK now names the old folder
        else:
            os.replace(final_dir, before)
            os.replace(link, final_dir)
    else:
        os.replace(link, final_dir)
    if before and before != version and before in _versions(final_dir):  # never a folder that is not ours
        shutil.rmtree(before, ignore_errors=True)


def tidy_dir(final_dir: str) -> tuple[list[str], int]:
    """Repair FINAL_DIR and remove what killed builds left beside it; call it holding the build's lock
    (`locked`), so that nothing removed is in use by a build. A missing FINAL_DIR (or a link to nothing) is
    set back to the newest version, else to `NAME.old` (left by a kill between the two renames of the swap
    before versions); then temporary folders `.NAME.tmp-*`, link files `.NAME.link-*`, versions FINAL_DIR
    does not point to and `NAME.old` are removed. Returns (paths removed, their size in bytes)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    if not os.path.isdir(parent):
        return [], 0
    old = os.path.join(parent, name + ".old")
    if not os.path.exists(final_dir):  # missing, or a link to a version that is gone
        versions = _versions(final_dir)
        restore = versions[-1] if versions else old if os.path.isdir(old) else None
        if restore:
            if restore == old:
                replace_dir(old, final_dir)
            else:
                _point(final_dir, restore)
            print(f"{final_dir}: restored from {os.path.basename(restore)} (a build was killed while swapping)",
                  file=sys.stderr)
    current = os.path.realpath(final_dir)
    leftovers = [os.path.join(parent, e) for e in os.listdir(parent)
                 if e.startswith((f".{name}.tmp-", f".{name}.link-")) or e == name + ".old"]
    leftovers += [v for v in _versions(final_dir) if v != current]
    size = 0
    for path in leftovers:
        if os.path.islink(path) or not os.path.isdir(path):
            size += os.lstat(path).st_size
            os.remove(path)
        else:
            size += sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(path) for f in files)
            shutil.rmtree(path, ignore_errors=True)
    if leftovers:
        print(f"{final_dir}: removed {len(leftovers)} leftover{'s' * (len(leftovers) > 1)} of killed builds "
              f"({size / 2**20:.1f} MB)", file=sys.stderr)
    return leftovers, size


@contextlib.contextmanager
def locked(path: str, busy: str) -> Iterator[None]:
    """Hold an exclusive lock on PATH for the block. PATH is a folder (locked itself) or a lock file, made
    when missing, that holds the holder's pid. When another process holds it, say BUSY (with its pid) and
    wait for it. The lock (flock) goes with its process: a killed holder never leaves a stale lock."""
    folder = os.path.isdir(path)
    fd = os.open(path, os.O_RDONLY if folder else os.O_RDWR | os.O_CREAT, 0o666 & ~UMASK)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = "" if folder else os.pread(fd, 20, 0).decode("ascii", "replace").strip()
            print(f"{busy}{f' (pid {pid})' if pid else ''}; waiting for it to finish", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        if not folder:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


def sha256_file(path: str) -> str:
    """The file's sha256. A file of 64 MiB or more is hashed once per process while its inode, size and
    modification time stay the same (a run fingerprints a multi-GB KB or corpus in several places); smaller
    ones every time (cheap, and safe from a rewrite within the clock's granularity). A folder (a `datasets`
    save_to_disk folder): the sha256 of its files' relative paths and checksums, in name order."""
    if os.path.isdir(path):
        h = hashlib.sha256()
        for folder, dirs, names in sorted(os.walk(path)):
            dirs.sort()
            for name in sorted(names):
                file = os.path.join(folder, name)
                h.update(f"{os.path.relpath(file, path)}\t{sha256_file(file)}\n".encode())
        return h.hexdigest()
    st = os.stat(path)
    if st.st_size < 64 << 20:
        return _sha256.__wrapped__(path)
    return _sha256(os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256(path: str, *identity: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()



class HashingReader(io.RawIOBase):
    """A raw binary file that hashes (sha256) and counts the bytes read through it from the file F: a file's
    checksum and progress in the same pass that reads its content (textio.block_lines)."""

    def __init__(self, f: io.RawIOBase):
        self.f, self.sha, self.done = f, hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int | None:
        n = self.f.readinto(b)
        if n:
            self.sha.update(memoryview(b)[:n])
            self.done += n
        return n

    def hexdigest(self) -> str:
        """The sha256 of the bytes read so far."""
        return self.sha.hexdigest()
