"""Peak memory of MediaWiki XML dump ingestion (qa_baseline.corpus.read_corpus with the `wikipedia` reader) as
the dump grows: it must stay flat.

Dumps of 1x, 4x, 16x ... the real enwiki slice (../shared/data/corpora/en/enwiki-pages-articles-slice.xml.bz2)
are synthesised by repeating its <page> elements with fresh page ids (id + copy * 10^8), bz2-compressed like
real dumps, into a temp folder. Each is read in its own child process with the corpus config
{"name": "x", "lang": "en", "sources": [{"reader": "wikipedia", "file": DUMP}]} and Problems("skip"), counting
passages; peak RSS is the child's ru_maxrss (os.wait4). A "floor" child does the same imports and reads nothing.
Target: peak RSS of the largest dump <= 1.1x that of the 1x dump (memory does not grow with dump size).

--parquet: the same for the `parquet` reader (a Parquet file in the layout of the Wikipedia datasets: id, url,
title, text). 1x is --rows generated articles (default 5,000; 8 paragraphs of 60 words drawn from a fixed
vocabulary by a seeded generator, about 3.3 kB of text each), written with pyarrow in row groups of 256 rows
(Snappy); Nx is N times as many rows. Needs the hf extra, not the shared data.

Run: .venv/bin/python bench/ingest_memory.py [--parquet [--rows N]] [--sizes 1,4,16] [--repeats 3] [--keep DIR]
"""
import argparse
import bz2
import json
import os
import re
import shutil
import sys
import tempfile

from _common import PYTHON, data_dir, load_info, median, result_line, run_child, spread, table, verdict

READ = """import json, sys, time
from qa_baseline.corpus import read_corpus
from qa_baseline.core.errors import Problems
import qa_baseline.corpus.wikipedia
if sys.argv[2] == "parquet":
    import qa_baseline.corpus.parquet, pyarrow.parquet
t0 = time.perf_counter()
n = 0
problems = Problems("skip")
if sys.argv[1] != "-":
    from qa_baseline.core.config import CorpusConfig, Source
    cfg = CorpusConfig("x", "en", (Source(sys.argv[2], sys.argv[1], sys.argv[1]),), "default", "x", "")
    for p in read_corpus(cfg, problems):
        n += 1
print(json.dumps({"passages": n, "skipped": problems.count, "seconds": time.perf_counter() - t0}))
"""
PAGE = re.compile(r"[ \t]*<page>.*?</page>[ \t]*\n?", re.S)
PAGE_ID = re.compile(r"(<ns>[^<]*</ns>\s*<id>)(\d+)(</id>)")


def synthesise(src, copies, path):
    """SRC's pages COPIES times, each copy with its page ids shifted by copy * 10^8; returns (pages, bytes)."""
    with bz2.open(src, "rt", encoding="utf-8") as f:
        text = f.read()
    pages = PAGE.findall(text)
    head, tail = text[:text.index(pages[0])], text[text.rindex(pages[-1]) + len(pages[-1]):]
    written = 0
    with bz2.open(path, "wt", encoding="utf-8") as out:
        written += out.write(head)
        for c in range(copies):
            for page in pages:
                if c:
                    page = PAGE_ID.sub(lambda m: f"{m[1]}{int(m[2]) + c * 10 ** 8}{m[3]}", page, count=1)
                written += out.write(page)
        written += out.write(tail)
    return len(pages) * copies, written


def synthesise_parquet(rows, copies, path):
    """ROWS * COPIES generated articles as a Parquet file in row groups of 256 rows; returns (rows, characters).
    Written 1,024 rows at a time, so generating the largest file does not hold it in memory either."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(5000)] + ["the", "of", "and", "in", "a", "is", "was", "to"] * 200
    paragraphs = [" ".join(rng.choices(vocab, k=60)) + "." for _ in range(2000)]
    chars, total = 0, rows * copies
    with pq.ParquetWriter(path, pa.schema([(c, pa.string()) for c in ("id", "url", "title", "text")])) as w:
        for start in range(0, total, 1024):
            ids = [str(i + 1) for i in range(start, min(start + 1024, total))]
            texts = ["\n\n".join(paragraphs[(int(i) * 7 + k * 13) % len(paragraphs)] for k in range(8)) for i in ids]
            chars += sum(map(len, texts))
            w.write_table(pa.table({"id": ids, "url": [f"https://en.wikipedia.org/wiki?curid={i}" for i in ids],
                                    "title": [f"Article {i}" for i in ids], "text": texts}), row_group_size=256)
    return total, chars


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,4,16", help="dump sizes as multiples of the slice (default 1,4,16)")
    ap.add_argument("--repeats", type=int, default=3, help="children per size; medians reported (default 3)")
    ap.add_argument("--keep", help="write the synthetic dumps here and keep them (default: a temp folder, removed)")
    ap.add_argument("--parquet", action="store_true", help="measure the parquet reader on generated Parquet files")
    ap.add_argument("--rows", type=int, default=5000, help="--parquet: articles in the 1x file (default 5,000)")
    args = ap.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    reader = "parquet" if args.parquet else "wikipedia"
    src = "generated" if args.parquet else data_dir("corpora", "en", "enwiki-pages-articles-slice.xml.bz2")
    try:
        __import__(f"qa_baseline.corpus.{reader}")
        if args.parquet:
            import pyarrow.parquet  # noqa: F401
    except Exception as e:  # the reader is still being written, or the hf extra is not installed
        sys.exit(f"bench: the {reader} reader cannot be imported ({type(e).__name__}: {e})")

    work = args.keep or tempfile.mkdtemp(prefix="bench-ingest-")
    os.makedirs(work, exist_ok=True)
    try:
        dumps = {}
        kind = "parquet" if args.parquet else "bz2"
        for m in sizes:
            if args.parquet:
                path = os.path.join(work, f"wiki-x{m}.parquet")
                pages, chars = synthesise_parquet(args.rows, m, path)
            else:
                path = os.path.join(work, f"enwiki-x{m}.xml.bz2")
                pages, chars = synthesise(src, m, path)
            dumps[m] = (path, pages, chars, os.path.getsize(path))
            print(f"  synthesised {m}x: {pages} {'rows' if args.parquet else 'pages'}, {chars / 1e6:.0f} M "
                  f"characters, {dumps[m][3] / 1e6:.1f} MB {kind}", file=sys.stderr, flush=True)
        print(f"source: {os.path.basename(src)}; reader {reader}; {args.repeats} children per size; {load_info()}",
              flush=True)

        floor = [run_child([PYTHON, "-c", READ, "-", reader]).rss_mb for _ in range(args.repeats)]
        rows, rss_by_size = [["floor (imports only)", "-", "-", "-", "-", "-", spread(floor, "{:.0f}")]], {}
        figures = {"reader": reader, "floor_peak_rss_mb": median(floor)}
        for m in sizes:
            path, pages, chars, size = dumps[m]
            runs = [run_child([PYTHON, "-c", READ, path, reader]) for _ in range(args.repeats)]
            results = [json.loads(c.last_line()) for c in runs]
            if len({r["passages"] for r in results}) != 1:
                sys.exit(f"bench: passage counts differ between runs of {m}x: {[r['passages'] for r in results]}")
            n, secs = results[0]["passages"], median([r["seconds"] for r in results])
            rss_by_size[m] = median([c.rss_mb for c in runs])
            figures[f"x{m}"] = {"passages": n, "passages_per_s": n / secs, "peak_rss_mb": rss_by_size[m]}
            rows.append([f"{m}x", f"{pages:,}", f"{n:,}", f"{chars / 1e6:.0f} / {size / 1e6:.1f}",
                         f"{secs:.1f}", f"{n / secs:,.0f}", spread([c.rss_mb for c in runs], "{:.0f}")])
        print()
        table(["dump", "rows" if args.parquet else "pages", "passages",
               f"input M chars {'text' if args.parquet else 'xml'} / MB {kind}", "read s", "passages/s",
               "peak RSS MB median (min-max)"], rows)
        lo, hi = sizes[0], sizes[-1]
        growth = (rss_by_size[hi] - rss_by_size[lo]) / max(dumps[hi][2] - dumps[lo][2], 1) * 1e6
        print(f"\npeak RSS above the floor: {lo}x {rss_by_size[lo] - median(floor):.0f} MB, "
              f"{hi}x {rss_by_size[hi] - median(floor):.0f} MB; growth {growth:.3f} MB per extra MB of "
              f"{'text' if args.parquet else 'XML'}")
        verdict(f"peak RSS {hi}x / {lo}x dump", rss_by_size[hi] / rss_by_size[lo], 1.1, higher_is_better=False)
        result_line(figures, {f"peak_rss_x{hi}_vs_x{lo}": rss_by_size[hi] / rss_by_size[lo]})
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
