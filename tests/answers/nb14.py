"""Right answers for the checkers of notebook 14; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.

Exercise 14.1 is worked out here from the stored sweep (``data_scale.json``) directly, not through the
checker's helpers; 14.2 (a) is ln 2; 14.3 from the two models of the notebook's section 2 and their counted multiply-adds.
"""

from __future__ import annotations

import json
import math

import torch

from vitcourse import check, cost, datascale, train

SWEEP = json.loads((datascale.RESULTS / "data_scale.json").read_text())
SMALL, THIRD, LARGEST = SWEEP["sizes"][0], SWEEP["sizes"][2], SWEEP["sizes"][-1]


def _t2t(size: int) -> list[float]:
    return [r["accuracy"] for r in SWEEP["runs"] if r["model"] == "t2t" and r["train_size"] == size]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


RISE = _mean(_t2t(THIRD)) - _mean(_t2t(SMALL))  # 14.1 (a): two plotted points, each a mean of three seeds
LOWEST = min(_t2t(LARGEST))  # 14.1 (b): the lower end of the bar at the largest size
FLOOR = math.log(2)  # 14.2 (a): q = 1/2 minimises -(ln q + ln(1 - q)) / 2


def _macs(model: str) -> int:
    net = train.build_model(train.TrainConfig(model=model, device="cpu"))
    return sum(cost.count_macs(net, torch.zeros(1, 1, 60, 100), depth=2).values())


RATIO = _macs("t2t") / _macs("vit")  # section 2: T2T-ViT's multiply-adds per image over the ViT's
MATCHED_STEPS, MATCHED_BATCH = round(30 * RATIO), round(32 * RATIO)  # 14.3, for 30 steps of 32 images

VALUE_CHECKS: dict = {
    check.sweep_t2t_rise: RISE,
    check.sweep_lowest_seed: LOWEST,
    check.vit_flat_line: "iii",
    check.vit_flat_line_floor: FLOOR,
    check.matched_compute_steps: MATCHED_STEPS,
    check.matched_compute_batch: MATCHED_BATCH,
    check.matched_compute_winner: "steps",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.sweep_t2t_rise, -RISE, "the other way round"),
    (check.sweep_t2t_rise, _mean(_t2t(LARGEST)) - _mean(_t2t(SMALL)), "up to the largest training set"),
    (check.sweep_t2t_rise, 100 * RISE, "percentage points"),
    (check.sweep_lowest_seed, _mean(_t2t(LARGEST)), "the mean of the three seeds"),
    (check.sweep_lowest_seed, max(_t2t(LARGEST)), "upper end of the bar"),
    (check.sweep_lowest_seed, 100 * LOWEST, "in percent"),
    (check.vit_flat_line, "v", "not one of the options"),
    (check.vit_flat_line_floor, 1.0, "base 2"),
    (check.vit_flat_line_floor, -FLOOR, "minus sign"),
    (check.vit_flat_line_floor, 0.5, "an accuracy"),
    (check.vit_flat_line_floor, 2 * FLOOR, "added"),
    (check.vit_flat_line_floor, 0, "sure and right"),
    (check.matched_compute_winner, "both", "not one of the options"),
    (check.matched_compute_steps, round(30 / RATIO), "divided by the ratio"),
    (check.matched_compute_steps, round(30 * 32 * RATIO), "counts images, not steps"),
    (check.matched_compute_steps, MATCHED_BATCH, "the batch size"),
    (check.matched_compute_steps, round(30 * round(RATIO)), "cut the ratio short"),
    (check.matched_compute_batch, round(32 / RATIO), "divided by the ratio"),
    (check.matched_compute_batch, MATCHED_STEPS, "the number of steps"),
    (check.matched_compute_batch, round(30 * 32 * RATIO), "the whole run"),
    (check.matched_compute_batch, round(32 * round(RATIO, 1)), "cut the ratio short"),
]
