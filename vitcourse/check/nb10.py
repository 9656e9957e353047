"""Exercise checkers for notebook 10, training a ViT.

Each exercise asks for a prediction, an explanation or a bug before the cell that shows the answer; the right
values come from the same code the notebook runs (:func:`vitcourse.train.param_groups`,
:func:`vitcourse.train.lr_factor`) or, for the loss, from the natural logarithm. Few-option questions come with a second check (a reason among several
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
    "confident_loss",
    "decay_choice",
    "decay_reason",
    "schedule_bug_effect",
    "schedule_bug_line",
]


#: Exercise 10.1: the probability a trained ViT gives the right label on every held-out image.
_SURE = 0.9


@never_raises
def confident_loss(answer: object) -> Verdict:
    """Exercise 10.1: the held-out loss (mean cross-entropy, natural log) of a ViT that gives the right label
    probability 0.9 on every held-out image of the two-label task."""
    return float_answer(
        answer,
        -math.log(_SURE),
        "the held-out loss of a model sure of the right label at 0.9",
        nudge="Think of what cross-entropy charges one image: which label's probability it reads, and which "
        "logarithm PyTorch's loss uses.",
        wrong=[
            (math.log(_SURE), "a loss is never below 0: you dropped the minus sign in front of the log."),
            (
                -math.log10(_SURE),
                "that uses the logarithm in base 10; PyTorch's cross-entropy uses the natural one.",
            ),
            (0.046, "that uses the logarithm in base 10; PyTorch's cross-entropy uses the natural one."),
            (
                -math.log2(_SURE),
                "that uses the logarithm in base 2, bits; PyTorch's cross-entropy uses the natural one.",
            ),
            (
                -math.log(1 - _SURE),
                "that charges the probability of the wrong label; cross-entropy reads the right label's.",
            ),
            (
                -(math.log(_SURE) + math.log(1 - _SURE)) / 2,
                "that averages the charges of both labels; cross-entropy charges each image for its right label "
                "only.",
            ),
            (
                -(_SURE * math.log(_SURE) + (1 - _SURE) * math.log(1 - _SURE)),
                "that weighs both labels' logs by their probabilities, the prediction's entropy; cross-entropy "
                "charges the right label only.",
            ),
            (
                1 - _SURE,
                "that is the probability left for the wrong label, not a loss: cross-entropy takes a log.",
            ),
            (_SURE, "that is a probability, not a loss: cross-entropy takes a log."),
            (
                0.0,
                "a loss of 0 needs probability 1 for the right label on every image; accuracy counts only which "
                "logit is the larger.",
            ),
            (
                math.log(2),
                "that is the loss of a guess, probability one half for each label; this model is surer.",
            ),
            (
                -256 * math.log(_SURE),
                "that is the sum over the held-out images; the held-out loss is their mean.",
            ),
            (0.11, "close: give it to three decimals."),  # the right value rounded to two decimals
        ],
        rel=0.005,
        pointer=reread("The loss: cross-entropy, and ln 2 for a guess"),
    )


#: Exercise 10.2's model: the default ViT with the fixed sinusoidal table.
_SINUSOIDAL = train.TrainConfig(pos_embed="sinusoidal")


#: Exercise 10.2's five tensors, by letter.
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
    """The letters of Exercise 10.2 whose tensor is in the weight-decay group of train.param_groups."""
    model = train.build_model(_SINUSOIDAL)
    decayed = {id(p) for p in train.param_groups(model, _SINUSOIDAL.weight_decay)[0]["params"]}
    named = dict(model.named_parameters())
    return "".join(k for k, name in _DECAY_TENSORS.items() if id(named[name]) in decayed)


@never_raises
def decay_choice(answer: object) -> Verdict:
    """Exercise 10.2, the choice: which of five tensors of the ViT with the fixed sinusoidal table AdamW should
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
        pointer=reread("The optimiser: AdamW and weight decay"),
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
    """Exercise 10.2, the reason (i to iv) a LayerNorm scale is left out of weight decay."""
    return choice_answer(
        answer,
        "i",
        "why a LayerNorm scale takes no weight decay",
        ("i", "ii", "iii", "iv"),
        nudge="Think of the value a LayerNorm scale starts at, and of what it does to the features it scales.",
        pointer=reread("The optimiser: AdamW and weight decay"),
        wrong=_REASON_WHY_DECAY,
    )


#: Exercise 10.3: the progress of line 3 forgets to subtract the warm-up (the other lines match the formula).
_BUGGY_LINE = 3


@never_raises
def schedule_bug_line(answer: object) -> Verdict:
    """Exercise 10.3, the line: which of the four numbered lines of the buggy schedule holds the bug."""
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
        pointer=reread("The schedule and the loop"),
    )


_EFFECT_WHY = {
    "a": "the buggy schedule's angle passes pi / 2 before the run ends, so its rate falls below half the peak: "
    "where does its clock start?",
    "c": "at the end of the warm-up both schedules are close to the peak: the bug hardly shows there.",
    "d": "the warm-up lines are right, so step 0 gets a small positive rate in both schedules.",
}


@never_raises
def schedule_bug_effect(answer: object) -> Verdict:
    """Exercise 10.3, the effect (a to d): what the buggy schedule's learning rate does."""
    return choice_answer(
        answer,
        "b",
        "what the buggy schedule does",
        ("a", "b", "c", "d"),
        nudge="Reread the sentence under the schedule formula: where should the cosine's angle reach pi? What "
        "does a clock that runs ahead do to that?",
        pointer=reread("The schedule and the loop"),
        wrong=_EFFECT_WHY,
    )
