"""The experiments' stored results (vitcourse/assets/experiments/) against re-runs, and the pipeline that makes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from vitcourse import datascale, masked, probes

RESULTS = Path(datascale.__file__).parent / "assets" / "experiments"


def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def test_data_scale_file_holds_every_run() -> None:
    body = _load("data_scale.json")
    runs = body["runs"]
    needed = {"model", "train_size", "seed", "accuracy", "steps", "multiply_adds", "settings", "device"}
    assert all(needed <= set(r) for r in runs)
    cells = {(r["model"], r["train_size"], r["seed"]) for r in runs}
    sizes = sorted({r["train_size"] for r in runs})
    assert len(sizes) >= 4 and sizes[-1] >= 16 * sizes[0]
    for model in ("vit", "t2t", "convstem", "deit", "cnn"):
        for size in sizes:
            assert {(model, size, s) for s in (0, 1, 2)} <= cells
    assert len({r["steps"] * r["batch_size"] for r in runs}) == 1  # one budget in images seen
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in runs)


def test_masked_pretraining_file() -> None:
    body = _load("masked_pretraining.json")
    assert sorted(r["seed"] for r in body["pretraining"]) == [0, 1, 2]
    assert sorted(r["seed"] for r in body["finetune"]) == [0, 1, 2]
    for record in body["pretraining"] + body["finetune"]:
        assert torch.tensor(record["distances"]).shape == (4, 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shipped_encoders_give_the_stored_distances(seed: int) -> None:
    stored = torch.tensor(
        next(r for r in _load("masked_pretraining.json")["pretraining"] if r["seed"] == seed)["distances"]
    )
    measured = masked.attention_distances(datascale.load_encoder(seed))
    torch.testing.assert_close(measured, stored, atol=0.02, rtol=0)
    # every pre-trained encoder attends more locally than uniform weights would in some block
    assert measured.min() < probes.attention_distance_bounds(6, 10, 10)["uniform"] - 5


def test_pretraining_rerun_matches_the_cpu_reference() -> None:
    reference = _load("masked_pretraining.json")["cpu_reruns"][0]
    steps = reference["steps"]
    torch.set_num_threads(1)
    done = masked.pretrain(replace(datascale.PRETRAIN, steps=steps, device="cpu"))
    # the CPU record was made with this code on a CPU; other CPUs and torch builds round differently
    torch.testing.assert_close(
        torch.tensor(done.losses), torch.tensor(reference["losses"]), atol=2e-3, rtol=0.05
    )


def test_chance_thresholds_are_notebook_03s() -> None:
    stored = _load("rows_columns.json")["chance_95th_percentile"]
    row, col = datascale.chance_thresholds()
    assert stored == {"same_row": round(row, 4), "same_column": round(col, 4)}


def test_pipeline_runs_end_to_end(tmp_path: Path) -> None:
    """The command line, worker processes included, on a few steps (VITCOURSE_SMOKE) into a temporary folder."""
    env = {**os.environ, "VITCOURSE_SMOKE": "1", "VITCOURSE_ASSETS": str(tmp_path), "OMP_NUM_THREADS": "1"}
    out = tmp_path / "runs.jsonl"
    command = [sys.executable, "-m", "vitcourse.datascale", "--jobs", "1", "--device", "cpu"]
    subprocess.run([*command, "--part", "sweep", "--only", "cnn", "--out", str(out)], env=env, check=True)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted({r["model"] for r in records}) == ["cnn", "deit"]  # DeiT learns from each CNN
    assert len(records) == 2 * 2 * 3  # two smoke sizes, three seeds
    assert all(r["device"].startswith("CPU") and r["steps"] == 3 for r in records)


def test_cheapest_sweep_run_reruns_to_its_stored_numbers() -> None:
    """The sweep's cheapest run (fewest multiply-adds), trained again here on the CPU with one thread."""
    body = _load("data_scale.json")
    reference = body["cpu_reruns"][0]
    model, size, seed = datascale.cheapest_sweep_run(body["runs"])
    assert (reference["model"], reference["train_size"], reference["seed"]) == (model, size, seed)
    torch.set_num_threads(1)
    record, _ = datascale.run(model, size, seed, datascale.SWEEP, "cpu")
    # the same code on a CPU: the same run up to rounding (other CPUs and torch builds round differently)
    assert abs(record["accuracy"] - reference["accuracy"]) <= 0.01
    assert abs(record["loss"] - reference["loss"]) <= 0.02
    assert record["multiply_adds"] == reference["multiply_adds"]
    # and the stored run itself (made on another device) lands within a few scenes of the CPU's
    stored = next(r for r in body["runs"] if (r["model"], r["train_size"], r["seed"]) == (model, size, seed))
    assert abs(stored["accuracy"] - record["accuracy"]) <= 0.03
