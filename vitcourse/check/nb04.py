"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import math

from ._core import (
    Verdict,
    choice_answer,
    float_answer,
    never_raises,
    reread,
)

__all__ = [
    "entropy_prediction",
    "scaled_weight_ratio",
]


# Exercise 1's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")


_ENTROPY_RIGHT = "b"


_ENTROPY_WRONG = {
    "a": "the entropy here is that of each row's weights, not of its scores: it measures how evenly the row's "
    "weight is shared among the keys.",
    "c": "the softmax ignores a number added to every score, not one multiplied into them.",
    "d": "the scale multiplies the scores, not q and k: here q and k already have variance about 1 (section 2 "
    "printed it); it is their dot products that grow with d_k.",
    "e": "scores that differ more give one key a larger share, not more keys a share: exp() grows fastest for the "
    "largest score.",
}


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): the letter of the statement, among a to e, that has both the right choice
    (the scaled weights have the larger mean entropy) and the right reason (the scale shrinks the gaps between
    the scores, so the softmax is flatter)."""
    return choice_answer(
        answer,
        _ENTROPY_RIGHT,
        "your prediction",
        _ENTROPY_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. The idea is how a row's "
        "weights depend on its scores.",
        pointer=reread("Attention as a lookup"),
        wrong=_ENTROPY_WRONG,
    )


#: Exercise 04.1, second part: two scores of one row that differ by this much before the scale ...
SCORE_GAP = 8.0


#: ... in the walk-through, whose heads have d_k = 64 channels.
WALK_THROUGH_DK = 64


@never_raises
def scaled_weight_ratio(answer: object) -> Verdict:
    """Exercise 04.1, second part: two keys of one row whose unscaled scores differ by 8; after the scale
    1/sqrt(64), how many times the weight of the lower key the higher key gets (softmax: exp of the scaled gap)."""
    scale = WALK_THROUGH_DK**-0.5
    right = math.exp(SCORE_GAP * scale)
    return float_answer(
        answer,
        right,
        "the weight ratio after the scale",
        nudge="The idea is how the softmax turns a gap between two scores into a ratio between two weights.",
        wrong=(
            (math.exp(SCORE_GAP), "that is the ratio without the scale: the scale acts on the scores first."),
            (SCORE_GAP * scale, "that is the scaled gap between the scores, not the ratio of the weights."),
            (SCORE_GAP, "that is the gap between the scores, not the ratio of the weights."),
            (
                math.exp(SCORE_GAP / WALK_THROUGH_DK),
                "the scale divides by the square root of d_k, not by d_k.",
            ),
            (1 / right, "upside down: the higher key's weight over the lower key's."),
        ),
        rel=0.005,
        pointer=reread("Attention as a lookup"),
    )
