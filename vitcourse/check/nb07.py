"""Exercise checkers for notebook 07 training from scratch.

Each exercise asks for a prediction made before the cell that shows the answer; the right values come from
the same code the notebook runs (:func:`vitcourse.train.lr_factor`, :func:`vitcourse.train.param_groups`).
The few-option questions (:func:`seam_blocks_choice`, :func:`control_run`) and the accuracy a guess could hit
(:func:`no_position_accuracy`) come with a second check (a reason among several statements, a prediction among
several, or a count), so that a guess does not pass.
"""

from __future__ import annotations

import math

from .. import train
from ._core import Verdict, choice_answer, float_answer, int_answer, never_raises

__all__ = [
    "half_lr_step",
    "no_position_accuracy",
    "no_position_one_right",
    "seam_blocks_choice",
    "seam_blocks_reason",
    "no_decay_count",
    "control_run",
    "control_rows_prediction",
]

#: The runs of notebook 07's position-embedding section: 200 steps, 15 of warm-up, peak 1e-3.
_RUN = train.TrainConfig()


def _first_below_half(factor, start: int = 0) -> int:
    """The first step k >= start of the run whose ``factor(k)`` is below one half."""
    return next(k for k in range(start, 10 * _RUN.steps) if factor(k) < 0.5)


@never_raises
def half_lr_step(answer: object) -> Verdict:
    """Exercise 07.2: the first step of the cosine decay whose learning rate is below half the peak, in a
    200-step run with 15 warm-up steps (steps counted from 0)."""
    warmup, steps = _RUN.warmup, _RUN.steps
    right = _first_below_half(lambda k: train.lr_factor(k, warmup, steps), warmup)

    def cosine(k: int, shift: int, span: int) -> float:
        return 0.5 * (1 + math.cos(math.pi * (k - shift) / span))

    wrong = {
        _first_below_half(lambda k: cosine(k, warmup, steps), warmup): "that is where a cosine over all the "
        "steps would pass one half: the decay runs over the steps left after the warm-up, not over all of them.",
        _first_below_half(
            lambda k: cosine(k, 0, steps)
        ): "that is a cosine over the whole run from step 0: the decay starts when the warm-up ends.",
        steps
        // 2: "half the run is not where the rate is half: the cosine starts after the warm-up and runs "
        "over the steps that are left.",
        right
        - 1: "at that step the angle is still just short of pi / 2, so the rate is still a little above "
        "half the peak: take the first whole step past the crossing.",
        right + 1: "steps count from 0 here (the first step is step 0); that answer counts them from 1.",
        0: "that is a warm-up step, where the rate is still climbing; the question asks about the cosine decay "
        "after the peak.",
    }
    since_warmup = _first_below_half(lambda k: cosine(k, 0, steps - warmup))
    for k in (since_warmup - 1, since_warmup):
        wrong.setdefault(
            k,
            "that counts steps since the warm-up ended (the cosine's own clock); the question asks for the step "
            "number counted from the start of the run.",
        )
    wrong.pop(right, None)
    return int_answer(
        answer,
        right,
        "first step of the decay below half the peak",
        "Revisit the schedule's formula in 'The training loop': in the cosine branch, ask when the factor "
        "(1 + cos angle) / 2 drops below one half.",
        wrong=wrong,
        pointer="The factor is below one half exactly when the cosine is negative, that is once the angle "
        "pi (k - W) / (T - W) passes pi / 2. Solve that for k with the run's W and T (the first code cell prints "
        "them) and take the first whole step past it.",
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


@never_raises
def no_position_one_right(answer: object) -> Verdict:
    """Exercise 07.3, the count: on how many of the 128 held-out pairs the ViT without a position embedding
    gets exactly one of the two images right."""
    pairs = 128
    return int_answer(
        answer,
        pairs,
        "held-out pairs with exactly one image right, without a position embedding",
        "Revisit the argument before Exercise 3 and notebook 03: what do the model's outputs for a scene and for "
        "its scrambled copy have in common?",
        wrong={
            pairs
            // 2: "that is what two independent coin flips per pair would give; but both images of a pair "
            "get the same output, and their labels differ.",
            0: "a pair with no image right, or with both right, needs two different answers for its two images; "
            "this model gives both the same output.",
        },
        pointer="The two images of a pair get one and the same output and have different labels: count how many "
        "of a pair's two answers are right, whatever that output is, then how many pairs are like that.",
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
    "ii": "a linear map gives every pixel of the patch its own weights: a quarter that lands in another corner "
    "of the patch meets other weights, so the order inside a patch does matter; and the four pieces come from "
    "other places of the scene anyway.",
    "iii": "attention without a position embedding is blind to any reordering of its tokens, however large "
    "(notebook 03): a bigger shuffle is still a reordering. What can change is the tokens themselves.",
    "iv": "the patch embedding reads every pixel of the patch with its own weight; nothing is averaged away, "
    "and a block half the patch's side is still 100 pixels the embedding sees one by one.",
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


#: Exercise 07.1's model: the default ViT with the fixed sinusoidal table.
_SINUSOIDAL = train.TrainConfig(pos_embed="sinusoidal")


def _no_decay_variants() -> tuple[int, dict[int, str]]:
    model = train.build_model(_SINUSOIDAL)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    right = len(train.param_groups(model, _SINUSOIDAL.weight_decay)[1]["params"])
    by_dims = sum(p.ndim < 2 for _, p in named)
    biases = sum(n.endswith("bias") for n, _ in named)
    tokens = right - by_dims
    fixed = sum(not p.requires_grad for p in model.parameters())
    wrong = {
        right + fixed: "the fixed sinusoidal table is a parameter that does not train: it goes in neither "
        "group, since an optimiser never changes it.",
        by_dims: "the prediction token has 3 dims, (1, 1, D): it is excluded by name, not by its number of "
        "dims.",
        biases: "biases are not the only vectors: the LayerNorm scales (norm1, norm2, norm weights) take no "
        "decay either, and neither does the prediction token.",
        biases + tokens: "the LayerNorm scales (norm1.weight, norm2.weight, norm.weight) take no decay too: "
        "their neutral value is 1, not 0.",
        len(named) - right: "that is the group that does take weight decay (the weight matrices).",
    }
    wrong.pop(right, None)
    return right, wrong


@never_raises
def no_decay_count(answer: object) -> Verdict:
    """Exercise 07.1: how many parameter tensors of the ViT with the fixed sinusoidal table go into the
    no-weight-decay group."""
    right, wrong = _no_decay_variants()
    return int_answer(
        answer,
        right,
        "parameter tensors without weight decay",
        "Revisit 'Which parameters take weight decay': which kinds of tensor go into the group without decay, "
        "and which go into neither group; then count them in the printout.",
        wrong=wrong,
        pointer="Go through print(model) layer by layer: a Linear with bias=True adds one bias, a LayerNorm a "
        "scale and a shift; count one encoder block and multiply by the number of blocks; then add the "
        "model's own tensors that no_weight_decay() names and that train (print does not list them; the cell "
        "prints whether they train).",
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
    "e": "that comparison is in the table already ('at the start'): it shows that training changed the table, "
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


_ROWS_OPTIONS = ("start", "between", "claim", "negative")
_ROWS_WHY = {
    "claim": "that is the claim run's own score; the claim credits the labels, so for a run whose labels say "
    "nothing about scrambling it predicts no such structure.",
    "between": "halfway would mean that the images and the optimiser put part of the structure there by "
    "themselves: that is a rival explanation, not what the claim predicts.",
    "negative": "shuffled labels say nothing about scrambling, so the claim gives no reason for the embedding "
    "to move against the structure: it predicts the structure absent, not reversed.",
}


@never_raises
def control_rows_prediction(answer: object) -> Verdict:
    """Exercise 07.5, the prediction: what the claim predicts for the control run's rows-only score, as one of
    "start", "between", "claim" or "negative" (:func:`control_run` checks the choice of run)."""
    return choice_answer(
        answer,
        "start",
        "the claim's prediction for the control's rows-only score",
        _ROWS_OPTIONS,
        "Revisit the claim: what does it say happens to the structure when the one thing it credits is taken "
        "away?",
        pointer="If only the labels put the structure there, a run whose labels carry no information should end "
        "where its table began.",
        wrong=_ROWS_WHY,
    )
