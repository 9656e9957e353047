"""Exercise checkers for notebook 07 training from scratch.

Each exercise asks for a prediction made before the cell that shows the answer; the right values come from
the same code the notebook runs (:func:`vitcourse.train.lr_factor`, :func:`vitcourse.train.param_groups`).
"""

from __future__ import annotations

import math

from .. import train
from ._core import Verdict, describe, float_answer, int_answer, never_raises, say

__all__ = ["lr_at_step", "no_position_accuracy", "seam_blocks_choice", "no_decay_count"]

#: The runs of notebook 07's position-embedding section: 200 steps, 15 of warm-up, peak 1e-3.
_RUN = train.TrainConfig()
_STEP = 100


@never_raises
def lr_at_step(answer: object) -> Verdict:
    """Exercise 07.2: the learning rate step 100 uses in a 200-step run (warm-up 15, peak 1e-3)."""
    peak, warmup, steps = _RUN.lr, _RUN.warmup, _RUN.steps
    expected = peak * train.lr_factor(_STEP, warmup, steps)
    return float_answer(
        answer,
        expected,
        f"learning rate at step {_STEP}",
        "Past the warm-up: peak * 0.5 * (1 + cos(pi * (step - warmup) / (steps - warmup))), angle in radians.",
        wrong=[
            (
                peak * 0.5 * (1 + math.cos(math.pi * _STEP / steps)),
                "that is a cosine over all 200 steps from step 0: the decay starts after the warm-up, so "
                "count from step - warmup over the steps - warmup that are left.",
            ),
            (
                peak * 0.5 * (1 + math.cos(math.pi * (_STEP - warmup) / steps)),
                "the cosine runs over the steps after the warm-up: divide by steps - warmup, not by steps.",
            ),
            (
                peak * 0.5 * (1 + math.cos(math.pi * _STEP / (steps - warmup))),
                "subtract the warm-up from the step too: the cosine's clock starts when the warm-up ends.",
            ),
            (
                train.lr_factor(_STEP, warmup, steps),
                "that is the fraction of the peak; multiply by the peak learning rate 1e-3.",
            ),
        ],
    )


@never_raises
def no_position_accuracy(answer: object) -> Verdict:
    """Exercise 07.3: held-out accuracy of the ViT without position embedding on intact-or-scrambled pairs."""
    return float_answer(
        answer,
        0.5,
        "held-out accuracy without a position embedding",
        "Without positions the model gives a scene and its scrambled copy the same output; how many of each "
        "pair can it then get right?",
        wrong=[
            (
                50.0,
                "right idea, but give the accuracy as a fraction between 0 and 1, not as a percentage.",
            ),
            (
                1.0,
                "a model without positions cannot tell the two images of a pair apart: it gives both the same "
                "output, so one of the two is always wrong.",
            ),
            (
                0.0,
                "both images of a pair get the same answer, so exactly one of them is right: not none.",
            ),
        ],
        rel=1e-6,
    )


_CHOICES = {
    "a": "Nothing changes: the model without positions stays at exactly 0.5.",
    "b": "The model without positions can now beat chance: a 20 x 20 patch can hold seams.",
    "c": "Every model is now at chance: the blocks are smaller than a patch.",
    "d": "Only models with a position embedding can still learn the task.",
}
_WHY = {
    "a": "with 10 x 10 blocks a 20 x 20 patch holds four blocks from different places, so the scrambled "
    "image's patches are not the intact image's patches in another order: the two outputs can differ.",
    "c": "smaller blocks leave more seams, and some of them now fall inside a patch, where the patch "
    "embedding sees them directly.",
    "d": "seams inside a patch change what the patch embedding receives, with or without positions.",
}


@never_raises
def seam_blocks_choice(answer: object) -> Verdict:
    """Exercise 07.4: what changes when the scramble shuffles 10 x 10 blocks and the ViT keeps P = 20."""
    what = "scrambling 10 x 10 blocks for a ViT with 20 x 20 patches"
    if answer is None:
        return say(False, f"{what}: the answer is still None; replace None with one of 'a', 'b', 'c', 'd'.")
    if not isinstance(answer, str):
        return say(False, f"{what}: expected one of the letters 'a', 'b', 'c', 'd', got {describe(answer)}.")
    letter = answer.strip().lower().rstrip(").")
    if letter not in _CHOICES:
        return say(False, f"{what}: {answer!r} is not one of the letters 'a', 'b', 'c', 'd'.")
    if letter != "b":
        return say(False, f"{what}: not ({letter}): {_WHY[letter]}")
    return say(True, f"{what}: (b) is right. {_CHOICES['b']}")


def _no_decay_variants() -> tuple[int, dict[int, str]]:
    model = train.build_model(_RUN)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    right = len(train.param_groups(model, _RUN.weight_decay)[1]["params"])
    by_dims = sum(p.ndim < 2 for _, p in named)
    biases = sum(n.endswith("bias") for n, _ in named)
    tokens = right - by_dims
    wrong = {
        by_dims: "the prediction token and the position embedding have 3 dims, (1, 1, D) and (1, N + 1, D): "
        "they are excluded by name, not by their number of dims.",
        biases: "biases are not the only vectors: the LayerNorm scales (norm1, norm2, norm weights) take no "
        "decay either, and neither do the two token tables.",
        biases + tokens: "the LayerNorm scales (norm1.weight, norm2.weight, norm.weight) take no decay too: "
        "their neutral value is 1, not 0.",
        len(named) - right: "that is the group that does take weight decay (the weight matrices).",
    }
    wrong.pop(right, None)
    return right, wrong


@never_raises
def no_decay_count(answer: object) -> Verdict:
    """Exercise 07.1: how many parameter tensors of the default ViT go into the no-weight-decay group."""
    right, wrong = _no_decay_variants()
    return int_answer(
        answer,
        right,
        "parameter tensors without weight decay",
        "Count every bias, every LayerNorm scale and bias, plus the prediction token and the position "
        "embedding; print(model) lists the layers.",
        wrong=wrong,
    )
