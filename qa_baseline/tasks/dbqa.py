"""NLPCC DBQA (document-based QA: answer sentence selection): reader, reranking pipeline, submission writer,
validator, scorer.

Data: `question\\tsentence\\tlabel` lines (UTF-8), label 1 when the sentence holds an answer, else 0; test files
have no label (`question\\tsentence`). Consecutive lines with the same question form one question's group (the
same question later in the file is another group); input order is kept. Submission: one score per line of the
test file, same order and same line count; a finite decimal number, higher = more likely an answer. Within a
group sentences are ranked by score; equal scores keep the order of the test file. Metrics per question,
averaged: MRR, MAP (NLPCC AveP, divided by min(m, n)), ACC@1.

Pipeline (`python -m qa_baseline.run --task dbqa --data FILE [--train FILE | --holdout K] --reranker NAME`):
every sentence of a group is scored by a reranker (qa_baseline/rerankers: bm25, overlap, dense, cross,
learned); the scores go to `submission.txt` in the run folder, with the metrics when the file has labels. The
language is zh when most questions hold CJK characters, else en (`--lang` overrides). `--holdout K` splits
--data by group: groups i (counted from 0 in file order) with i % K == K - 1 are evaluated (and written to
`heldout.tsv`, the gold file of the submission), the others train the learned reranker (`--train FILE`
trains it on another file instead). Lines with an empty question or sentence stop the run unless
`--allow-empty` (the cmrc2018 stand-in has a 21-line group with an empty question); the scorer accepts them
in gold files, where only the labels count."""
import os
from collections import namedtuple

from ..errors import UserError, at
from ..fileio import atomic_write, sha256_file
from ..metrics import average_precision, hit_at, rank_by_score, reciprocal_rank, summarise
from ..rerankers import RERANKERS, make
from ..rerankers.text import ZH_TOKENS, detect_lang
from ..validate import SubmissionFile, gold_lines

USES_RETRIEVER = False
Group = namedtuple("Group", "question sentences labels line")  # labels None when the file has none


def read(path):
    """The groups of a DBQA file, labelled or not (not a mix); errors name the file and line. Empty questions
    and sentences pass here (a gold file may have them); the pipeline stops at them (check_text)."""
    groups, labelled = [], None
    for n, line in gold_lines(path):
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise at(path, n, "expected 2 or 3 tab-separated fields (question, sentence[, label]), "
                              f"found {len(fields)}")
        question, sentence, label = fields[0], fields[1], fields[2] if len(fields) == 3 else None
        if label is not None and label not in ("0", "1"):
            raise at(path, n, f"label {label!r} is not 0 or 1")
        if labelled is None:
            labelled = label is not None
        elif labelled != (label is not None):
            raise at(path, n, "label missing here but present on other lines, or the reverse")
        if not groups or groups[-1].question != question:
            groups.append(Group(question, [], [] if labelled else None, n))
        groups[-1].sentences.append(sentence)
        if labelled:
            groups[-1].labels.append(int(label))
    if not groups:
        raise UserError(f"{path}: no lines")
    return groups


def check_text(path, groups):
    """Stop at the first line of PATH with an empty question or sentence (a group's lines are consecutive)."""
    for g in groups:
        for i, sentence in enumerate(g.sentences):
            for what, value in (("question", g.question), ("sentence", sentence)):
                if not value.strip():
                    raise at(path, g.line + i, f"empty {what} (pass --allow-empty to rank such lines as they are)")


def read_gold(path):
    groups = read(path)
    if groups[0].labels is None:
        raise UserError(f"{path}: no labels (the third field); pass the labelled file as --gold")
    return groups


def write_submission(path, scores):
    with atomic_write(path) as f:
        for s in scores:
            f.write(f"{float(s)!r}\n")


def read_submission(path, groups, errors):
    """The scores, one per line; problems go to ERRORS."""
    sub = SubmissionFile(path, errors)
    scores = [sub.number(n, text) for n, text in sub.lines()]
    expected = sum(len(g.sentences) for g in groups)
    if len(scores) != expected:
        sub.error(None, f"{len(scores)} lines, but the test file has {expected}",
                  "write exactly one score per line of the test file, in its order")
    return scores


def score(groups, scores):
    per_question = {"MRR": [], "MAP": [], "ACC@1": []}
    start = 0
    for g in groups:
        rels = [g.labels[i] for i in rank_by_score(scores[start:start + len(g.labels)])]
        start += len(g.labels)
        per_question["MRR"].append(reciprocal_rank(rels))
        per_question["MAP"].append(average_precision(rels, sum(g.labels)))
        per_question["ACC@1"].append(hit_at(rels, 1))
    return summarise(per_question)


# --- the pipeline -------------------------------------------------------------------------------------------

def add_arguments(ap):
    ap.add_argument("--reranker", choices=RERANKERS, help="dbqa: how sentences are scored (default from config)")
    ap.add_argument("--train", help="dbqa: labelled file the learned reranker is fitted on")
    ap.add_argument("--holdout", type=int, metavar="K", help="dbqa: evaluate groups i of --data with "
                    "i %% K == K-1, train the learned reranker on the others")
    ap.add_argument("--features", help="dbqa learned: comma-separated rerankers whose features it combines "
                    "(default bm25,overlap; also dense, cross)")
    ap.add_argument("--tokens", choices=ZH_TOKENS, help="dbqa: Chinese tokens of bm25 and overlap (default char)")
    ap.add_argument("--lang", choices=("en", "zh"), help="dbqa: language of the data (default: detected)")
    ap.add_argument("--allow-empty", action="store_true", default=None,
                    help="dbqa: rank lines with an empty question or sentence instead of stopping")


def method(args, cfg):
    return args.reranker or cfg.get("reranker", "bm25")


def split(groups, k):
    """(training part, evaluated part) of GROUPS for --holdout K."""
    if k is None:
        return [], groups
    if k < 2:
        raise UserError(f"--holdout must be at least 2, not {k}")
    if len(groups) < k:
        raise UserError(f"--holdout {k} needs at least {k} questions; the data has {len(groups)}")
    return [g for i, g in enumerate(groups) if i % k != k - 1], [g for i, g in enumerate(groups) if i % k == k - 1]


def run(groups, retriever, cfg, args, out_dir):
    name = method(args, cfg)
    for option in ("corpus", "retriever", "analyzer", "fusion", "weight", "trace"):  # --k1, --b, --encoder: used
        if getattr(args, option, None):
            raise UserError(f"--{option} is not used by --task dbqa (its data gives the sentences to rank)")
    if args.train and name != "learned":
        raise UserError(f"--train is for --reranker learned, not {name}")
    if name == "learned" and not (args.train or args.holdout):
        raise UserError("--reranker learned needs training data: --train FILE or --holdout K")
    if not args.allow_empty:
        check_text(args.data, groups)
    train, test = split(groups, args.holdout)
    lang = args.lang or (cfg["lang"] if cfg["lang"] != "auto" else detect_lang(g.question for g in groups))
    bm25 = cfg.get("bm25", {})
    settings = {"k1": bm25.get("k1", 0.9) if args.k1 is None else args.k1,
                "b": bm25.get("b", 0.4) if args.b is None else args.b, "encoder": args.encoder,
                "tokens": (args.tokens or cfg.get("zh_tokens")) if lang == "zh" else args.tokens,
                "features": [f.strip() for f in args.features.split(",")] if args.features else cfg.get("features")}
    reranker = make(name, lang, settings)
    unused = [o for o in ("k1", "b", "tokens", "encoder", "features")
              if getattr(args, o) is not None and o not in reranker.options]
    if unused:
        raise UserError(f"--{unused[0]} is not used by --reranker {name}" +
                        (f" with --features {','.join(reranker.features_of)}" if name == "learned" else ""))
    params = {"lang": lang}
    if name == "learned":
        if args.train:
            train = read(args.train)
            if not args.allow_empty:
                check_text(args.train, train)
            params.update(train=os.path.basename(args.train), train_sha256=sha256_file(args.train))
        if train[0].labels is None:
            raise UserError(f"{args.train or args.data}: no labels; the learned reranker trains on labelled lines")
        reranker.fit(train)
        params["train_questions"] = len(train)
    if args.holdout:
        params["holdout"] = args.holdout
    scores = reranker.score(test)
    files = {"submission": os.path.join(out_dir, "submission.txt")}
    write_submission(files["submission"], scores)
    if args.holdout:
        files["gold"] = os.path.join(out_dir, "heldout.tsv")
        with atomic_write(files["gold"]) as f:
            for g in test:
                for i, s in enumerate(g.sentences):
                    f.write("\t".join([g.question, s] + ([str(g.labels[i])] if g.labels else [])) + "\n")
    scored = score(test, scores) if test[0].labels is not None else {"metrics": {}, "per_question": {}}
    return {"questions": len(test), **scored, "params": {**params, **reranker.params()}, "files": files}
