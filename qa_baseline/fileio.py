"""File helpers shared by every module: compressed/BOM-aware reading, atomic writes, checksums."""
import bz2
import contextlib
import gzip
import hashlib
import json
import os
import shutil
import tempfile
import zlib

from .errors import UserError, at


COMPRESSED = (".gz", ".bz2")
READ_ERRORS = (OSError, EOFError, zlib.error)  # gzip.BadGzipFile is an OSError


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


def open_binary(path):
    """Open a file for reading bytes; .gz and .bz2 (also multistream) are decompressed on the fly."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return bz2.open(path, "rb") if path.endswith(".bz2") else open(path, "rb")


def text_lines(path):
    """(line number, text) of each line of a UTF-8 file (a byte-order mark is accepted), decoded line by line
    so that an invalid byte or a damaged compressed file is a UserError naming the right line."""
    n = 0
    try:
        with open_binary(path) as f:
            for n, raw in enumerate(f, 1):
                try:
                    yield n, raw.decode("utf-8-sig" if n == 1 else "utf-8")
                except UnicodeDecodeError as e:
                    raise at(path, n, f"not valid UTF-8 (byte {e.start + 1} of the line: {e.reason}); "
                                      "convert the file to UTF-8") from None
    except READ_ERRORS as e:
        raise at(path, n + 1, f"cannot read the file ({e})") from None


def stem(path):
    """A file's name without folder, compression suffix and extension: runs/x.jsonl.gz -> x."""
    name = os.path.basename(path)
    for suffix in COMPRESSED:
        name = name.removesuffix(suffix)
    return os.path.splitext(name)[0]


@contextlib.contextmanager
def atomic_write(path, mode="w", encoding="utf-8"):
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


def write_json(path, obj):
    with atomic_write(path) as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def read_json(path):
    """A JSON object from PATH, or {} when the file is missing, unreadable or not an object."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else {}
    except (OSError, ValueError):
        return {}


def replace_dir(tmp_dir, final_dir):
    """Move a finished folder into place, replacing an older one as late as possible."""
    old = None
    if os.path.exists(final_dir):
        old = final_dir + ".old"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final_dir, old)
    os.replace(tmp_dir, final_dir)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def sha256_file(path, chunk=1 << 20):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()
