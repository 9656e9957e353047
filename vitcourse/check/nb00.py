"""Exercise checker for notebook 00 start here: the warm-up that tries the exercise mechanics once.

Exercise 00.1 (read a figure), in two graded parts: (a) which of six regions of the picture are brighter than one
half (``bright_regions``), read off the colour bar, and (b) which 20 x 20 patch, counted from 0 row by row, holds
the pixel at row 45, column 30 (``pixel_patch``). A region's level is the median of a small box of pixels
(``REGIONS``), computed from the picture in use (``load_mountains()``, which follows ``VITCOURSE_IMAGE``), so the
warm-up holds for the course's picture and for the article series' crop alike. A region one grey level from one
half is named as a colour-bar misreading, never which region, how many or in which direction; a patch counted from
1, column by column, or with the pixel's row and column swapped is named as such.
"""

from __future__ import annotations

import numpy as np

from ..data import load_mountains
from ._core import Verdict, describe, int_answer, never_raises, reread, right, say, unexplained

__all__ = [
    "bright_regions",
    "pixel_patch",
]


# name -> (rows, columns) of a box inside the region, on the 60 x 100 picture
REGIONS: dict[str, tuple[slice, slice]] = {
    "moon": (slice(0, 4), slice(44, 56)),
    "upper sky": (slice(0, 8), slice(0, 30)),
    "sky below the band": (slice(26, 29), slice(50, 80)),
    "left face": (slice(32, 41), slice(0, 16)),
    "right face": (slice(30, 39), slice(22, 31)),
    "ridges": (slice(44, 51), slice(30, 41)),
}


# A level this close to one half is hard to place on the colour bar: on the course's picture (levels 0.15 apart)
# one level on each side of one half is this close, and no other.
NEAR = 0.12


BRIGHT_NUDGE = "The picture holds only a few grey levels, one swatch each on the colour bar, and none is exactly one half."


def region_levels(picture: np.ndarray | None = None) -> dict[str, float]:
    """Each region's level: the median of its box of pixels, in the picture in use."""
    picture = load_mountains() if picture is None else picture
    return {name: float(np.median(picture[box])) for name, box in REGIONS.items()}


def _names(answer: object) -> set[str] | None:
    """A set, list or tuple of region names, lower-cased; None if it is not one."""
    if isinstance(answer, str):
        answer = [answer]
    if not isinstance(answer, list | tuple | set | frozenset):
        return None
    if not all(isinstance(a, str) for a in answer):
        return None
    return {" ".join(a.lower().split()) for a in answer}


@never_raises
def bright_regions(answer: object) -> Verdict:
    """Exercise 00.1(a): which regions of the picture are brighter than 0.5 (a set of names from ``REGIONS``)."""
    what = "regions brighter than 0.5"
    if answer is None:
        return say(False, f"{what}: the answer is still None; replace None with a set of region names.")
    names = _names(answer)
    options = ", ".join(f'"{n}"' for n in REGIONS)
    if names is None:
        return say(
            False, f'{what}: expected a set of region names, such as {{"ridges"}}, got {describe(answer)}.'
        )
    unknown = sorted(names - set(REGIONS))
    if unknown:
        return say(
            False, f"{what}: {', '.join(map(repr, unknown))} is not one of the regions; use {options}."
        )
    levels = region_levels()
    expected = {n for n, v in levels.items() if v > 0.5}
    if names == expected:
        return right(what)
    extra, missing = names - expected, expected - names
    near = {n for n, v in levels.items() if abs(v - 0.5) <= NEAR}
    if (extra | missing) <= near:
        # The mistake is named (a colour-bar misreading near one half), never the region, how many or which way:
        # which one it is stays the learner's to find.
        return say(
            False,
            f"{what}: this is not it: a colour-bar misreading puts some region on the wrong side of one half. "
            "Match each region's colour with a swatch of the bar and see on which side of the line at one half "
            "that swatch lies.",
        )
    return unexplained(what, "this is not it.", nudge=BRIGHT_NUDGE, pointer=reread("The picture"))


PATCH = 20  # the patch side of notebook 01


#: Exercise 00.1(b)'s pixel: (row, column), counted from 0 like every index in the course.
PIXEL = (45, 30)


def _patch_number(pixel: tuple[int, int], shape: tuple[int, int], order: str = "rows", start: int = 0) -> int:
    """The 20 x 20 patch that holds ``pixel`` in a picture of ``shape``, numbered row by row (or column by column)
    from ``start``."""
    (row, col), (height, width) = pixel, shape
    if order == "rows":
        return (row // PATCH) * (width // PATCH) + col // PATCH + start
    return (col // PATCH) * (height // PATCH) + row // PATCH + start


@never_raises
def pixel_patch(answer: object) -> Verdict:
    """Exercise 00.1(b): the number of the 20 x 20 patch, counted from 0 row by row, that holds the pixel at
    ``PIXEL``."""
    shape = load_mountains().shape
    expected = _patch_number(PIXEL, shape)
    swapped = _patch_number(PIXEL[::-1], shape)
    wrong = {
        _patch_number(
            PIXEL, shape, start=1
        ): "the patches are counted from 1; the course counts them from 0, as Python indexes.",
        _patch_number(
            PIXEL, shape, order="columns"
        ): "the patches are counted column by column; the course counts them row by row.",
        swapped: "the pixel's row and column are swapped: a row number counts down the picture, a column number "
        "across it.",
    }
    wrong.pop(expected, None)
    return int_answer(
        answer,
        expected,
        "the patch that holds the pixel at row 45, column 30",
        nudge="Find the pixel with the ticks, then the patch around it, and count the patches as the section on "
        "counting says.",
        wrong=wrong,
        pointer=reread("Counting from 0"),
    )
