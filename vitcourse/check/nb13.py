"""Exercise checkers for notebook 13, inside trained models."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F
from torch import nn

from .. import probes, scenes
from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    int_answer,
    known_mistakes,
    never_raises,
    reread,
    say,
)

__all__ = [
    "control_rows_prediction",
    "control_run",
    "moon_corner_distance",
    "moon_only_head_distance",
    "shortcut_kept_wrong",
]


@functools.lru_cache(maxsize=1)
def _scramble_counts() -> dict[str, int]:
    """The scramble task's held-out set (``train.evaluate``'s: 128 intact scenes, then their scrambles): how many
    scrambles left patch 14, the bottom-right one, in place ("kept") and how many changed it ("changed")."""
    held_out = scenes.make_batch("scramble", size=256, seed=10_000, block=20)
    half = len(held_out.targets) // 2  # the intact scenes first, then their scrambles
    patches = F.unfold(held_out.images, 20, stride=20).transpose(1, 2)  # (256, 15, 400)
    kept = (patches[:half] == patches[half:]).all(-1)[:, 14]  # (128,): patch 14 left in place
    return {"kept": int(kept.sum()), "changed": int((~kept).sum())}


@functools.lru_cache(maxsize=1)
def _learned_scramble_run() -> nn.Module:
    """Notebook 10's scramble run with a learned position embedding, seed 0, trained on the CPU."""
    from ..train import (
        TrainConfig,
        train,
    )  # imported here: the training module is only needed by this checker

    return train(TrainConfig(pos_embed="learned", device="cpu"), progress=False).model


@never_raises
def shortcut_kept_wrong(answer: object) -> Verdict:
    """Exercise 13.2: how many of the held-out scrambles that left patch 14 in place a run labels wrong if it
    decides from patch 14 alone (whether the patch in the bottom-right slot is the one that belongs there).
    Section 4's learned run behaves so, as the notebook prints after the exercise."""
    counts = _scramble_counts()
    wrong = known_mistakes(
        [
            (
                0,
                "that is none of them, what a run that compares the tiles with one another could reach. This "
                "run checks one slot: think of what it finds there in such a scramble.",
            ),
            (
                counts["changed"],
                "that counts the scrambles that changed patch 14; the question asks about those that left it "
                "in place.",
            ),
        ],
        counts["kept"],
    )
    return int_answer(
        answer,
        counts["kept"],
        "the scrambles with patch 14 in place that a one-patch check gets wrong",
        nudge="The exercise rests on what a shortcut is: the one thing this run checks, and what that thing "
        "looks like in a scramble that left patch 14 where it was.",
        wrong=wrong,
        pointer=reread("A shortcut"),
    )


#: Exercise 13.1: the reference lines of the mean-attention-distance figure, on vit_within's 6 x 10 grid of
#: 10 x 10 patches.
DISTANCE_LINES = ("itself", "nearest", "uniform", "farthest")


def moon_only_distance(n_scenes: int = 256, seed: int = 0) -> tuple[float, dict[str, float]]:
    """The mean attention distance (pixels) of a head whose patch queries all attend only to the moon's patch, over
    ``n_scenes`` "within" scenes, and the figure's reference lines on the same grid."""
    patch, rows, cols = 10, 6, 10
    batch = scenes.make_batch("within", n_scenes, seed=seed, block=patch)
    moon = batch.targets[:, 0] * cols + batch.targets[:, 1]  # (n,): the moon's patch, counted from 0
    weights = torch.zeros(n_scenes, rows * cols, rows * cols)  # (n, queries, keys)
    weights[torch.arange(n_scenes), :, moon] = 1.0
    distance = probes.mean_attention_distance(weights, rows, cols, patch).mean().item()
    bounds = probes.attention_distance_bounds(rows, cols, patch)
    return distance, {k: float(bounds[k]) for k in DISTANCE_LINES}


@never_raises
def moon_only_head_distance(answer: object) -> Verdict:
    """Exercise 13.1 (a): the mean attention distance, in pixels, over many scenes, of a head whose patch queries
    attend only to the moon's patch (within about 3 pixels).

    The figure's four reference lines (:data:`DISTANCE_LINES`) are a few options to pick from, so, as in
    :func:`~vitcourse.check._core.choice_answer`, the wrong ones get no diagnosis of their own, only the hint
    ladder: a diagnosis per line would let a learner find the answer by elimination. Only a value that is no
    line, one corner scene's distance, is diagnosed."""
    distance, _lines = moon_only_distance()
    return float_answer(
        answer,
        distance,
        "a moon-only head's distance over many scenes",
        nudge="The exercise rests on the definition of the mean attention distance in section 2: read what it "
        "is averaged over.",
        wrong=[(moon_corner_distance_value(), "that is one scene's distance, with the moon in a corner.")],
        rel=3.0 / distance,
        pointer=reread("How far the heads look"),
    )


def moon_corner_distance_value() -> float:
    """The mean attention distance (pixels) of a moon-only head on one scene whose moon is in patch 0, the top-left
    corner of vit_within's 6 x 10 grid of 10 x 10 patches."""
    weights = torch.zeros(1, 60, 60)  # (1 scene, query patches, key patches)
    weights[0, :, 0] = 1.0
    return probes.mean_attention_distance(weights, 6, 10, 10).item()


@never_raises
def moon_corner_distance(answer: object) -> Verdict:
    """Exercise 13.1 (b): the mean attention distance, in pixels, of a head whose patch queries all attend only to
    patch 0, on one scene of vit_within's grid."""
    expected = moon_corner_distance_value()
    bounds = probes.attention_distance_bounds(6, 10, 10)
    return float_answer(
        answer,
        expected,
        "the moon-only head's distance on one scene",
        nudge="The exercise rests on what the weights hold: one row per query patch, each putting its whole "
        "weight on the moon's patch, and the distance averaged over the query patches.",
        wrong=[
            (expected / 10, "that is the distance in patches; the function and the question count pixels."),
            (
                float(bounds["uniform"]),
                "that is the uniform line, where a head that attends evenly lands; this head puts every "
                "query's weight on patch 0: build those weights and measure them.",
            ),
            (
                probes.mean_attention_distance(torch.eye(60)[None], 6, 10, 10).item(),
                "those weights put each query on itself; the head puts every query on the moon's patch, patch 0: "
                "a column of the weights, not the diagonal.",
            ),
        ],
        rel=0.01,
        pointer=reread("How far the heads look"),
    )


_CONTROL_OPTIONS = ("a", "b", "c", "d", "e", "f")


@never_raises
def control_run(answer: object) -> Verdict:
    """Exercise 13.3, the choice: which candidate run could refute the claim that learning the task put the
    row structure into the learned position embedding (a letter; :func:`control_rows_prediction` checks
    the prediction)."""
    return choice_answer(
        answer,
        "c",
        "the control for the claim about the embedding's rows",
        _CONTROL_OPTIONS,
        nudge="A control can refute a claim only if the claim predicts its result: think of which ingredient of "
        "training the claim credits.",
        pointer=reread("Designing a control"),
    )


def rows_only_scores() -> dict[str, float]:
    """The rows-only score, mean removed, of section 4's learned position embedding (seed 0): at the start, and
    after the run with the true labels (trained on the CPU, once)."""

    def rows_only(table: torch.Tensor) -> float:
        patches = table.detach().cpu()[0, 1:]  # (15, D): the prediction token's slot left out
        return probes.row_column_score(patches - patches.mean(0), 3, 5, along="row")

    from ..train import TrainConfig, build_model  # imported here: the training module is only needed here

    start = build_model(TrainConfig(pos_embed="learned", device="cpu"))
    return {"start": rows_only(start.pos_embed), "claim": rows_only(_learned_scramble_run().pos_embed)}


@never_raises
def control_rows_prediction(answer: object) -> Verdict:
    """Exercise 13.3, the prediction: the rows-only score, mean removed, that the claim predicts for the control
    run, within 0.02 (:func:`control_run` checks the choice of run)."""
    scores = rows_only_scores()
    what = "the claim's prediction for the control's rows-only score"
    near_claim = (
        isinstance(answer, int | float)
        and not isinstance(answer, bool)
        and abs(answer - scores["claim"]) <= 0.05
        and abs(answer - scores["start"]) > 0.1
    )
    if near_claim:
        return say(
            False,
            f"{what}: {float(answer):.4g} is not it: that is the score of the claim's own run, which had the "
            "ingredient the claim credits; the prediction is for a run without it.",
        )
    return float_answer(
        answer,
        scores["start"],
        what,
        nudge="A prediction follows from the claim alone: think of what the claim says the table owes to the "
        "one ingredient it credits.",
        rel=0.02 / max(abs(scores["start"]), 1e-3),
        pointer=reread("Designing a control"),
    )
