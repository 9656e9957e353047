"""Exercise checkers for notebook 11, training choices: position embeddings and block size.

Each exercise asks for a prediction or an explanation before the cell that shows the answer. The one
few-option question grades its choice and its reason together, as one answer, so that trying options does not
pass. Every unexplained wrong answer climbs the ladder of :mod:`vitcourse.check._core`: a nudge (which idea), then a section to reread.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch

from ._core import (
    Verdict,
    choice_answer,
    describe,
    float_answer,
    never_raises,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "blind_best_accuracy",
    "no_position_batch_dip",
    "no_position_loss_floor",
    "plateau_guess",
    "plateau_wait",
    "seam_blocks_pair",
]


@never_raises
def no_position_loss_floor(answer: object) -> Verdict:
    """Exercise 11.1, the floor: the lowest held-out loss (mean cross-entropy, natural log) the ViT without a
    position embedding can reach, whatever its weights, on a held-out set that holds each scene once intact and
    twice scrambled (two different scrambles)."""
    third = 1 / 3  # the share of intact images in that set
    return float_answer(
        answer,
        -(third * math.log(third) + (1 - third) * math.log(1 - third)),
        "the lowest held-out loss without a position embedding",
        nudge="Attention without a position embedding cannot see the order of its tokens (notebook 03); "
        "cross-entropy charges each image for the probability it gives the image's own label.",
        wrong=[
            (
                math.log(2),
                "that is the floor of notebook 10's held-out set, one scrambled image per intact one; this set "
                "is built differently.",
            ),
            (
                2 / 3,
                "that is a probability or a share, not a loss; the question asks for the mean cross-entropy.",
            ),
            (
                0.0,
                "that assumes the model can give a scene's images different answers.",
            ),
            (
                -(third * math.log2(third) + (1 - third) * math.log2(1 - third)),
                "right idea, but in bits: PyTorch's cross-entropy uses the natural logarithm.",
            ),
            (
                -math.log(1 - third),
                "that is the loss of the scrambled images alone; the mean runs over all three images of a "
                "scene, the intact one too.",
            ),
            (
                -math.log(third),
                "that is the intact image's loss alone; average it with the two scrambled ones.",
            ),
            (0.64, "close: give it to three decimals."),  # the right value rounded to two decimals
        ],
        rel=0.005,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


#: Exercise 11.1(b): a batch of 64 images holding both images of 8 scenes and one image of each of 48 others.
_PAIRED, _SINGLE, _BATCH = 8, 48, 64


@never_raises
def no_position_batch_dip(answer: object) -> Verdict:
    """Exercise 11.1(b): the lowest loss the blind ViT could approach on a training batch of 64 images that holds
    both images of 8 scenes and one image of each of 48 other scenes."""
    paired_images = 2 * _PAIRED
    return float_answer(
        answer,
        paired_images / _BATCH * math.log(2),
        "the lowest loss of the blind ViT on that batch",
        nudge="The blind ViT's limit comes from what it receives for a scene's two images; the batch is drawn "
        "image by image, not scene by scene.",
        wrong=[
            (math.log(2), "that applies the floor of whole pairs to every image, the single ones too."),
            (0.0, "that fits every image, those of the 8 scenes present with both images too."),
            (
                _PAIRED / _BATCH * math.log(2),
                "that counts the paired scenes, not their images, in the mean over 64 images.",
            ),
            (
                _SINGLE / _BATCH * math.log(2),
                "that swaps the batch's two kinds of image: the bound ones and the free ones.",
            ),
            (0.17, "close: give it to three decimals."),
        ],
        rel=0.005,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


@never_raises
def blind_best_accuracy(answer: object) -> Verdict:
    """Exercise 11.1(c): the highest held-out accuracy the ViT without a position embedding can reach, whatever its
    weights, on the held-out set of 11.1(a): each scene once intact and twice scrambled (two different scrambles)."""
    return float_answer(
        answer,
        2 / 3,
        "the blind ViT's best accuracy on a set with two scrambles per scene",
        nudge="Ask what the model without positions receives for a scene's three images, and so how many "
        "different answers it can give them.",
        wrong=[
            (
                0.5,
                "that is the accuracy on notebook 10's held-out set, one scrambled image per intact one; this set "
                "is built differently.",
            ),
            (1 / 3, "that is what answering 'intact' for every image scores."),
            (1.0, "that needs different answers for a scene's images, which this model cannot give."),
        ],
        rel=0.005,
        pointer=reread("Position embeddings: none, sinusoidal, learned"),
    )


#: Exercise 11.2: the steps at which each run's batch loss first fell below 0.6, in the runs stored with the
#: notebook. The notebook passes its own runs' steps (``exits=``); these are only the default for a call without.
_STORED_EXITS = {
    ("sinusoidal", 0): 34,
    ("sinusoidal", 1): 32,
    ("sinusoidal", 2): 27,
    ("learned", 0): 59,
    ("learned", 1): 120,
    ("learned", 2): 23,
}
_WARMUP = 15  # TrainConfig()'s warm-up steps
_READING_ERROR = 3  # steps: how far a reading off the figure may miss the triangle


def _waits(exits: object, warmup: object, kind: str) -> list[int] | None:
    """The steps after the warm-up at which the runs of ``kind`` left the plateau, or None if ``exits`` is not a
    mapping of (kind, seed) to steps."""
    if not isinstance(exits, Mapping) or isinstance(warmup, bool) or not isinstance(warmup, int):
        return None
    try:
        steps = [
            int(step) for key, step in exits.items() if isinstance(key, tuple) and key and key[0] == kind
        ]
    except (TypeError, ValueError):
        return None
    return [step - warmup for step in steps] or None


def _wait_mistakes(sinusoidal: list[int], learned: list[int] | None, warmup: int) -> list[tuple[int, str]]:
    """Exercise 11.2(a)'s typical misreadings, each with its diagnosis."""
    mistakes = [
        (
            min(sinusoidal) + warmup,
            "that is the step at which the run leaves; count from the end of the warm-up.",
        ),
        (max(sinusoidal), "that is the latest of the sinusoidal runs; the question asks about the earliest."),
    ]
    if learned:
        mistakes.append(
            (
                min(learned),
                "that is a green triangle, a learned run; the question asks about the sinusoidal runs.",
            )
        )
    return mistakes


_WAIT = "the earliest sinusoidal run's wait after the warm-up"
_WAIT_NUDGE = (
    "A triangle marks the first step whose batch loss is below the dashed line; the grey band is the warm-up. "
    "Read the step axis at each orange triangle."
)


def _wait_verdict(answer: object, exits: object, warmup: object) -> tuple[bool, str | None]:
    """Whether ``answer`` reads 11.2(a) right, and the message without its mark (None: a wrong reading that no
    known mistake explains)."""
    what = _WAIT
    if exits is None:
        exits, warmup = _STORED_EXITS, _WARMUP
    sinusoidal = _waits(exits, warmup, "sinusoidal")
    if sinusoidal is None:
        return False, f"{what}: pass the notebook's exits and warm-up (exits=exits, warmup=defaults.warmup)."
    if answer is None:
        return False, f"{what}: the answer is still None; replace None with a whole number of steps."
    if isinstance(answer, torch.Tensor) and answer.numel() == 1:
        answer = answer.item()
    if isinstance(answer, np.ndarray | np.integer | np.floating) and np.size(answer) == 1:
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, int | float) or not math.isfinite(answer):
        return False, f"{what}: expected a whole number of steps, got {describe(answer)}."
    if answer != int(answer):
        return False, f"{what}: {answer} is not a whole number of steps."
    value, expected = int(answer), min(sinusoidal)
    if abs(value - expected) <= _READING_ERROR:
        return True, f"{what}: right."
    for bad, mistake in _wait_mistakes(sinusoidal, _waits(exits, warmup, "learned"), int(warmup)):
        if abs(value - bad) <= 1 and abs(bad - expected) > _READING_ERROR:
            return False, f"{what}: {value} is not it: {mistake}"
    return False, None


@never_raises
def plateau_wait(answer: object, exits: object = None, warmup: object = _WARMUP) -> Verdict:
    """Exercise 11.2(a) (read a figure): of the three sinusoidal runs, the one that leaves the plateau first (its
    batch loss first below 0.6): how many steps after the end of the warm-up it leaves. Graded against ``exits``,
    the notebook's own runs ((kind, seed) -> step), within a reading error of 3 steps."""
    ok, message = _wait_verdict(answer, exits, warmup)
    if ok:
        return right(_WAIT)
    if message is None:
        return unexplained(
            _WAIT,
            f"{answer} is not it.",
            nudge=_WAIT_NUDGE,
            pointer=reread("The training losses, seed by seed"),
        )
    return say(False, message)


#: Exercise 11.2(b)'s statements about notebook 10's guess.
_NOT_GIVEN = object()  # plateau_guess called without the learner's answer to (a)
_GUESS_OPTIONS = ("A", "B", "C", "D")


@never_raises
def plateau_guess(
    answer: object, wait: object = _NOT_GIVEN, exits: object = None, warmup: object = _WARMUP
) -> Verdict:
    """Exercise 11.2(b): which statement the sinusoidal runs' wait supports about notebook 10's guess (that the
    learned run waits because its table starts small). Given ``wait`` (the learner's answer to 11.2(a), None
    included) the statement passes only once that reading is right too."""
    what = "the statement about notebook 10's guess"
    if wait is not _NOT_GIVEN and not _wait_verdict(wait, exits, warmup)[0]:
        return say(False, f"{what}: it is graded with your answer to (a); get (a) right first.")
    return choice_answer(
        answer,
        "B",
        what,
        _GUESS_OPTIONS,
        nudge="Not this one. Ask what the guess predicts for a run whose table needs no growing, and compare "
        "that with your answer to (a).",
        pointer=reread("The training losses, seed by seed"),
    )


#: Exercise 11.3's answers: a statement (a to d) and a reason (i to iv), graded together as one pair.
_SEAM_PAIRS = tuple(f"{letter}-{reason}" for letter in "abcd" for reason in ("i", "ii", "iii", "iv"))


@never_raises
def seam_blocks_pair(answer: object) -> Verdict:
    """Exercise 11.3 (predict): what changes when the scramble shuffles 10 x 10 blocks and the ViT keeps P = 20,
    as one answer: the statement's letter and the reason's number together ("b-i"). Graded as a pair, with one
    feedback for every wrong pair, so trying the letters and the reasons one at a time does not finish it."""
    if isinstance(answer, str):
        answer = answer.replace(" ", "").replace(",", "-").replace("(", "").replace(")", "")
    return choice_answer(
        answer,
        "b-i",
        "the statement and reason about 10 x 10 blocks for a ViT with 20 x 20 patches",
        _SEAM_PAIRS,
        nudge="Not this pair. Recall exactly what attention without a position embedding is blind to "
        "(notebook 03), and what it still receives.",
        pointer=reread("Moving the seams"),
    )
