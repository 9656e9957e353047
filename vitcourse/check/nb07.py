"""Exercise checkers for notebook 07 training from scratch.

Each exercise asks for a prediction, an explanation, a bug or a design before the cell that shows the answer;
the right values come from the same code the notebook runs (:func:`vitcourse.train.param_groups`,
:func:`vitcourse.train.lr_factor`). Few-option questions come with a second check (a reason among several
statements, a prediction among several, or a count), so that a guess does not pass. Every unexplained wrong
answer climbs the ladder of :mod:`vitcourse.check._core`: a nudge (which idea), then a section to reread.
"""

from __future__ import annotations

import math

from .. import train
from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    int_answer,
    never_raises,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "decay_choice",
    "decay_reason",
    "schedule_bug_line",
    "schedule_bug_effect",
    "no_position_loss_floor",
    "no_position_batch_dip",
    "seam_blocks_choice",
    "seam_blocks_reason",
    "control_run",
    "control_rows_prediction",
]

#: Exercise 07.1's model: the default ViT with the fixed sinusoidal table.
_SINUSOIDAL = train.TrainConfig(pos_embed="sinusoidal")

#: Exercise 07.1's five tensors, by letter.
_DECAY_TENSORS = {
    "a": "patch_embed.proj.weight",
    "b": "blocks.0.attn.qkv.bias",
    "c": "blocks.0.norm1.weight",
    "d": "blocks.0.mlp.fc1.weight",
    "e": "pos_embed",
}

#: A letter that does not belong among the decayed tensors: (e) gets a fact from the list; (b) and (c) get a
#: guiding question, so that the reason the exercise tests stays in the worked solution.
_NOT_DECAYED = {
    "e": "(e) is the fixed sinusoidal table: it does not train, so an optimiser never changes it and it goes "
    "into neither group.",
    "b": "(b) should not be there: what does a bias add to a layer's output, and does it mix the features?",
    "c": "(c) should not be there: what value leaves a LayerNorm scale neutral? The second part of the "
    "exercise asks about it.",
}


#: Counts in words, for a wrong answer with more than one mistake (no letter named, so no elimination).
_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def _decayed_letters() -> str:
    """The letters of Exercise 07.1 whose tensor is in the weight-decay group of train.param_groups."""
    model = train.build_model(_SINUSOIDAL)
    decayed = {id(p) for p in train.param_groups(model, _SINUSOIDAL.weight_decay)[0]["params"]}
    named = dict(model.named_parameters())
    return "".join(k for k, name in _DECAY_TENSORS.items() if id(named[name]) in decayed)


@never_raises
def decay_choice(answer: object) -> Verdict:
    """Exercise 07.1, the choice: which of five tensors of the ViT with the fixed sinusoidal table AdamW should
    pull towards 0, as a string of letters such as ``"bd"`` (:func:`decay_reason` checks the reason)."""
    what = "the tensors that take weight decay"
    options = sorted(_DECAY_TENSORS)
    if answer is None:
        return say(
            False, f"{what}: the answer is still None; replace None with a string of letters, e.g. 'bd'."
        )
    if isinstance(answer, list | tuple | set) and all(isinstance(a, str) for a in answer):
        answer = "".join(answer)
    if not isinstance(answer, str):
        return say(False, f"{what}: expected a string of the letters {options}, got {type(answer).__name__}.")
    letters = [c for c in answer.lower() if c not in " ,;+&'\"-"]
    if not letters or any(c not in _DECAY_TENSORS for c in letters):
        return say(False, f"{what}: {answer!r} is not a string made of the letters {options}.")
    chosen = set(letters)
    expected = set(_decayed_letters())
    if chosen == expected:
        return right(what)
    extra, missing = chosen - expected, expected - chosen
    if len(extra) == 1 and not missing:  # name a wrong letter only when it is the answer's only mistake
        return say(False, f"{what}: {answer!r} is not it: {_NOT_DECAYED[extra.pop()]}")
    counts = []
    if extra:
        counts.append(f"{_COUNT_WORDS[len(extra)]} of your letters should not be there")
    if missing:
        counts.append(f"{_COUNT_WORDS[len(missing)]} tensor{'s are' if len(missing) > 1 else ' is'} missing")
    return unexplained(
        what,
        f"{answer!r} is not it: {', and '.join(counts)}.",
        nudge="Ask of each tensor whether a pull towards 0 makes the model simpler, or takes away something "
        "the model needs.",
        pointer=reread("The training loop"),
    )


_REASON_WHY_DECAY = {
    "ii": "a pull towards 0 acts on every value alike, however few there are: applied step after step, it "
    "would move even one value a long way.",
    "iii": "LayerNorm normalises first and multiplies by the scale afterwards: nothing after the scale undoes a "
    "change to it.",
    "iv": "the scale multiplies the normalised features, so the loss depends on it and it receives a gradient "
    "like any other parameter.",
}


@never_raises
def decay_reason(answer: object) -> Verdict:
    """Exercise 07.1, the reason (i to iv) a LayerNorm scale is left out of weight decay."""
    return choice_answer(
        answer,
        "i",
        "why a LayerNorm scale takes no weight decay",
        ("i", "ii", "iii", "iv"),
        nudge="Think of the value a LayerNorm scale starts at, and of what it does to the features it scales.",
        pointer=reread("The training loop"),
        wrong=_REASON_WHY_DECAY,
    )


#: Exercise 07.2: the progress of line 3 forgets to subtract the warm-up (the other lines match the formula).
_BUGGY_LINE = 3


@never_raises
def schedule_bug_line(answer: object) -> Verdict:
    """Exercise 07.2, the line: which of the four numbered lines of the buggy schedule holds the bug."""
    return int_answer(
        answer,
        _BUGGY_LINE,
        "the line of the schedule with the bug",
        nudge="Compare each line with the formula of the schedule, branch by branch.",
        wrong={
            1: "the test that picks the branch is right: the warm-up is the steps before the warm-up's end.",
            2: "the warm-up line climbs linearly to the peak at the end of the warm-up, as the formula says.",
            4: "that line is the formula's cosine term as it stands.",
        },
        pointer=reread("The training loop"),
    )


_EFFECT_WHY = {
    "a": "the buggy schedule's angle passes pi / 2 before the run ends, so its rate falls below half the peak: "
    "where does its clock start?",
    "c": "at the end of the warm-up both schedules are close to the peak: the bug hardly shows there.",
    "d": "the warm-up lines are right, so step 0 gets a small positive rate in both schedules.",
}


@never_raises
def schedule_bug_effect(answer: object) -> Verdict:
    """Exercise 07.2, the effect (a to d): what the buggy schedule's learning rate does."""
    return choice_answer(
        answer,
        "b",
        "what the buggy schedule does",
        ("a", "b", "c", "d"),
        nudge="Reread the sentence under the schedule formula: where should the cosine's angle reach pi? What "
        "does a clock that runs ahead do to that?",
        pointer=reread("The training loop"),
        wrong=_EFFECT_WHY,
    )


@never_raises
def no_position_loss_floor(answer: object) -> Verdict:
    """Exercise 07.3, the floor: the lowest held-out loss (mean cross-entropy, natural log) the ViT without a
    position embedding can reach, whatever its weights, on a held-out set that holds each scene once intact and
    twice scrambled (two different scrambles)."""
    third = 1 / 3  # the share of intact images in that set
    return float_answer(
        answer,
        -(third * math.log(third) + (1 - third) * math.log(1 - third)),
        "the lowest held-out loss without a position embedding",
        nudge="Attention without a position embedding sees its tokens as a set (notebook 03); cross-entropy "
        "charges each image for the probability it gives the image's own label.",
        wrong=[
            (
                math.log(2),
                "that is the floor when half of a scene's images are scrambled; here two of its three are: which "
                "single probability of 'scrambled' suits all three images of a scene best?",
            ),
            (
                2 / 3,
                "that is a probability or a share of right answers; the question asks for the loss, the mean "
                "cross-entropy.",
            ),
            (
                0.0,
                "a loss of 0 needs a confident right answer for both images of every pair, and their labels "
                "differ: ask whether this model can give a scene and its scrambled copy different answers.",
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


_DIP_OPTIONS = ("i", "ii", "iii")
_DIP_WHY = {
    "ii": "the batch order tells the model nothing about where a patch sits in an image: the tokens of each "
    "image still reach attention as a set, whatever order the images come in.",
    "iii": "the floor holds for every set of weights, so no step, with momentum or without, can carry a model "
    "below it on whole pairs: ask what a training batch holds instead.",
}


@never_raises
def no_position_batch_dip(answer: object) -> Verdict:
    """Exercise 07.3, the surprise: why one training batch's loss of the blind ViT can fall below the floor
    that holds for the held-out pairs (i to iii)."""
    return choice_answer(
        answer,
        "i",
        "why a training batch's loss can fall below the blind model's floor",
        _DIP_OPTIONS,
        nudge="The floor rests on a property of the held-out set; ask whether a training batch has it too.",
        pointer=reread("The data: a fixed pool of scenes"),
        wrong=_DIP_WHY,
    )


_SEAM_OPTIONS = ("a", "b", "c", "d")
_SEAM_WHY = {
    "a": "the blind model stays at chance by notebook 03's argument: what does that argument assume about the "
    "two images' tokens? Does it still hold when a block is smaller than a patch?",
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
        nudge="Think of what goes into one patch token when a block is smaller than a patch.",
        pointer=reread("Moving the seams"),
        wrong=_SEAM_WHY,
    )


_REASON_OPTIONS = ("i", "ii", "iii", "iv")
_REASON_WHY = {
    "ii": "a linear map gives every pixel of the patch its own weights: a quarter that lands in another corner "
    "of the patch meets other weights, so the order inside a patch does matter.",
    "iii": "attention without a position embedding is blind to any reordering of its tokens, however large "
    "(notebook 03): a bigger shuffle is still a reordering.",
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
        nudge="Recall exactly what attention without a position embedding is blind to (notebook 03).",
        pointer=reread("Moving the seams"),
        wrong=_REASON_WHY,
    )


_CONTROL_OPTIONS = ("a", "b", "c", "d", "e", "f")
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
    "f": "the claim says what the scramble task does; it makes no prediction for a run that learns another task, "
    "which may put structure of its own into the table, so no result of (f) contradicts it.",
}


@never_raises
def control_run(answer: object) -> Verdict:
    """Exercise 07.5, the choice: which candidate run could refute the claim that learning the task put the
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
        wrong=_CONTROL_WHY,
    )


_ROWS_OPTIONS = ("start", "between", "claim", "negative")
_ROWS_WHY = {
    "claim": "that is the claim run's own score: the control takes away the one ingredient the claim "
    "credits.",
    "between": "halfway would mean that the images and the optimiser put part of the structure there by "
    "themselves: that is a rival explanation, not what the claim predicts.",
    "negative": "a score clearly below the start's would mean structure reversed, not missing: the claim "
    "gives no cause for that.",
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
        nudge="A prediction follows from the claim alone: think of what the claim says the table owes to the "
        "one ingredient it credits.",
        pointer=reread("Designing a control"),
        wrong=_ROWS_WHY,
    )
