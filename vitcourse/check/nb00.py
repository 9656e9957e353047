"""Exercise checker for notebook 00 start here: the warm-up that tries the exercise mechanics once.

Exercise 00.1 (read a figure), in two graded parts: (a) which of six regions of the picture are brighter than one
half (``bright_regions``), and (b) the upper sky's grey level (``upper_sky_level``), both read off the colour bar. A region's level is the median of a small box of pixels
(``REGIONS``), computed from the picture in use (``load_mountains()``, which follows ``VITCOURSE_IMAGE``), so
the warm-up holds for the course's picture and for the article series' crop alike. On the course's picture two
regions lie one grey level from one half, on either side: the checker names such a slip as a colour-bar misreading, never which region,
how many or in which direction; part (b) grades the same reading as a number.
"""

from __future__ import annotations

import numpy as np

from ..data import load_mountains
from ._core import Verdict, describe, float_answer, never_raises, reread, right, say, unexplained

__all__ = [
    "bright_regions",
    "upper_sky_level",
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


# A level this close to one half is hard to place on the colour bar. The course's picture has levels 0.15 apart:
# 0.45 and 0.60 are this close, the ridges' 0.30 is not.
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


@never_raises
def upper_sky_level(answer: object) -> Verdict:
    """Exercise 00.1(b): the upper sky's grey level, read off the colour bar; right
    within 0.04, less than half the 0.15 between two levels of the picture (one half is not within it)."""
    level = region_levels()["upper sky"]
    return float_answer(
        answer,
        level,
        "the upper sky's grey level",
        nudge="The colour bar has one swatch per grey level of the picture; find the swatch whose colour matches "
        "the upper sky.",
        wrong=((0.5, "one half is the line drawn on the colour bar, not a grey level of the picture."),),
        rel=0.04 / max(level, 1e-6),
        pointer=reread("The picture"),
    )
