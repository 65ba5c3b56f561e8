"""IJCNLP-2017 Task 5 multi-choice exam QA (mcqa-en, mcqa-zh), with the published baseline.

Input: CSV `id,"question","A","B","C","D"[,correct]` (UTF-8 with or without BOM; quoted fields may hold
newlines; an optional header row whose first field is `id` is skipped). Output: `TEAMID_en.csv` /
`TEAMID_zh.csv` with lines `id,X` (X one of A, B, C, D), every test id exactly once. Scored by accuracy
per file, per language and over all questions (`python -m qa_baseline.score --task mcqa-en|mcqa-zh|mcqa-all`).

The baseline rule: for each option, query = question + " " + option; search the index; score(q, a) = the
mean of the scores of the top n (n <= 3) hits, 0 when nothing is found; the highest-scoring option wins.
Ties go to the earliest option (A before B before C before D)."""
import csv
import json
import os
from collections import namedtuple

from tqdm import tqdm

from ..errors import UserError, at
from ..fileio import atomic_write, text_lines
from ..metrics import correct, summarise
from ..validate import SubmissionFile

LABELS = "ABCD"
Question = namedtuple("Question", "id question options gold line")
CHUNK = 250  # questions per batched search call


def add_arguments(ap):
    ap.add_argument("--n", type=int, help="score an option by the mean of its top-n hits (default 3)")
    ap.add_argument("--team", help="team id in the submission file name TEAMID_LANG.csv (default from config)")


def read(path):
    """Questions of an IJCNLP-2017 T5 CSV file, validated; errors name the file and line."""
    questions, first_line, has_gold = [], {}, None
    reader = csv.reader((text for _, text in text_lines(path)), strict=True)
    end = 0
    try:
        for rec in reader:
            line, end = end + 1, reader.line_num
            if not rec or (not questions and rec[0].strip().lower() == "id"):
                continue
            if len(rec) not in (6, 7):
                raise at(path, line, f"expected 6 or 7 fields (id,question,A,B,C,D[,correct]), found {len(rec)}")
            qid, text, *options = (x.strip() for x in rec[:6])
            gold = rec[6].strip().upper() if len(rec) == 7 else ""
            if not qid:
                raise at(path, line, "empty id")
            if qid in first_line:
                raise at(path, line, f"duplicate id {qid!r} (first on line {first_line[qid]})")
            if not text:
                raise at(path, line, "empty question")
            for label, opt in zip(LABELS, options):
                if not opt:
                    raise at(path, line, f"empty option {label}")
            if gold and gold not in LABELS:
                raise at(path, line, f"gold label {gold!r} is not one of A, B, C, D")
            if has_gold is None:
                has_gold = bool(gold)
            elif has_gold != bool(gold):
                raise at(path, line, "gold label missing here but present on other lines, or the reverse")
            first_line[qid] = line
            questions.append(Question(qid, text, options, gold or None, line))
    except csv.Error as e:
        raise at(path, end + 1, f"malformed CSV ({e})") from None
    if not questions:
        raise UserError(f"{path}: no questions")
    return questions


def option_score(hits, n):
    """The published rule: mean score of the top n hits, 0.0 when there are none."""
    top = [score for _, score in hits[:n]]
    return sum(top) / len(top) if top else 0.0


def choose(scores):
    """Index of the best option; the earliest wins a tie."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def write_submission(path, answers):
    """`id,X` lines, written atomically; answers maps id -> label, in question order."""
    with atomic_write(path) as f:
        for qid, label in answers.items():
            f.write(f"{qid},{label}\n")


def read_gold(path):
    questions = read(path)
    if not questions[0].gold:
        raise UserError(f"{path}: no gold labels (the 7th field, correct); pass the answer key as --gold")
    return questions


def read_submission(path, questions, errors):
    """{id: label} of an `id,X` submission; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, [q.id for q in questions])
    answers = {}
    for n, text in sub.lines():
        fields = sub.fields(n, text, 2, "id,X", sep=",")
        if fields and sub.take(n, fields[0]):
            if fields[1] in LABELS:
                answers[fields[0]] = fields[1]
            else:
                sub.error(n, f"answer {fields[1]!r} is not one of A, B, C, D", "write one capital letter A-D")
    sub.missing()
    return answers


def score(questions, answers):
    return summarise({"accuracy": [correct(answers.get(q.id), q.gold) for q in questions]})


def score_files(files):
    """Accuracy over all questions, per language when there are several, per file when there are several;
    FILES: (lang, name, questions, answers) tuples."""
    pooled, by_lang, by_file = [], {}, {}
    for lang, name, questions, answers in files:
        values = score(questions, answers)["per_question"]["accuracy"]
        pooled += values
        by_lang.setdefault(f"accuracy_{lang}", []).extend(values)
        by_file[f"accuracy[{name}]"] = values
    return summarise({"accuracy": pooled, **(by_lang if len(by_lang) > 1 else {}),
                      **(by_file if len(by_file) > 1 else {})})


def run(questions, retriever, cfg, args, out_dir):
    n = args.n or cfg.get("n", 3)
    if n < 1:
        raise UserError(f"--n must be at least 1, not {n}")
    answers, trace = {}, []
    with tqdm(total=len(questions), desc="questions", unit=" q", disable=None) as bar:
        for start in range(0, len(questions), CHUNK):
            chunk = questions[start:start + CHUNK]
            hits = retriever.search([f"{q.question} {opt}" for q in chunk for opt in q.options], k=n)
            for i, q in enumerate(chunk):
                option_hits = hits[4 * i:4 * i + 4]
                scores = [option_score(h, n) for h in option_hits]
                answers[q.id] = LABELS[choose(scores)]
                if args.trace:
                    trace.append({"id": q.id, "question": q.question, "answer": answers[q.id], "gold": q.gold,
                                  "options": [{"label": label, "text": opt, "score": s,
                                               "hits": [{"docid": d, "score": sc, "title": retriever.title(d)}
                                                        for d, sc in h]}
                                              for label, opt, s, h in zip(LABELS, q.options, scores, option_hits)]})
            bar.update(len(chunk))
    team = args.team or cfg.get("team_id", "qa_baseline")
    submission = os.path.join(out_dir, f"{team}_{cfg['lang']}.csv")
    write_submission(submission, answers)
    files = {"submission": submission}
    if args.trace:
        files["trace"] = os.path.join(out_dir, "trace.jsonl")
        with atomic_write(files["trace"]) as f:
            for t in trace:
                f.write(json.dumps(t, ensure_ascii=False) + "\n")
    scored = score(questions, answers) if questions[0].gold else {"metrics": {}, "per_question": {}}
    return {"questions": len(questions), **scored, "params": {"n": n}, "files": files}
