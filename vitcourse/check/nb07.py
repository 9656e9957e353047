"""Exercise checkers for notebook 07 training from scratch.

Each exercise asks for a prediction made before the cell that shows the answer; the right values come from
the same code the notebook runs (:func:`vitcourse.train.lr_factor`, :func:`vitcourse.train.param_groups`).
The few-option questions (:func:`seam_blocks_choice`, :func:`control_run`) come with a second check (a reason
among several statements, or a number), so that a guess does not pass.
"""

from __future__ import annotations

import math

from .. import train
from ._core import Verdict, choice_answer, float_answer, int_answer, never_raises

__all__ = [
    "lr_at_step",
    "no_position_accuracy",
    "seam_blocks_choice",
    "seam_blocks_reason",
    "no_decay_count",
    "control_run",
    "control_accuracy",
]

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
        "Revisit the schedule's formula in 'The training loop': first decide which of its two branches this "
        "step falls in.",
        wrong=[
            (
                peak * 0.5 * (1 + math.cos(math.pi * _STEP / steps)),
                "that is a cosine over the whole run from step 0: the decay starts after the warm-up, so "
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
                "that is the fraction of the peak; multiply by the peak learning rate.",
            ),
            (
                peak * 0.5 * (1 + math.cos((_STEP - warmup) / (steps - warmup))),
                "the angle is in radians and runs from 0 to pi over the decay: multiply the fraction of the "
                "decay that has passed by pi before taking the cosine.",
            ),
        ],
        pointer="In the cosine branch the angle is pi times (steps since the warm-up ended) / (steps left "
        "after the warm-up), in radians; the formula gives a fraction of the peak learning rate, which the "
        "first code cell prints.",
    )


@never_raises
def no_position_accuracy(answer: object) -> Verdict:
    """Exercise 07.3: held-out accuracy of the ViT without position embedding on intact-or-scrambled pairs."""
    return float_answer(
        answer,
        0.5,
        "held-out accuracy without a position embedding",
        "Revisit notebook 03 (what attention does to its tokens in another order) and this notebook's data "
        "section: how many of each pair can the model get right?",
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
        pointer="Without a position embedding the output for a scene equals the output for its scrambled copy, "
        "whatever the weights; the two images of a pair have different labels. Count the right answers per "
        "pair and divide by the pair's size.",
    )


_SEAM_OPTIONS = ("a", "b", "c", "d")
_SEAM_WHY = {
    "a": "the blind model stays at chance as long as the scrambled image's tokens are the intact image's "
    "tokens in another order; ask whether that still holds when a block is smaller than a patch.",
    "c": "smaller blocks do not hide the scramble from a patch: look at what one 20 x 20 patch of a 10 x 10 "
    "scramble contains.",
    "d": "a position embedding is not the only way a ViT can see a scramble: look at what the patch embedding "
    "receives.",
}


@never_raises
def seam_blocks_choice(answer: object) -> Verdict:
    """Exercise 07.4, the choice: what changes when the scramble shuffles 10 x 10 blocks and the ViT keeps
    P = 20 (a letter; :func:`seam_blocks_reason` checks the reason)."""
    return choice_answer(
        answer,
        "b",
        "scrambling 10 x 10 blocks for a ViT with 20 x 20 patches",
        _SEAM_OPTIONS,
        "Revisit 'Moving the seams' and notebook 01: what goes into one patch token.",
        pointer="Draw one 20 x 20 patch of a 10 x 10 scramble and ask where its four quarters came from.",
        wrong=_SEAM_WHY,
    )


_REASON_OPTIONS = ("i", "ii", "iii", "iv")
_REASON_WHY = {
    "ii": "the number of tokens is set by the picture's size and the patch size, not by the scramble: both "
    "images give the same count.",
    "iii": "attention without a position embedding treats its tokens as a set whatever they hold (notebook "
    "03); what the scramble can change is the tokens themselves.",
    "iv": "the prediction token is prepended first in both images; and without a position embedding a token's "
    "place in the sequence would not matter anyway.",
}


@never_raises
def seam_blocks_reason(answer: object) -> Verdict:
    """Exercise 07.4, the reason (i to iv) behind the choice of :func:`seam_blocks_choice`."""
    return choice_answer(
        answer,
        "i",
        "the reason for your choice about 10 x 10 blocks",
        _REASON_OPTIONS,
        "Revisit notebook 03's permutation argument: it needs the two images' tokens to be the same tokens.",
        pointer="Compare the patch tokens of the intact image and of a 10 x 10 scramble: is each token of the "
        "scramble one of the intact image's tokens?",
        wrong=_REASON_WHY,
    )


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
        "Revisit 'Which parameters take weight decay': which kinds of tensor go into the group without decay; "
        "then count them in the printout.",
        wrong=wrong,
        pointer="Go through print(model) layer by layer: a Linear with bias=True adds one bias, a LayerNorm a "
        "scale and a shift; count one encoder block and multiply by the number of blocks; then add the "
        "model's own tensors that no_weight_decay() names (print does not list them).",
    )


_CONTROL_OPTIONS = ("a", "b", "c", "d", "e")
_CONTROL_WHY = {
    "a": "another seed repeats the same task with other starting weights and another batch order: it tests "
    "whether the structure is robust, but the task is in both runs, so it cannot tell whether the task is "
    "what put the rows there.",
    "b": "a ViT without a position embedding has no table to probe, and it cannot learn this task at all "
    "(Exercise 3): its run says nothing about where the learned table's rows came from.",
    "d": "more steps of the same task test whether the structure grows; the task is in both runs, so the "
    "result cannot separate the task from the rest of training.",
    "e": "that control is in the table already ('at the start'): it shows that training changed the table, "
    "not which ingredient of training did it.",
}


@never_raises
def control_run(answer: object) -> Verdict:
    """Exercise 07.5, the choice: which candidate run could refute the claim that learning the task put the
    row structure into the learned position embedding (a letter; :func:`control_accuracy` checks the
    prediction)."""
    return choice_answer(
        answer,
        "c",
        "the control for the claim about the embedding's rows",
        _CONTROL_OPTIONS,
        "Revisit the claim: it credits one ingredient of training. A control keeps every other ingredient and "
        "takes that one away.",
        pointer="List what could have shaped the table during training: the starting weights, the images "
        "flowing through the model, the number of steps, what the labels say. Which run changes only the "
        "ingredient the claim credits?",
        wrong=_CONTROL_WHY,
    )


@never_raises
def control_accuracy(answer: object) -> Verdict:
    """Exercise 07.5, the prediction: the held-out accuracy of the control run, to within 0.05."""
    return float_answer(
        answer,
        0.5,
        "the control run's held-out accuracy",
        "Revisit the data section (how the held-out set is labelled) and ask what a model can learn about "
        "those labels from training labels that were shuffled.",
        wrong=[
            (
                50.0,
                "give the accuracy as a fraction between 0 and 1, not as a percentage.",
            ),
            (
                1.0,
                "that is about what the run with the true labels reached; after shuffling, a training label "
                "no longer says whether its image is scrambled.",
            ),
            (
                0.0,
                "an accuracy of 0 would need a model that knows the right answer and gives the other one: "
                "a model that knows nothing is not always wrong.",
            ),
        ],
        rel=0.1,
        pointer="Shuffled labels are independent of the images, so nothing the model learns from them carries "
        "over to the held-out labels: its held-out accuracy is that of a guess on a set with as many intact "
        "images as scrambled ones.",
    )
