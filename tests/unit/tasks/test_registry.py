"""The task registry and the run driver: one table of tasks for run, score and report; typed settings built
once from defaults, the task YAML and the command line; submissions read back through the task's own
validator before they are scored."""
import dataclasses
import json
import os
import re

import pytest

from conftest import FIXTURES, cli
from qa_baseline import run, tasks
from qa_baseline.core.config import task_config
from qa_baseline.core.errors import UserError
from qa_baseline.core.settings import make_settings
from qa_baseline.scoring import metrics
from qa_baseline.tasks.base import Prediction

IDS = ["mcqa-en", "mcqa-zh", "mcqa-all", "dbqa", "kbqa", "openqa-en", "qac-1", "qac-2", "qac-3", "datasearch"]


def listed(text):
    return re.findall(r"^  ([a-z][a-z0-9-]+) ", text, re.M)


def test_run_and_score_list_the_same_registered_ids():
    assert tasks.ids() == IDS
    assert listed(cli("run", "--help").stdout) == IDS
    usage = cli("score", "--help").stdout
    assert re.search(r"--task \{([^}]*)\}", usage).group(1).split(",") == IDS


@pytest.mark.parametrize("task_id", IDS)
def test_every_task_declares_its_measures_and_reads_its_config(task_id):
    task = tasks.get(task_id)
    assert task.id == task_id and task.measures
    assert set(task.measures) <= set(metrics.MEASURES) and task.main_measure in task.measures  # declared by name
    settings = make_settings(task.Settings, {k: v for k, v in task_config(task_id).items() if k != "data"}, {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.trace = True


def test_settings_merge_defaults_then_config_then_command_line():
    task = tasks.get("mcqa-en")
    assert make_settings(task.Settings, {}, {}).corpus is None and task.Settings().n == 3
    merged = make_settings(task.Settings, {"corpus": "vital-en", "n": 2}, {"n": 1, "k1": None})
    assert (merged.corpus, merged.n, merged.k1) == ("vital-en", 1, 0.9)
    with pytest.raises(UserError, match="unknown setting .reranker"):
        make_settings(task.Settings, {"reranker": "bm25"}, {})  # another task's setting
    with pytest.raises(UserError, match=r"x.yaml: setting 'n' is '3'; it must be of type int"):
        make_settings(task.Settings, {"n": "3"}, {}, "x.yaml")  # a YAML value of the wrong type
    with pytest.raises(UserError, match="setting 'retriever' is 'bm52'; it must be one of bm25"):
        make_settings(task.Settings, {"retriever": "bm52"}, {})
    assert make_settings(task.Settings, {"k1": 1}, {}).k1 == 1  # an int where a float is wanted is fine


def test_a_task_sees_only_its_own_options():
    p = cli("run", "--task", "mcqa-en", "--reranker", "bm25")
    assert p.returncode == 2 and "unrecognized arguments: --reranker bm25" in p.stderr
    assert "--n N" in cli("run", "--task", "mcqa-en", "--help").stdout
    assert "--n N" not in cli("run", "--task", "dbqa", "--help").stdout


def test_a_task_without_a_pipeline_says_so_in_one_line():
    p = cli("run", "--task", "mcqa-all")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "run --task mcqa-en and --task mcqa-zh" in p.stderr


def test_the_driver_reads_the_submission_back_through_the_validator(tmp_path, monkeypatch):
    """A pipeline whose submission its own validator refuses is a bug the run reports, never scores."""
    task = tasks.get("dbqa")
    monkeypatch.setattr(tasks, "get", lambda task_id: task)
    monkeypatch.setattr(type(task), "predict", lambda self, items, components, settings, folds_gold=None:
                        Prediction([0.5, 0.1]))
    data = os.path.join(FIXTURES, "scoring", "dbqa.tsv")
    with pytest.raises(RuntimeError, match="wrote a submission its own validator refuses"):
        run.main(["--task", "dbqa", "--data", data, "--out", str(tmp_path)])
    assert not (tmp_path / "row.json").exists()


def test_the_row_records_the_effective_settings(tmp_path):
    data = os.path.join(FIXTURES, "scoring", "dbqa.tsv")
    p = cli("run", "--task", "dbqa", "--data", data, "--reranker", "overlap", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    row = json.loads((tmp_path / "row.json").read_text())
    assert row["config"]["reranker"] == "overlap" and row["retriever"] == "overlap"
    assert row["settings"]["method"] == "overlap" and "reranker" not in row["settings"]
    assert row["command"][-4:] == ["--reranker", "overlap", "--out", str(tmp_path)]
    assert set(row["metrics"]) == {"MRR", "MAP", "ACC@1"} and row["questions"] == 4
