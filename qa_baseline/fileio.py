"""File helpers shared by every module: compressed/BOM-aware reading, atomic writes, checksums."""
import bz2
import contextlib
import gzip
import hashlib
import json
import os
import shutil
import tempfile

from .errors import UserError


def open_text(path, encoding="utf-8-sig"):
    """Open a text file for reading; .gz and .bz2 (also multistream) are decompressed on the fly.

    utf-8-sig accepts UTF-8 with or without a byte-order mark."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding=encoding)
    if path.endswith(".bz2"):
        return bz2.open(path, "rt", encoding=encoding)
    return open(path, encoding=encoding, newline="")


def decoding_error(path, err):
    return UserError(f"{path}: not valid UTF-8 (byte {err.start}: {err.reason}); convert the file to UTF-8")


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
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def write_json(path, obj):
    with atomic_write(path) as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


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
