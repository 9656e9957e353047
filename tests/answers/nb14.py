"""Right answers for the checkers of notebook 14; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.

Exercise 14.1 (a) is ln 4; 14.2 is worked out here from the stored sweep (``data_scale.json``) directly, not
through the checker's helpers; 14.3 from the two models of the notebook's section 3 and their counted multiply-adds.
"""

from __future__ import annotations

import json
import math

import torch

from vitcourse import check, cost, datascale, train

SWEEP = json.loads((datascale.RESULTS / "data_scale.json").read_text())
SMALL, LARGEST = SWEEP["sizes"][0], SWEEP["sizes"][-1]


def _held_out(model: str, size: int) -> float:
    found = [r["accuracy"] for r in SWEEP["runs"] if r["model"] == model and r["train_size"] == size]
    return sum(found) / len(found)


LEAD_SMALL = _held_out("cnn", SMALL) - _held_out(
    "vit", SMALL
)  # 14.2 (a): two plotted points, means of 3 seeds
LEAD_LARGE = _held_out("cnn", LARGEST) - _held_out("vit", LARGEST)  # 14.2 (b)
FLOOR = math.log(
    4
)  # 14.1 (a): every q = 1/4 minimises the mean of -ln q_label over four equally frequent labels


def _macs(model: str) -> int:
    net = train.build_model(train.TrainConfig(model=model, device="cpu"))
    return sum(cost.count_macs(net, torch.zeros(1, 1, 60, 100), depth=2).values())


RATIO = _macs("t2t") / _macs("vit")  # section 3: T2T-ViT's multiply-adds per image over the ViT's
MATCHED_STEPS, MATCHED_BATCH = round(30 * RATIO), round(32 * RATIO)  # 14.3, for 30 steps of 32 images

VALUE_CHECKS: dict = {
    check.sweep_gap_small: LEAD_SMALL,
    check.sweep_gap_large: LEAD_LARGE,
    check.sweep_gap_reading: "a-i",
    check.vit_flat_line: "iii",
    check.vit_flat_line_floor: FLOOR,
    check.matched_compute_steps: MATCHED_STEPS,
    check.matched_compute_batch: MATCHED_BATCH,
    check.matched_compute_winner: "a",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.sweep_gap_small, -LEAD_SMALL, "the other way round"),
    (check.sweep_gap_small, 100 * LEAD_SMALL, "percentage points"),
    (check.sweep_gap_small, _held_out("cnn", SMALL), "the CNN's point alone"),
    (check.sweep_gap_large, -LEAD_LARGE, "the other way round"),
    (check.sweep_gap_large, 100 * LEAD_LARGE, "percentage points"),
    (check.vit_flat_line, "v", "not one of the options"),
    (check.sweep_gap_reading, "a", "not one of the options"),
    (check.vit_flat_line_floor, 2.0, "base of your logarithm"),
    (check.vit_flat_line_floor, -FLOOR, "minus sign"),
    (check.vit_flat_line_floor, 0.25, "an accuracy"),
    (check.vit_flat_line_floor, math.log(2), "notebook 10's task"),
    (check.vit_flat_line_floor, 4 * FLOOR, "added"),
    (check.vit_flat_line_floor, 0, "sure and right"),
    (check.matched_compute_winner, "steps", "not one of the options"),
    (check.matched_compute_steps, round(30 / RATIO), "divided by the ratio"),
    (check.matched_compute_steps, round(30 * 32 * RATIO), "counts images, not steps"),
    (check.matched_compute_steps, MATCHED_BATCH, "you scaled the batch"),
    (check.matched_compute_steps, round(30 * round(RATIO)), "cut the ratio short"),
    (check.matched_compute_batch, round(32 / RATIO), "divided by the ratio"),
    (check.matched_compute_batch, MATCHED_STEPS, "you scaled the steps"),
    (check.matched_compute_batch, round(30 * 32 * RATIO), "the whole run"),
    (check.matched_compute_batch, round(32 * round(RATIO, 1)), "cut the ratio short"),
]
