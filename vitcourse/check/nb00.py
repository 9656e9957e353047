"""Exercise checker for notebook 00 start here: the warm-up that tries the exercise mechanics once.

The right answer is computed from the picture in use (``load_mountains()``, which follows ``VITCOURSE_IMAGE``),
so the warm-up holds for the course's picture and for the article series' crop alike.
"""

from __future__ import annotations

from ..data import load_mountains
from ._core import Verdict, int_answer, known_mistakes, never_raises

__all__ = ["bright_pixels"]


@never_raises
def bright_pixels(answer: object) -> Verdict:
    """Warm-up 00: how many pixels of the picture are brighter than 0.5?"""
    picture = load_mountains()  # (H, W), values in [0, 1]
    above = picture > 0.5  # (H, W) True where brighter than one half
    expected = int(above.sum())
    candidates = (
        (
            int(picture.size) - expected,
            "that is how many pixels are 0.5 or darker; the question asks for the brighter ones (above 0.5).",
        ),
        (
            int((picture >= 0.5).sum()),
            "that counts the pixels equal to 0.5 as well; only those above 0.5 count.",
        ),
        (int(picture.size), "that is every pixel of the picture; count only those above 0.5."),
        (
            int((picture == picture.max()).sum()),
            "that counts only the pixels of the brightest value; every value above 0.5 counts.",
        ),
        (
            len(set(picture[above].tolist())),
            "that is how many different values lie above 0.5; count the pixels that hold them.",
        ),
    )
    return int_answer(
        answer,
        expected,
        "pixels brighter than 0.5",
        "Revisit `where_value` in 'The picture': it marks pixels with one comparison on the whole array and "
        "counts the marks.",
        wrong=known_mistakes(candidates, expected),
        pointer="Comparing the whole array with the threshold gives one True or False per pixel; `.sum()` counts "
        "the True ones (True counts as 1). Turn the result into a plain int with int(...).",
    )
