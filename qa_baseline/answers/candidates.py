"""The Parser: passages of one language parsed once (cached by passage id, kept in the corpus's parse store)
into the Sentences the mention rules derive (mentions.py), and questions into their keys; many at once are
parsed by worker processes, one per core."""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..core.config import CorpusConfig
from ..core.errors import UserError
from ..core.process import THREADS, deferred_interrupt, threads
from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from . import parse_store, spacy_models
from .mentions import QuestionKeys, Sentence, parse_doc, question_keys, rules_version, sentences_from_bytes, \
    sentences_to_bytes

MAX_CHARS = 4000  # a passage is parsed up to this many characters (the rest is not searched for answers)
R = TypeVar("R")
Parsed = tuple[bytes | None, bytes]  # a passage parsed: its Doc as stored (or None) and its Sentences as stored


class Parser:
    """Parses passages of one language into Sentences (parse_doc), each passage id once per Parser.

    With CORPUS (a corpus config) the parses are kept in the corpus's parse store (parse_store.py): a passage an
    earlier run parsed is loaded from it (the Sentences today's rules derived, or else its Doc, derived again
    and the Sentences written back), a new one is parsed and written to it with its Sentences, WRITE at a time;
    questions likewise (ask); the cache then keeps the Sentences of the CACHED passages used last (the store
    holds the rest). Without CORPUS every passage is parsed and the cache keeps them all. The spaCy pipeline is
    loaded only when something must be parsed or a Doc decoded.
    Passages are parsed in batches of at most batch_size passages and BATCH_CHARS characters: GiNZA's memory
    grows with the tokens of a batch: on 80 ja-qac passages (half the longest), batches of 32 peaked at 1.7 GB,
    of 8 (8,000 characters) at 1.0 GB, of 4 (3,000) at 0.8 GB, all in the same CPU time (as are batches sorted
    by length: 20.2 s against 20.1 s unsorted).
    POOL_MIN passages or questions or more are parsed by WORKERS processes (default QA_BASELINE_THREADS, else
    the cores; no more than half the memory holds: Workers.affordable), fewer in this process; inside `parallel()` the workers started serve the whole
    block. Either way a passage's parse is the same (the test suite compares them)."""

    BATCH_CHARS = 3000
    CACHED = 4096  # more than the passages of any one question (--passages)
    WRITE = 32
    POOL_MIN = 64  # a worker takes ~4 s of CPU to start (spaCy and GiNZA loaded), a ja-qac passage ~0.15 s
    QUESTIONS = 64  # questions per batch (a worker's task)

    def __init__(self, lang: str, model: str | None = None, max_chars: int = MAX_CHARS, batch_size: int = 4,
                 corpus: CorpusConfig | None = None, workers: int | None = None) -> None:
        self.lang, self.model = lang, model
        self.max_chars, self.batch_size = max_chars, batch_size
        name = model or spacy_models.MODELS[lang][0]
        self.store = parse_store.open_store(corpus, name, lang, lambda: self.nlp, rules_version()) if corpus else None
        self.cache: dict[str, tuple[Sentence, ...]] = parse_store.Recent(self.CACHED) if self.store else {}
        self.counts = {"parsed": 0, "loaded": 0}  # passages parsed, and loaded from the store
        self.asked: dict[str, QuestionKeys] = {}  # questions parsed ahead (ask)
        self.workers = min(workers or threads(), Workers.affordable())
        self.pool: Workers | None = None  # the workers of a `parallel()` block, once started
        self.keep_pool = False  # in a `parallel()` block

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded when first needed: a run whose passages and questions are all in the parse
        store never loads it (GiNZA takes ~300 MB and seconds to load), nor one whose workers parse them all."""
        return spacy_models.load(self.lang, self.model)

    @contextlib.contextmanager
    def parallel(self) -> Iterator[None]:
        """Run the block with the workers that its first parse of POOL_MIN or more starts kept for the rest of
        it (a run's passages, then its questions; `index --parse`'s every step), and ended at its end."""
        kept, self.keep_pool = self.keep_pool, True
        try:
            yield
        finally:
            self.keep_pool = kept
            if self.pool is not None and not kept:
                self.pool.close()
                self.pool = None

    def question(self, text: str) -> QuestionKeys:
        """The question's keys (mentions.question_keys): asked ahead (ask) or parsed now."""
        if text in self.asked:
            return self.asked[text]
        return question_keys(self.nlp(text), self.lang)

    def ask(self, texts: Iterable[str]) -> None:
        """Parse the questions TEXTS now, in batches (question() then finds them; with GiNZA faster than one by
        one), or load them from the parse store (`questions`), writing those parsed to it; forget those asked
        before."""
        todo = list(dict.fromkeys(t for t in texts if t))
        self.asked = {}
        if self.store is not None and todo:
            for text, data in self.store.questions(todo):
                keys, sides, marker = json.loads(data)
                self.asked[text] = (tuple(keys), sides, marker)
        todo = [t for t in todo if t not in self.asked]
        batches = [todo[i:i + self.QUESTIONS] for i in range(0, len(todo), self.QUESTIONS)]
        parsed: dict[str, QuestionKeys] = {}
        self._map(functools.partial(parse_questions, self.lang, self.model), batches,
                  lambda i, keys: parsed.update(zip(batches[i], keys)))
        self.asked.update(parsed)
        if parsed:
            self._keep([], [(t, json.dumps([list(k), s, m], ensure_ascii=False)) for t, (k, s, m) in parsed.items()])

    def parse(self, passages: Iterable[Any], progress: bool = False) -> dict[str, tuple[Sentence, ...]]:
        """Parse (or load from the store) the passages not in the cache (PASSAGES: objects with docid and text);
        returns the cache."""
        todo: dict[str, str] = {}
        for p in passages:
            if p.docid in self.cache:
                if self.store is not None:
                    self.cache.touch(p.docid)  # type: ignore[attr-defined]  # a parse_store.Recent
            elif p.docid not in todo:
                todo[p.docid] = p.text[:self.max_chars]
        with self._bar(len(todo), progress) as bar:
            if self.store is not None:
                for docid, data in self.store.derived(todo):  # what today's rules derived before
                    self.cache[docid] = sentences_from_bytes(data)
                    del todo[docid]
                    self.counts["loaded"] += 1
                    bar.update()
                derived: list[tuple[str, str, bytes | None, bytes | None]] = []
                for docid, blob in self.store.get(todo):  # parsed before, derived by other rules or not at all
                    self.cache[docid] = derive(parse_store.from_blob(blob, self.nlp.vocab), self.lang)
                    derived.append((docid, todo.pop(docid), None, sentences_to_bytes(self.cache[docid])))
                    self.counts["loaded"] += 1
                    bar.update()
                if derived:
                    self._keep(derived)
                bar.set_postfix_str(f"{self.counts['loaded']:,} from the parse store", refresh=False)
            self._parsed(todo, bar, keep=True)
        return self.cache

    def _bar(self, total: int, progress: bool) -> Any:
        return tqdm(total=total, desc=f"parsing passages ({self.lang})", unit=" passages", mininterval=1.0,
                    disable=None if progress else True)

    def _keep(self, rows: list[tuple[str, str, bytes | None, bytes | None]],
              questions: Sequence[tuple[str, str]] = ()) -> None:
        """Write ROWS and QUESTIONS to the store (parse_store.ParseStore.put); when it refuses (it holds another
        parser's parses now, or its disk is full) the run reads and writes it no more."""
        if self.store is not None and not self.store.put(rows, questions):
            self.store = None

    def fill(self, passages: Iterable[Any], progress: bool = False, bar: Any = None) -> int:
        """Parse into the store the passages it lacks, keeping nothing in memory (`index --parse`, and a run's
        passages when more than CACHED); returns how many were parsed. BAR: a progress bar to advance by each
        passage, held or parsed (instead of a bar of its own, over those parsed)."""
        todo = {p.docid: p.text[:self.max_chars] for p in passages}
        held = self.store.held(todo) if self.store is not None else set()
        todo = {d: t for d, t in todo.items() if d not in held}
        if bar is not None:
            bar.update(len(held))
            self._parsed(todo, bar, keep=False)
            return len(todo)
        with self._bar(len(todo), progress) as own:
            self._parsed(todo, own, keep=False)
        return len(todo)

    def _parsed(self, todo: dict[str, str], bar: Any, keep: bool) -> None:
        """Parse TODO ({id: text}) in batches (BATCH_SIZE passages, BATCH_CHARS characters), each Doc (with a
        store) and its Sentences written to the store, WRITE passages per transaction, the Sentences kept in the
        cache with KEEP; BAR advanced by each passage."""
        ids: list[list[str]] = []
        for docid, text in todo.items():
            if not ids or len(ids[-1]) >= self.batch_size or \
                    sum(len(todo[d]) for d in ids[-1]) + len(text) > self.BATCH_CHARS:
                ids.append([])
            ids[-1].append(docid)
        pending: list[tuple[str, str, bytes | None, bytes | None]] = []

        def done(i: int, parsed: list[Parsed]) -> None:
            for docid, (blob, data) in zip(ids[i], parsed):
                self.counts["parsed"] += 1
                if keep:
                    self.cache[docid] = sentences_from_bytes(data)
                if self.store is not None:
                    pending.append((docid, todo[docid], blob, data))
            bar.update(len(parsed))
            if len(pending) >= self.WRITE:
                self._keep(pending)
                pending.clear()

        self._map(functools.partial(parse_passages, self.lang, self.model, self.store is not None),
                  [[todo[d] for d in batch] for batch in ids], done)
        if pending:
            self._keep(pending)

    def _map(self, work: Callable[[list[str]], list[R]], batches: list[list[str]],
             done: Callable[[int, list[R]], None]) -> None:
        """DONE(i, WORK(BATCHES[i])) for each batch in order: in the workers when they run already (`parallel`)
        or the batches hold POOL_MIN texts or more and WORKERS is 2 or more, else in this process. WORK: a
        picklable call (a functools.partial of a function of this module)."""
        if self.pool is None and (self.workers < 2 or sum(map(len, batches)) < self.POOL_MIN):
            for i, batch in enumerate(batches):
                done(i, work(batch))
            return
        pool = self.pool or Workers(min(self.workers, len(batches)), self.lang, self.model)
        if self.keep_pool:
            self.pool = pool
        try:
            with contextlib.closing(pool.map(work, batches)) as results:
                for i, result in enumerate(results):
                    done(i, result)
        finally:
            if pool is not self.pool:
                pool.close()


def derive(doc: Any, lang: str) -> tuple[Sentence, ...]:
    """parse_doc(DOC), the Doc's noun chunks found once: spaCy finds them in the whole Doc each time they are
    asked for (Doc.noun_chunks), and the rules ask once per sentence."""
    if doc.noun_chunks_iterator is not None:
        find, found = doc.noun_chunks_iterator, list[list[Any]]()

        def once(d: Any) -> list[Any]:
            if not found:
                found.append(list(find(d)))
            return found[0]  # type: ignore[no-any-return]
        doc.noun_chunks_iterator = once
    return parse_doc(doc, lang)


def parse_passages(lang: str, model: str | None, blobs: bool, texts: list[str]) -> list[Parsed]:
    """Parse TEXTS as one batch: per text its Doc as the parse store keeps it (with BLOBS, else None) and its
    Sentences as stored (mentions.sentences_to_bytes): a worker's task, or the run's own when it parses alone."""
    nlp = spacy_models.load(lang, model)
    return [(parse_store.to_blob(doc) if blobs else None, sentences_to_bytes(derive(doc, lang)))
            for doc in nlp.pipe(texts, batch_size=len(texts))]


def parse_questions(lang: str, model: str | None, texts: list[str]) -> list[QuestionKeys]:
    """The keys of each question of TEXTS (mentions.question_keys), parsed as one batch."""
    return [question_keys(doc, lang) for doc in spacy_models.load(lang, model).pipe(texts, batch_size=len(texts))]


class Workers:
    """N processes that parse (spawned: forking a run whose JVM threads run is not safe), each loading the
    spaCy pipeline at its first task, its BLAS on one thread (_start_worker). Ctrl-C is the run's alone (the
    workers ignore it): the batches queued are dropped, those running end (a second or so), the workers exit,
    then KeyboardInterrupt is raised (core.process.deferred_interrupt: never inside the pool's locks, where it
    hangs it). A worker that dies (killed: out of memory?) is one error line. Spawned workers import the
    main module again, so a script that parses many passages keeps its code under `if __name__ == "__main__":`
    (the project's commands do)."""

    AHEAD = 2  # batches queued per worker
    MEMORY = 1 << 30  # bytes a worker may take: a GiNZA worker peaked at 0.7 GB on ja-qac (bench/qac_speed.py)

    @classmethod
    def affordable(cls) -> int:
        """The workers that half of the machine's memory holds, MEMORY each (at least one)."""
        return max(1, os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2 // cls.MEMORY)

    def __init__(self, n: int, lang: str, model: str | None) -> None:
        self.n, self.model = n, model or spacy_models.MODELS[lang][0]
        self.executor = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_start_worker)

    def map(self, work: Callable[[list[str]], R], batches: Iterable[list[str]]) -> Generator[R, None, None]:
        """WORK(batch) of each of BATCHES, in order, AHEAD batches per worker queued at a time."""
        todo, running = iter(batches), deque[Future[R]]()
        with deferred_interrupt() as stop:
            try:
                while not stop.is_set():
                    running.extend(self.executor.submit(work, batch)
                                   for batch in itertools.islice(todo, self.AHEAD * self.n - len(running)))
                    if not running:
                        break
                    result = running.popleft().result()
                    if not stop.is_set():
                        yield result
            except BrokenProcessPool:
                if not stop.is_set():  # else a worker still starting took the Ctrl-C meant for the run
                    raise UserError(f"a worker process parsing with {self.model} ended abruptly (killed, out of "
                                    "memory, or started by a script whose code is not under `if __name__ == "
                                    f"'__main__':`) (fix: {THREADS}=1 parses in the run's own process)") from None
            finally:
                for future in running:
                    future.cancel()
                if stop.is_set():
                    self.close()

    def close(self) -> None:
        """End the workers, after the batches they are parsing."""
        with deferred_interrupt():
            self.executor.shutdown(wait=True, cancel_futures=True)


def _start_worker() -> None:
    """A worker's start: Ctrl-C ignored (the run ends its workers) and its BLAS (numpy's, spacy_models) on one
    thread (threadpoolctl, installed with scikit-learn): two threads in each of two workers on two cores took
    17% more CPU for the same parses."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ImportError):
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)
