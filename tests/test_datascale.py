"""The experiments' stored results (vitcourse/assets/experiments/) against re-runs, and the pipeline that makes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import torch

from vitcourse import datascale, masked, probes

RESULTS = Path(datascale.__file__).parent / "assets" / "experiments"


def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


#: Sweep models that do not fit their training pictures at the sweep's budget, with the reason; none today.
#: DeiT, on flipped pictures (:data:`vitcourse.datascale.DEIT_AUGMENT`) with its own longer budget
#: (:data:`vitcourse.datascale.DEIT_BUDGET`), fits every pool; with shifts by 2 pixels as well it did not (61 to
#: 95 % from 128 pictures on), and it would be listed here with its reason. An entry whose model fits fails.
UNDERFITTING: dict[str, str] = {}


def test_data_scale_file_holds_every_run() -> None:
    """Figure 3 at toy scale: every model, size and seed, each model without augmentation fitting its training
    pictures (training accuracy at least 0.95), the others listed in UNDERFITTING with their reason."""
    body = _load("data_scale.json")
    runs = body["runs"]
    needed = {"model", "train_size", "seed", "accuracy", "train_accuracy", "steps", "multiply_adds", "device"}
    assert all(needed <= set(r) for r in runs)
    cells = {(r["model"], r["train_size"], r["seed"]) for r in runs}
    sizes = sorted({r["train_size"] for r in runs})
    assert sizes == list(datascale.SIZES) and len(sizes) >= 4 and sizes[-1] >= 16 * sizes[0]
    for model in ("vit", "t2t", "convstem", "deit", "cnn"):
        for size in sizes:
            assert {(model, size, s) for s in (0, 1, 2)} <= cells
    for r in runs:
        assert r["settings"]["task"] == "shapes" and r["settings"]["standardize"] == "pixel"
        budget = datascale.DEIT_BUDGET if r["model"] == "deit" else {}
        assert r["steps"] == datascale.steps_for(replace(datascale.SWEEP, **budget), r["train_size"])
        if r["model"] not in UNDERFITTING:
            assert r["train_accuracy"] >= 0.95, (r["model"], r["train_size"], r["seed"], r["train_accuracy"])
        assert 0.0 <= r["accuracy"] <= 1.0
        augmented = {k: r["settings"][k] for k in datascale.DEIT_AUGMENT}
        assert (augmented == datascale.DEIT_AUGMENT) == (
            r["model"] == "deit"
        )  # DeiT's augmentation, only DeiT's
    for model in UNDERFITTING:  # still true of the stored runs, or its entry must go
        assert min(r["train_accuracy"] for r in runs if r["model"] == model) < 0.95


def test_every_deit_run_has_its_teacher_trained_with_deits_augmentation() -> None:
    """DeiT learns from a CNN trained on the same pictures (size and seed) with the same augmentation, stored in
    ``teachers``; the teacher fits its pictures, and its multiply-adds are the ones DeiT's total counts."""
    body = _load("data_scale.json")
    teachers = {(r["train_size"], r["seed"]): r for r in body["teachers"]}
    deit = [r for r in body["runs"] if r["model"] == "deit"]
    assert {(r["train_size"], r["seed"]) for r in deit} == set(teachers)
    for r in teachers.values():
        assert r["model"] == "cnn" and all(r["settings"][k] == v for k, v in datascale.DEIT_AUGMENT.items())
        assert r["train_accuracy"] >= 0.95
    for r in deit:
        teacher = teachers[r["train_size"], r["seed"]]
        images = r["steps"] * r["batch_size"]
        assert (
            r["multiply_adds"] == (3 * r["forward_multiply_adds"] + teacher["forward_multiply_adds"]) * images
        )


def test_data_scale_controls_hold_the_vit_on_raw_and_per_channel_inputs() -> None:
    controls = _load("data_scale.json")["controls"]
    kinds = sorted((r["settings"]["standardize"], r["seed"]) for r in controls)
    assert kinds == [(k, s) for k in ("channel", "none") for s in (0, 1, 2)]
    assert all(r["model"] == "vit" and r["train_size"] == datascale.CONTROL_SIZE for r in controls)


def test_swap_sweep_file_keeps_the_earlier_sweep() -> None:
    body = _load("swap_sweep.json")
    assert {r["settings"]["task"] for r in body["runs"]} == {"swap"}
    cells = {(r["model"], r["train_size"], r["seed"]) for r in body["runs"]}
    assert {
        (m, n, s) for m in datascale.SWEEP_MODELS for n in datascale.SWAP_SIZES for s in (0, 1, 2)
    } <= cells


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


# The re-runs compare what holds on any machine (book/pages/testing.md): the pictures, the initial weights, the
# multiply-adds, and the losses of the first REFERENCE_STEPS steps, which lie in the warm-up. Measured: another
# thread count or oneDNN switched off moves those losses by at most 6e-7 of their value, while a learning rate
# 10 % higher moves the sweep run's by 9e-3 and leaving out its flips by 0.38, far beyond LOSS_RTOL. (Weight decay
# acts too slowly to show: without it the 30 losses move by 1.6e-5.)
LOSS_RTOL = 1e-4


def _same_start(measured: dict, stored: dict) -> None:
    assert measured["steps"] == stored["steps"] == datascale.REFERENCE_STEPS
    assert measured["pictures_sum"] == pytest.approx(stored["pictures_sum"], rel=1e-9)
    for key in ("targets_sum", "initial_sum_of_squares"):
        if key in stored:
            assert measured[key] == pytest.approx(stored[key], rel=1e-6), key
    torch.testing.assert_close(
        torch.tensor(measured["losses"], dtype=torch.float64),
        torch.tensor(stored["losses"], dtype=torch.float64),
        rtol=LOSS_RTOL,
        atol=0,
    )
    # the comparison can fail: over these steps the stored losses move by far more than the tolerance
    losses = torch.tensor(stored["losses"], dtype=torch.float64)
    assert ((losses - losses[0]).abs() / losses[0]).max() > 100 * LOSS_RTOL


def test_first_pretraining_steps_hold_on_any_machine() -> None:
    stored = _load("masked_pretraining.json")["first_steps"][0]
    torch.set_num_threads(1)
    _same_start(datascale.first_pretraining_steps(stored["seed"]), stored)


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
    kinds = sorted({(r["part"], r["model"]) for r in records})
    assert kinds == [
        ("sweep", "cnn"),
        ("sweep", "deit"),
        ("teacher", "cnn"),
    ]  # DeiT with a teacher of its own
    assert len(records) == 3 * 2 * 3  # the CNN, DeiT's teacher and DeiT; two smoke sizes, three seeds
    assert all(r["device"].startswith("CPU") and r["steps"] == 3 for r in records)
    for r in records:  # the teacher and DeiT learn from augmented pictures, the sweep's CNN from the pictures
        augmented = all(r["settings"][k] == v for k, v in datascale.DEIT_AUGMENT.items())
        assert augmented == (r["part"] != "sweep" or r["model"] != "cnn")
    written = datascale.assemble(out, tmp_path / "experiments")
    first = json.loads(written["data_scale.json"].read_text())
    assert len(first["runs"]) == 12 and len(first["teachers"]) == 6
    # a later DeiT-only assemble renews DeiT's runs and its teachers and keeps the CNN's
    deit_only = tmp_path / "deit.jsonl"
    again = [{**r, "accuracy": 0.5} for r in records if r["model"] == "deit" or r["part"] == "teacher"]
    deit_only.write_text("".join(json.dumps(r) + "\n" for r in again))
    merged = json.loads(
        datascale.assemble(deit_only, tmp_path / "experiments")["data_scale.json"].read_text()
    )
    assert sorted(r["model"] for r in merged["runs"]) == ["cnn"] * 6 + ["deit"] * 6
    assert {r["accuracy"] for r in merged["runs"] if r["model"] == "deit"} == {0.5}
    assert len(merged["teachers"]) == 6
    more = tmp_path / "more.jsonl"
    parts = ["rowcol", "rowcol_short", "sweep_long", "controls"]
    subprocess.run([*command, "--part", *parts, "--out", str(more)], env=env, check=True)
    records = [json.loads(line) for line in more.read_text().splitlines()]
    expected = ["control"] * 6 + ["rowcol"] * 3 + ["rowcol_short"] * 3 + ["sweep_long"]
    assert sorted(r["part"] for r in records) == expected
    assert all((tmp_path / "checkpoints" / f"vit_sky_seed{s}.pt").exists() for s in (0, 1, 2))
    written = datascale.assemble(more, tmp_path / "experiments")
    controls = json.loads(written["swap_sweep.json"].read_text())["controls"]
    assert [(r["model"], r["steps"]) for r in controls] == [("vit", 12)]
    controls = json.loads(written["data_scale.json"].read_text())["controls"]
    assert sorted(r["settings"]["standardize"] for r in controls) == ["channel"] * 3 + ["none"] * 3
    sky = json.loads(written["rows_columns.json"].read_text())
    # the shipped runs and the shorter ones sit apart, each with its own steps; only the shipped are saved
    assert [r["seed"] for r in sky["runs"]] == [r["seed"] for r in sky["shorter_runs"]] == [0, 1, 2]
    assert {r["steps"] for r in sky["runs"]} == {3} and {r["steps"] for r in sky["shorter_runs"]} == {2}


def test_first_steps_of_the_cheapest_sweep_run_hold_on_any_machine() -> None:
    """The sweep's cheapest run (fewest multiply-adds) started again on the CPU: its pictures, initial weights,
    multiply-adds and first steps' losses are the recorded ones. Its end is not re-run: after 600 steps two
    machines' runs can part by more than rounding (seen in the swap sweep: held-out accuracy 0.57 against 0.61)."""
    body = _load("data_scale.json")
    stored = body["first_steps"][0]
    model, size, seed = datascale.cheapest_sweep_run(body["runs"])
    assert (stored["model"], stored["train_size"], stored["seed"]) == (model, size, seed)
    torch.set_num_threads(1)
    measured = datascale.first_steps(model, size, seed)
    _same_start(measured, stored)
    assert measured["forward_multiply_adds"] == stored["forward_multiply_adds"]
    run = next(r for r in body["runs"] if (r["model"], r["train_size"], r["seed"]) == (model, size, seed))
    assert run["forward_multiply_adds"] == measured["forward_multiply_adds"]  # the sweep's record: this model


def test_swap_batch_swaps_two_squares_in_different_rows() -> None:
    """Every swapped scene is its intact twin with exactly two 10 x 10 squares exchanged, rows apart."""
    batch = datascale.swap_batch(40, seed=3, block=10, min_gap=2)
    assert batch.images.shape == (40, 1, 60, 100) and batch.targets.tolist() == [0] * 20 + [1] * 20
    intact, swapped = batch.images[:20, 0], batch.images[20:, 0]
    for a, b in zip(intact, swapped, strict=True):
        changed = (a != b).reshape(6, 10, 10, 10).any(3).any(1)  # (6 rows, 10 columns) of squares
        where = changed.nonzero().tolist()
        assert len(where) == 2 and abs(where[0][0] - where[1][0]) >= 2
        (r1, c1), (r2, c2) = where
        sq = lambda im, r, c: im[r * 10 : (r + 1) * 10, c * 10 : (c + 1) * 10]  # noqa: E731
        assert torch.equal(sq(b, r1, c1), sq(a, r2, c2)) and torch.equal(sq(b, r2, c2), sq(a, r1, c1))
    assert torch.equal(batch.images, datascale.swap_batch(40, seed=3, block=10, min_gap=2).images)
    assert not torch.equal(batch.images, datascale.swap_batch(40, seed=4, block=10, min_gap=2).images)


@pytest.mark.parametrize(
    ("kwargs", "error", "names"),
    [
        ({"size": 7}, ValueError, "size"),
        ({"size": 0}, ValueError, "size"),
        ({"block": 3}, ValueError, "block"),
        ({"min_gap": 6}, ValueError, "min_gap"),
        ({"min_gap": 0}, ValueError, "min_gap"),
        ({"seed": -1}, ValueError, "seed"),
        ({"size": 2.0}, TypeError, "size"),
    ],
)
def test_swap_batch_refuses_bad_settings(kwargs: dict, error: type, names: str) -> None:
    with pytest.raises(error, match=names):
        datascale.swap_batch(**{"size": 8, "seed": 0, **kwargs})


def test_moon_on_sky_puts_the_moon_wholly_inside_its_labelled_patch() -> None:
    batch = datascale.moon_on_sky(30, seed=5, patch=10)
    assert batch.images.shape == (30, 1, 60, 100) and batch.targets.shape == (30, 2)
    for image, (row, col) in zip(batch.images[:, 0], batch.targets.tolist(), strict=True):
        moon = image == 1.0
        assert moon.any()
        inside = moon[row * 10 : (row + 1) * 10, col * 10 : (col + 1) * 10]
        assert inside.sum() == moon.sum()  # every moon pixel in the labelled patch
        assert torch.all(image[~moon] == image[0, 0]) and image[0, 0] < 0.5  # the rest: one dark sky level
    assert batch.targets[:, 0].max() <= 5 and batch.targets[:, 1].max() <= 9
    assert torch.equal(batch.images, datascale.moon_on_sky(30, seed=5, patch=10).images)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"size": 0}, ValueError, "size"),
        ({"seed": -2}, ValueError, "seed"),
        ({"patch": 7}, ValueError, "patch"),
    ],
)
def test_moon_on_sky_refuses_bad_settings(kwargs: dict, error: type, name: str) -> None:
    with pytest.raises(error, match=name):
        datascale.moon_on_sky(**{"size": 4, "seed": 0, "patch": 10, **kwargs})


def test_show_data_scale_draws_one_line_per_model_from_the_seeds() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vitcourse import plots

    runs = [
        {"model": m, "train_size": n, "seed": s, "accuracy": a + 0.01 * s}
        for m, a in (("cnn", 0.9), ("vit", 0.5))
        for n in (64, 256)
        for s in (0, 1, 2)
    ]
    _, ax = plt.subplots()
    plots.show_data_scale(runs, {"cnn": "CNN", "vit": "ViT"}, ax=ax)
    drawn = ax.containers  # one errorbar per model
    assert [c.get_label() for c in drawn] == ["CNN", "ViT"]
    assert drawn[0].lines[0].get_ydata().tolist() == pytest.approx(
        [0.91, 0.91]
    )  # the mean of the three seeds
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "held-out accuracy"
    left, right = (c.lines[0].get_xdata() for c in drawn)  # each model a little to its side of the size
    assert all(0.95 * n < a < n < b < 1.05 * n for a, b, n in zip(left, right, (64, 256), strict=True))
    with pytest.raises(ValueError, match="t2t"):
        plots.show_data_scale(runs, {"t2t": "T2T-ViT"}, ax=ax)
    with pytest.raises(TypeError, match="runs"):
        plots.show_data_scale([], {"cnn": "CNN"}, ax=ax)
    with pytest.raises(ValueError, match="multiply_adds"):
        plots.show_data_scale(runs, {"cnn": "CNN"}, ax=ax, x="multiply_adds")
    plt.close("all")


def test_rows_and_columns_setting_ships_its_recorded_runs() -> None:
    """The plain-sky setting (9,000 steps): each shipped model's embedding gives the stored terms; all three seeds
    have both terms beyond the smooth random codes' 95th percentile and pass both line tests. The shorter runs
    (6,000 steps, recorded, not shipped) got there in seeds 0 and 1 only (as notebook 12 says)."""
    body = _load("rows_columns.json")
    chance = body["chance_95th_percentile"]
    runs = sorted(body["runs"], key=lambda r: r["seed"])
    assert [r["seed"] for r in runs] == [0, 1, 2]
    passed = []
    for r in runs:
        # a record made before a setting existed holds that setting's default
        assert asdict(replace(datascale.SweepSettings(), **r["settings"])) == asdict(datascale.ROWCOL)
        measured = datascale.rowcol_terms(datascale.load_sky(r["seed"]))
        # the shipped model is the recorded run (terms stored to 4 decimals; another CPU rounds the sums apart)
        assert measured == pytest.approx({k: r[k] for k in measured}, abs=2e-4)
        assert r["same_row"] > chance["same_row"] and r["accuracy"] > 0.95
        terms = r["same_column"] > chance["same_column"]
        passed.append(terms and r["far_row"] > r["diagonal"] and r["far_column"] > r["diagonal"])
    assert passed == [True, True, True]
    shorter = sorted(body["shorter_runs"], key=lambda r: r["seed"])
    assert [r["steps"] for r in shorter] == [datascale.SHORT_ROWCOL_STEPS] * 3 == [6000] * 3
    assert [r["same_column"] > chance["same_column"] for r in shorter] == [True, True, False]


def test_show_data_scale_against_compute_keeps_each_size_apart() -> None:
    """Against multiply-adds, sizes that share one budget are separate points: no bar spans two sizes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vitcourse import plots

    runs = [
        {"model": "cnn", "train_size": n, "seed": s, "accuracy": a + 0.01 * s, "multiply_adds": 10**12}
        for n, a in ((64, 0.6), (256, 0.9))
        for s in (0, 1, 2)
    ]
    _, ax = plt.subplots()
    plots.show_data_scale(runs, {"cnn": "CNN"}, ax=ax, x="multiply_adds")
    line = ax.containers[0].lines[0]
    assert line.get_ydata().tolist() == pytest.approx([0.61, 0.91])  # one point per size, the seeds' mean
    assert line.get_xdata().tolist() == [10**12, 10**12] and line.get_linestyle() == "None"
    bars = ax.containers[0].lines[2][0].get_segments()  # each bar: the lowest to the highest seed of one size
    assert [(round(b[0][1], 3), round(b[1][1], 3)) for b in bars] == [(0.6, 0.62), (0.9, 0.92)]
    plt.close("all")


def test_shapes_batch_draws_one_white_shape_per_scene() -> None:
    batch = datascale.shapes_batch(40, seed=3)
    assert batch.images.shape == (40, 1, 60, 100) and batch.targets.shape == (40,)
    assert batch.images.min() >= 0 and batch.images.max() == 1
    assert set(batch.targets.tolist()) == set(range(len(datascale.SHAPES)))
    again = datascale.shapes_batch(40, seed=3)
    assert torch.equal(batch.images, again.images) and torch.equal(batch.targets, again.targets)
    assert not torch.equal(batch.images, datascale.shapes_batch(40, seed=4).images)
    # the shape's pixels: white, 9 to 11 across; a ring has fewer than a disc of its size, a cross fewer than a square
    white = (batch.images[:, 0] == 1).flatten(1).sum(1).float()
    by_shape = {k: white[batch.targets == k].mean().item() for k in range(4)}
    assert by_shape[1] < by_shape[0] and by_shape[3] < by_shape[2]
    assert 40 < by_shape[3] and by_shape[2] < 11 * 11 + 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"size": 0}, ValueError, "size"),
        ({"seed": -1}, ValueError, "seed"),
        ({"size": 2.5}, TypeError, "size"),
    ],
)
def test_shapes_batch_rejects_bad_input(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        datascale.shapes_batch(**{"size": 4, "seed": 0, **kwargs})


def test_steps_grow_with_the_passes_over_the_pictures() -> None:
    settings = datascale.SWEEP
    assert datascale.steps_for(settings, 64) == settings.steps
    assert datascale.steps_for(settings, 1024) == settings.epochs * 1024 // settings.batch_size


def test_multiply_adds_count_attention_like_the_closed_form_counter() -> None:
    """FlopCounterMode misses the fused attention kernels on the CPU; datascale counts on the math path, so its
    count of a ViT and a T2T-ViT equals ``cost.count_macs`` (linear layers and both attention products)."""
    from vitcourse import cost

    for name in ("vit", "t2t"):
        model = datascale.build(name, datascale.SWEEP, 0).eval()
        expected = sum(cost.count_macs(model, torch.zeros(1, 1, 60, 100)).values())
        assert datascale.multiply_adds(model) == expected


@pytest.mark.parametrize("name", ["data_scale.json", "swap_sweep.json", "rows_columns.json"])
def test_stored_multiply_adds_are_what_the_counter_gives(name: str) -> None:
    """Every stored run's multiply-adds per forward pass is the count of its model rebuilt from its settings, and
    its training total is 3 forward passes per image (plus DeiT's teacher's forward passes)."""
    counted: dict = {}
    body = _load(name)
    for key, records in body.items():
        if not isinstance(records, list) or key == "first_steps":
            continue
        for r in records:
            if not isinstance(r, dict) or "forward_multiply_adds" not in r:
                continue
            settings = datascale.SweepSettings(**r["settings"])
            tag = (r["model"], json.dumps(asdict(settings), sort_keys=True))
            if tag not in counted:
                counted[tag] = datascale.multiply_adds(datascale.build(r["model"], settings, 0))
            assert r["forward_multiply_adds"] == counted[tag], (name, key, r["model"], r["train_size"])
            images = r["steps"] * r["batch_size"]
            teacher = 0
            if r["model"] == "deit":
                teacher = datascale.multiply_adds(datascale.build("cnn", settings, 0))
            assert r["multiply_adds"] == 3 * r["forward_multiply_adds"] * images + teacher * images
