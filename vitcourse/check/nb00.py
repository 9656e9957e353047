"""Exercise checker for notebook 00 start here: the warm-up that tries the exercise mechanics once.

The warm-up reads a figure: the learner estimates, from the picture and its colour bar, the share of pixels
brighter than one half. Any estimate within ``TOLERANCE`` of the true share passes. The true share is computed
from the picture in use (``load_mountains()``, which follows ``VITCOURSE_IMAGE``), so the warm-up holds for the
course's picture and for the article series' crop alike.
"""

from __future__ import annotations

from ..data import load_mountains
from ._core import Verdict, _number, never_raises, reread, right, say, unexplained

__all__ = ["bright_pixels"]

TOLERANCE = 0.1  # an estimate read off a figure, not a count
BRIGHT_NUDGE = (
    "Look again at the colour bar: which colours stand for values above one half? Then judge how much of the "
    "picture's area shows those colours."
)


@never_raises
def bright_pixels(answer: object) -> Verdict:
    """Warm-up 00: estimate the share of the picture's pixels brighter than 0.5 (a number from 0 to 1)."""
    what = "share of pixels brighter than 0.5"
    value, refusal = _number(answer, what, "a share between 0 and 1")
    if refusal is not None:
        return refusal
    value = float(value)
    picture = load_mountains()  # (H, W), values in [0, 1]
    share = float((picture > 0.5).mean())  # True counts as 1: the mean of the marks is the share
    if abs(value - share) <= TOLERANCE:
        return right(what)
    if value > 1:
        if value == int(value):
            return say(
                False, f"{what}: {value:g} looks like a count of pixels; give a share between 0 and 1."
            )
        return say(False, f"{what}: {value:g} is not it: a share lies between 0 and 1.")
    if value < 0:
        return say(False, f"{what}: {value:g} is not it: a share lies between 0 and 1.")
    if abs(value - (1 - share)) <= TOLERANCE / 2:
        return say(
            False,
            f"{what}: {value:g} is not it: that is about the share of the darker pixels; the question asks for "
            "the brighter ones.",
        )
    return unexplained(what, f"{value:g} is not it.", nudge=BRIGHT_NUDGE, pointer=reread("The picture"))
