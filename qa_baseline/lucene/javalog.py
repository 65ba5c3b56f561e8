"""Anserini's log (log4j2 inside the JVM) into a file instead of the console.

Anserini logs ~35 INFO lines per IndexCollection run (its settings, counters, timings) to stdout. While
`java_log(PATH)` is active, log4j2 writes every line to PATH and only WARN and above to stderr; when the
block fails, the last lines of PATH are shown on stderr too. The JVM must already run (qa_baseline.lucene.jvm.start):
starting it here would fix its heap size before the caller chose one."""
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from xml.sax.saxutils import quoteattr

from ..core.hints import plural

PATTERN = "%d %-5p [%t] %C{2} (%F:%L) - %m%n"
TAIL = 20  # log lines shown when the block fails
# the loggers Anserini's own log4j2.xml quiets, kept quiet here
QUIET = {"org.apache.parquet": "error", "parquet": "error", "org.apache.hadoop": "warn", "ai.djl.util.Platform": "warn",
         "org.apache.lucene.store.MemorySegmentIndexInputProvider": "warn",
         "org.apache.lucene.internal.vectorization.PanamaVectorizationProvider": "warn"}


def config_xml(path: str) -> str:
    """A log4j2 configuration: everything to the file PATH, WARN and above also to stderr."""
    loggers = "".join(f'<Logger name="{name}" level="{level}"/>' for name, level in QUIET.items())
    return (f'<?xml version="1.0" encoding="UTF-8"?><Configuration><Appenders>'
            f'<File name="FILE" fileName={quoteattr(os.path.abspath(path))} append="false">'
            f'<PatternLayout pattern="{PATTERN}"/></File>'
            f'<Console name="STDERR" target="SYSTEM_ERR"><ThresholdFilter level="WARN"/>'
            f'<PatternLayout pattern="%-5p %C{{2}} - %m%n"/></Console></Appenders>'
            f'<Loggers>{loggers}<Root level="info"><AppenderRef ref="FILE"/><AppenderRef ref="STDERR"/></Root>'
            f'</Loggers></Configuration>')


@contextlib.contextmanager
def java_log(path: str) -> Iterator[str]:
    """Route log4j2 to the file PATH for the block, then restore the configuration it had."""
    from jnius import autoclass, cast
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd, xml = tempfile.mkstemp(prefix="qa-baseline-log4j2-", suffix=".xml")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(config_xml(path))
    # log4j2 keeps one context per class loader: take the one of Anserini's classes (calls made through pyjnius
    # have no Java caller and would get another)
    loader = autoclass("java.lang.Class").forName("io.anserini.index.IndexCollection").getClassLoader()
    ctx = cast("org.apache.logging.log4j.core.LoggerContext",
               autoclass("org.apache.logging.log4j.LogManager").getContext(loader, False))
    old = ctx.getConfiguration().getConfigurationSource().getURI()  # Anserini's log4j2.xml in its jar
    ctx.setConfigLocation(autoclass("java.io.File")(xml).toURI())
    try:
        yield path
    except BaseException:
        _restore(ctx, old)
        show_tail(path)
        raise
    else:
        _restore(ctx, old)
    finally:
        os.remove(xml)


def _restore(ctx, old):
    """Back to the previous configuration (this also closes and flushes the file appender)."""
    if old is not None:
        ctx.setConfigLocation(old)
    else:  # it had log4j2's default configuration
        from jnius import autoclass
        ctx.setConfiguration(autoclass("org.apache.logging.log4j.core.config.DefaultConfiguration")())


def show_tail(path: str, n: int = TAIL) -> None:
    """The last N lines of the log on stderr (a failed build's reason is usually there)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()[-n:]
    except OSError:
        return
    if lines:
        print(f"last {plural(len(lines), 'line')} of the Java log {path}:\n"
              + "".join("  " + line for line in lines).rstrip(), file=sys.stderr)
