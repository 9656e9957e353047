"""Exercise checkers for notebook 12 trained position tables."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ._core import Mistake, Verdict, check_function, choice_answer, float_answer, never_raises, reread

__all__ = [
    "column_pair_distance",
    "control_axis_prediction",
    "locality_favoured_pairs",
    "resize_2d_function",
    "resize_control_accuracy",
    "resize_control_design",
]


#: Exercise 12.1's statements: each makes a choice (row, column, neither) and gives a reason; "i" has both right.
_CONTROL_OPTIONS = ("i", "ii", "iii", "iv", "v")


@never_raises
def control_axis_prediction(answer: object) -> Verdict:
    """Exercise 12.1 (predict): the number of the statement, among i to v, that says which the control without a
    position embedding (``vit_where_nopos``) gets right more often, the moon's patch row, and why (it still sees
    each patch's pixels, which plausibly change more from top to bottom than across)."""
    return choice_answer(
        answer,
        "i",
        "which the control reads more often, and why",
        _CONTROL_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. Recall what notebook 03 showed a "
        "model without a position embedding cannot see, and what it still receives.",
        pointer=reread("What a trained table looks like"),
    )


#: Exercise 12.2(a)'s options: which pairs a table that knows only distance makes more alike on average.
_LOCALITY_OPTIONS = ("row", "column", "same")


@never_raises
def locality_favoured_pairs(answer: object) -> Verdict:
    """Exercise 12.2(a) (predict): on the 6 x 10 grid, which pairs a table whose similarity depends on distance
    alone makes more alike on average: two patches of one row, two of one column, or neither ("same"). The
    answer follows from how far apart such pairs lie on average (part b)."""
    return choice_answer(
        answer,
        "column",
        "the pairs that locality alone makes more alike",
        _LOCALITY_OPTIONS,
        nudge="Such a table knows only how far apart two patches are; ask how far apart two patches of one row "
        "and two of one column lie on average on this grid.",
        pointer=reread("A grid of 60 patches, as in the ViT paper's Figure 7"),
    )


@never_raises
def column_pair_distance(answer: object) -> Verdict:
    """Exercise 12.2(b) (predict): the mean distance, in patches, between two different patches of one column of
    the 6 x 10 grid (every pair counted once), to within 2 %."""
    rows = 6
    gaps = [abs(a - b) for a in range(rows) for b in range(a + 1, rows)]
    return float_answer(
        answer,
        sum(gaps) / len(gaps),
        "the mean distance between two patches of one column",
        nudge="List the pairs of a column of 6 patches: how many pairs lie 1 apart, 2 apart, and so on?",
        wrong=(
            (11 / 3, "that is the mean over the pairs of one row (10 patches); a column holds 6."),
            (
                3.0,
                "each distance is counted once; count it as often as a pair of patches lies that far apart.",
            ),
            (
                3.5,
                "that is the mean position of a patch in a column of 6, not the distance between two patches.",
            ),
            (70 / 36, "each patch paired with itself, at distance 0, is counted too; leave those pairs out."),
        ),
        rel=0.02,
        pointer=reread("A grid of 60 patches, as in the ViT paper's Figure 7"),
    )


def _resize_2d(table: torch.Tensor, old: tuple[int, int], new: tuple[int, int], **kw: object) -> torch.Tensor:
    """The reference: slot 0 kept, the patch slots laid out on the old grid, bicubic to the new, read back."""
    d = table.shape[-1]
    image = table[:, 1:].reshape(1, old[0], old[1], d).permute(0, 3, 1, 2)  # (1, D, h, w)
    mode = kw.get("mode", "bicubic")
    image = F.interpolate(image, size=new, mode=mode, align_corners=bool(kw.get("align_corners", False)))
    return torch.cat([table[:, :1], image.permute(0, 2, 3, 1).reshape(1, new[0] * new[1], d)], dim=1)


def _transposed(table: torch.Tensor, old: tuple[int, int], new: tuple[int, int]) -> torch.Tensor:
    """The patch slots laid out as (D, h, w) by a plain reshape: entries of different slots mixed."""
    d = table.shape[-1]
    image = table[:, 1:].reshape(1, d, old[0], old[1])
    image = F.interpolate(image, size=new, mode="bicubic", align_corners=False)
    return torch.cat([table[:, :1], image.reshape(1, d, -1).transpose(1, 2)], dim=1)


def _grid_swapped(table: torch.Tensor, old: tuple[int, int], new: tuple[int, int]) -> torch.Tensor:
    """Rows and columns of the grid swapped: the slots read column by column."""
    d = table.shape[-1]
    image = table[:, 1:].reshape(1, old[1], old[0], d).permute(0, 3, 1, 2)
    image = F.interpolate(image, size=(new[1], new[0]), mode="bicubic", align_corners=False)
    return torch.cat([table[:, :1], image.permute(0, 2, 3, 1).reshape(1, new[0] * new[1], d)], dim=1)


def _resize_cases() -> list[tuple[tuple, torch.Tensor]]:
    gen = torch.Generator().manual_seed(12)
    cases = []
    for old, new, d in (((3, 5), (6, 10), 8), ((2, 3), (5, 4), 4), ((4, 2), (3, 7), 6), ((3, 3), (3, 3), 5)):
        table = torch.randn(1, 1 + old[0] * old[1], d, generator=gen)
        cases.append(((table, old, new), _resize_2d(table, old, new)))
    return cases


@never_raises
def resize_2d_function(func: object) -> Verdict:
    """Exercise 12.3 (write it yourself): ``func(table, old_grid, new_grid)`` carries a (1, 1 + h * w, D) table
    from the grid old_grid = (h, w) to new_grid = (h2, w2) in 2-D: slot 0 kept in front, the other slots laid out
    patch row by patch row as an image of D channels, ``F.interpolate(mode="bicubic", align_corners=False)``,
    read back patch row by patch row. Checked on non-square grids and a grid that does not change."""
    mistakes = [
        Mistake(
            lambda t, o, n: _resize_2d(t, o, n)[:, 1:], "the prediction token's slot 0 is missing in front."
        ),
        Mistake(
            _transposed,
            "the slots were reshaped straight to (D, h, w), which mixes the entries of different slots; lay them "
            "out as (h, w, D) first, then move D in front.",
        ),
        Mistake(
            _grid_swapped, "the grid's rows and columns are swapped: the slots go patch row by patch row."
        ),
        Mistake(
            lambda t, o, n: _resize_2d(t, o, n, mode="bilinear"), "that is bilinear; the course uses bicubic."
        ),
        Mistake(
            lambda t, o, n: _resize_2d(t, o, n, align_corners=True),
            "align_corners=True treats the patches as points on the grid's corners; each patch is a cell "
            "sampled at its centre.",
        ),
    ]
    return check_function(
        func,
        "your resize_2d",
        _resize_cases(),
        mistakes=mistakes,
        nudge="Follow the four steps of the list above in order, with a shape comment after each reshape.",
        pointer=reread("Interpolating the table in 2-D"),
        forbidden=("resize_position_embedding", "at_resolution", "resample_abs_pos_embed"),
        write_with="reshape, permute and F.interpolate",
    )


#: Exercise 12.4(a)'s comparisons, as the notebook lists them: "ii" is the one that changes only which patch each
#: of the table's position vectors sits at.
_RESIZE_CONTROL_OPTIONS = ("i", "ii", "iii", "iv", "v")


@never_raises
def resize_control_design(answer: object) -> Verdict:
    """Exercise 12.4(a) (design a control): the number of the comparison, among i to v, that shows the 2-D carried
    table holds the model's sense of place: the same weights with the carried table's patch slots shuffled among
    the patches, expected near chance (it changes only where each vector sits)."""
    return choice_answer(
        answer,
        "ii",
        "the control for the carried table",
        _RESIZE_CONTROL_OPTIONS,
        nudge="A good control changes one thing only, the thing the claim is about; ask what else each "
        "comparison changes.",
        pointer=reread("Resizing the table"),
    )


@never_raises
def resize_control_accuracy(answer: object) -> Verdict:
    """Exercise 12.4(b) (design a control): the accuracy (row and column both right) expected from the control if
    the carried table is all that tells the model where each patch lies: chance on the old 6 x 10 grid's labels,
    right within 10 %."""
    return float_answer(
        answer,
        1 / 60,
        "the accuracy you expect from the control",
        nudge="If the table tells the model a wrong place, it is right only by luck; ask how many answers "
        "the task's labels allow.",
        wrong=(
            (1 / 240, "the larger scenes have more patches, but the labels are still those of the old grid."),
            (1 / 6, "that is a guess of the row alone; the accuracy counts row and column both right."),
            (1 / 10, "that is a guess of the column alone; the accuracy counts row and column both right."),
            (
                0.0,
                "a wrong place for nearly every patch still leaves the moon's patch a few chances to be right.",
            ),
            (
                1 / 15,
                "that counts 15 places (the 3 x 5 grid's), or counts each of the moon's four new patches as a try "
                "of its own; the labels are the 6 x 10 grid's.",
            ),
        ),
        rel=0.1,
        pointer=reread("Resizing the table"),
    )
