"""The README's speed table from bench/results.jsonl (what `make bench` appends: bench/collect.py): for each
bench (and its arguments), its latest line; one table row per verdict (value, target, met) and, for a bench
without verdicts, per ratio; with the commit, date, cores and load average of the line.

Prints the markdown table; with --write FILE, puts it in FILE between the lines `<!-- speed-table -->` and
`<!-- /speed-table -->` instead (written atomically; FILE must hold both markers); with --bench NAME (again for
more), only those benches' rows; --readme: README.md's table, of the README_BENCHES (tests/system/test_docs.py
checks that it is current).

Run: .venv/bin/python bench/speed_table.py [--results bench/results.jsonl] [--write FILE] [--bench NAME ...]
                                           [--readme]"""
import argparse
import json
import os
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(BENCH))

START, END = "<!-- speed-table -->", "<!-- /speed-table -->"
README_BENCHES = ("index_throughput", "mcqa_speed", "qac_speed", "dense_encode")  # what users wait for


def latest(path: str) -> list[dict]:
    """The last line of each (bench, arguments) in the JSON-lines file PATH, in the order of those lines."""
    found: dict[str, dict] = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                sys.exit(f"{path}:{n}: not a JSON object (fix: remove the line)")
            key = f"{row.get('bench')} {' '.join(row.get('args') or [])}".strip()
            found.pop(key, None)  # in the order of their latest lines
            found[key] = row
    return list(found.values())


def number(x) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.2f}" if abs(x) >= 0.1 else f"{x:.4f}"


def rows_of(row: dict) -> list[list[str]]:
    name = f"`{row.get('bench')}{' ' + ' '.join(row['args']) if row.get('args') else ''}`"
    when = [str(row.get("commit", "?")), str(row.get("date", "?"))[:10], str(row.get("cores", "?")),
            number(row["load"]) if isinstance(row.get("load"), (int, float)) else "?"]
    if "error" in row:
        return [[name, "did not finish", row["error"][:80], "", "", *when]]
    out = []
    for what, v in (row.get("verdicts") or {}).items():
        if isinstance(v, dict):
            unit = "" if v.get("unit") in ("", None) else v["unit"] if v["unit"] in ("x", "%") else " " + v["unit"]
            places = len(str(v.get("target")).partition(".")[2])  # 0.9999: the value to 4 places, not 1.00
            value = f"{v['value']:.{places}f}" if places > 2 and isinstance(v.get("value"), float) else \
                number(v.get("value"))
            out.append([name, what, value + unit, f"{v.get('op', '')} {v.get('target')}{unit}",
                        "yes" if v.get("met") else "**no**", *when])
        else:
            out.append([name, what, "", "", "yes" if v else "**no**", *when])
    if not out:
        out = [[name, what, number(v) + "x", "", "", *when] for what, v in (row.get("ratios") or {}).items()]
    return out


def block(text: str) -> str:
    """What TEXT holds between START and END (empty when it has no such block)."""
    start, end = text.find(START), text.find(END)
    return text[start + len(START):end].strip("\n") if 0 <= start < end else ""


def markdown(rows: list[dict]) -> str:
    header = ["bench", "figure", "value", "target", "met", "commit", "date", "cores", "load"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for row in rows for r in rows_of(row)]
    return "\n".join(lines) + "\n"


def rewrite(path: str, table: str) -> None:
    from qa_baseline.core.fileio import atomic_write
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"{path}: no `{START}` ... `{END}` block (fix: add both lines where the table goes)")
    with atomic_write(path) as f:
        f.write(text[:start + len(START)] + "\n" + table + text[end:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=os.path.join(BENCH, "results.jsonl"))
    ap.add_argument("--write", metavar="FILE", help="rewrite the speed-table block of FILE")
    ap.add_argument("--bench", action="append", metavar="NAME", help="only this bench's rows (again for more)")
    ap.add_argument("--readme", action="store_true", help="README.md's table: --write README.md, the README_BENCHES")
    args = ap.parse_args()
    if args.readme:
        args.write, args.bench = os.path.join(os.path.dirname(BENCH), "README.md"), list(README_BENCHES)
    if not os.path.isfile(args.results):
        sys.exit(f"{args.results}: missing (fix: make bench)")
    table = markdown([row for row in latest(args.results) if not args.bench or row.get("bench") in args.bench])
    if args.write:
        rewrite(args.write, table)
    else:
        sys.stdout.write(table)


if __name__ == "__main__":
    main()
