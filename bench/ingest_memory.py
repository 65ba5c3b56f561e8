"""Peak memory of MediaWiki XML dump ingestion (qa_baseline.corpus.read_corpus with the `wikipedia` reader) as
the dump grows: it must stay flat.

Dumps of 1x, 4x, 16x ... the real enwiki slice (../shared/data/corpora/en/enwiki-pages-articles-slice.xml.bz2)
are synthesised by repeating its <page> elements with fresh page ids (id + copy * 10^8), bz2-compressed like
real dumps, into a temp folder. Each is read in its own child process with the corpus config
{"name": "x", "lang": "en", "sources": [{"reader": "wikipedia", "file": DUMP}]} and Problems("skip"), counting
passages; peak RSS is the child's ru_maxrss (os.wait4). A "floor" child does the same imports and reads nothing.
Target: peak RSS of the largest dump <= 1.1x that of the 1x dump (memory does not grow with dump size).

Run: .venv/bin/python bench/ingest_memory.py [--sizes 1,4,16] [--repeats 3] [--keep DIR]
"""
import argparse
import bz2
import json
import os
import re
import shutil
import sys
import tempfile

from _common import PYTHON, data_dir, load_info, median, run_child, spread, table, verdict

READ = """import json, sys, time
from qa_baseline.corpus import read_corpus
from qa_baseline.errors import Problems
import qa_baseline.corpus.wikipedia
t0 = time.perf_counter()
n = 0
problems = Problems("skip")
if sys.argv[1] != "-":
    cfg = {"name": "x", "lang": "en", "sources": [{"reader": "wikipedia", "file": sys.argv[1]}]}
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,4,16", help="dump sizes as multiples of the slice (default 1,4,16)")
    ap.add_argument("--repeats", type=int, default=3, help="children per size; medians reported (default 3)")
    ap.add_argument("--keep", help="write the synthetic dumps here and keep them (default: a temp folder, removed)")
    args = ap.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    src = data_dir("corpora", "en", "enwiki-pages-articles-slice.xml.bz2")
    try:
        import qa_baseline.corpus.wikipedia  # noqa: F401
    except Exception as e:  # the reader is still being written
        sys.exit(f"bench: qa_baseline/corpus/wikipedia.py cannot be imported yet ({type(e).__name__}: {e})")

    work = args.keep or tempfile.mkdtemp(prefix="bench-ingest-")
    os.makedirs(work, exist_ok=True)
    try:
        dumps = {}
        for m in sizes:
            path = os.path.join(work, f"enwiki-x{m}.xml.bz2")
            pages, chars = synthesise(src, m, path)
            dumps[m] = (path, pages, chars, os.path.getsize(path))
            print(f"  synthesised {m}x: {pages} pages, {chars / 1e6:.0f} M characters, "
                  f"{dumps[m][3] / 1e6:.1f} MB bz2", file=sys.stderr, flush=True)
        print(f"source: {os.path.basename(src)}; {args.repeats} children per size; {load_info()}", flush=True)

        floor = [run_child([PYTHON, "-c", READ, "-"]).rss_mb for _ in range(args.repeats)]
        rows, rss_by_size = [["floor (imports only)", "-", "-", "-", "-", "-", spread(floor, "{:.0f}")]], {}
        for m in sizes:
            path, pages, chars, size = dumps[m]
            runs = [run_child([PYTHON, "-c", READ, path]) for _ in range(args.repeats)]
            results = [json.loads(c.last_line()) for c in runs]
            if len({r["passages"] for r in results}) != 1:
                sys.exit(f"bench: passage counts differ between runs of {m}x: {[r['passages'] for r in results]}")
            n, secs = results[0]["passages"], median([r["seconds"] for r in results])
            rss_by_size[m] = median([c.rss_mb for c in runs])
            rows.append([f"{m}x", f"{pages:,}", f"{n:,}", f"{chars / 1e6:.0f} / {size / 1e6:.1f}",
                         f"{secs:.1f}", f"{n / secs:,.0f}", spread([c.rss_mb for c in runs], "{:.0f}")])
        print()
        table(["dump", "pages", "passages", "input M chars xml / MB bz2", "read s", "passages/s",
               "peak RSS MB median (min-max)"], rows)
        lo, hi = sizes[0], sizes[-1]
        growth = (rss_by_size[hi] - rss_by_size[lo]) / max(dumps[hi][2] - dumps[lo][2], 1) * 1e6
        print(f"\npeak RSS above the floor: {lo}x {rss_by_size[lo] - median(floor):.0f} MB, "
              f"{hi}x {rss_by_size[hi] - median(floor):.0f} MB; growth {growth:.3f} MB per extra MB of XML")
        verdict(f"peak RSS {hi}x / {lo}x dump", rss_by_size[hi] / rss_by_size[lo], 1.1, higher_is_better=False)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
