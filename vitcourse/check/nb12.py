"""Exercise checkers for notebook 12 trained position tables."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ._core import Verdict, choice_answer, float_answer, int_answer, never_raises, reread

__all__ = [
    "control_axis_prediction",
    "resize_control_accuracy",
    "resize_control_design",
    "scrambled_predictions",
    "stretched_corner_patch",
]


#: Exercise 12.1(a)'s statements: each makes a choice (row, column, neither) and gives a reason; "a" has both right.
_CONTROL_OPTIONS = ("a", "b", "c", "d", "e")


@never_raises
def control_axis_prediction(answer: object) -> Verdict:
    """Exercise 12.1(a) (predict): the letter of the statement, among a to e, that says which the control without a
    position embedding (``vit_where_nopos``) gets right more often, the moon's patch row, and why (it still sees
    each patch's pixels, which plausibly change more from top to bottom than across)."""
    return choice_answer(
        answer,
        "a",
        "which the control reads more often, and why",
        _CONTROL_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. The idea is what a model "
        "without a position embedding can and cannot still use, and what changes across the picture.",
        pointer=reread("What a trained table looks like"),
    )


def _stretched_corner(old: tuple[int, int] = (3, 5), new: tuple[int, int] = (6, 10)) -> int:
    """The old patch (numbered from 0) whose row gets the largest weight in the new top-right row when the grid
    rows are stretched as one sequence by linear interpolation (align_corners=False, as in the notebook)."""
    n_old, n_new = old[0] * old[1], new[0] * new[1]
    weights = F.interpolate(torch.eye(n_old)[None], size=n_new, mode="linear", align_corners=False)[0]
    return int(weights[:, new[1] - 1].argmax())  # (n_old, n_new): column k holds new row k's weights


@never_raises
def stretched_corner_patch(answer: object) -> Verdict:
    """Exercise 12.2 (predict): the 3 x 5 table stretched along the sequence to 60 rows and read onto a 6 x 10
    grid; the old patch (0 to 14) the new top-right patch is most like (the one its row mostly comes from)."""
    expected = _stretched_corner()
    return int_answer(
        answer,
        expected,
        "the old patch the stretched table's top-right corner is most like",
        nudge="A stretch along the sequence knows where each slot sits among the 15, not where its patch lies "
        "in the picture.",
        wrong={
            4: "that old patch lies under the corner in the picture; a stretch along the sequence does not know "
            "the picture.",
            9: "that is the old patch with the new slot's own index, as if the sequence were not stretched: 15 "
            "old slots are spread over 60 new ones.",
        },
        pointer=reread("Resizing the table"),
    )


#: Exercise 12.3(a)'s comparisons, as the notebook lists them: "b" is the one that changes only which patch each
#: of the table's position vectors sits at.
_RESIZE_CONTROL_OPTIONS = ("a", "b", "c", "d", "e")


@never_raises
def resize_control_design(answer: object) -> Verdict:
    """Exercise 12.3(a) (design a control): the letter of the comparison, among a to e, that shows the 2-D carried
    table holds the model's sense of place: the same weights with the carried table's grid rows shuffled among
    the patches, expected near chance (it changes only where each row sits)."""
    return choice_answer(
        answer,
        "b",
        "the control for the carried table",
        _RESIZE_CONTROL_OPTIONS,
        nudge="A good control changes one thing only, the thing the claim is about; ask what else each "
        "comparison changes.",
        pointer=reread("Resizing the table"),
    )


@never_raises
def resize_control_accuracy(answer: object) -> Verdict:
    """Exercise 12.3(b) (design a control): the accuracy (row and column both right) expected from the control if
    the carried table is all that tells the model where each patch lies: chance on the old 6 x 10 grid's labels,
    1/60, right within 10 %."""
    return float_answer(
        answer,
        1 / 60,
        "the accuracy you expect from the control",
        nudge="If nothing tells the model where the patches lie, what is left is a guess; ask how many answers "
        "the task's labels allow.",
        wrong=(
            (1 / 240, "the larger scenes have more patches, but the labels are still those of the old grid."),
            (1 / 6, "that is a guess of the row alone; the accuracy counts row and column both right."),
            (1 / 10, "that is a guess of the column alone; the accuracy counts row and column both right."),
            (0.0, "a guess is right now and then; with nothing to go on the model still guesses."),
            (1 / 15, "that is the 3 x 5 model's grid; this is the 60-patch model."),
        ),
        rel=0.1,
        pointer=reread("Resizing the table"),
    )


@never_raises
def scrambled_predictions(answer: object) -> Verdict:
    """Exercise 12.1(b) (predict): how many different predictions the control without a position embedding gives
    across all the reorderings of one scene's 15 patches: one, since it cannot see the order of its tokens."""
    return int_answer(
        answer,
        1,
        "how many different predictions the control gives across the reorderings",
        nudge="The reorderings all hold the same patch tokens, only in another order; ask what notebook 03 showed "
        "a model without a position embedding does with the order.",
        wrong={
            15: "that counts the places the moon's patch can land; ask whether the control can see where it landed.",
            3: "that counts the rows the moon's patch can land in; ask whether the control can see where it landed.",
            5: "that counts the columns the moon's patch can land in; ask whether the control can see where it "
            "landed.",
            0: "the control gives a prediction for every picture; the question is how many different ones.",
        },
        pointer=reread("What a trained table looks like"),
    )
