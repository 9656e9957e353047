"""Exercise checkers for notebook 03 position embeddings."""

from __future__ import annotations

import math

import numpy as np
import torch

from .. import position
from ._core import Verdict, check_function, describe, never_raises, say

__all__ = ["sinusoidal_entry", "sinusoidal_function", "scrambled_rows"]


@never_raises
def sinusoidal_entry(answer: object) -> Verdict:
    """Exercise 03.1: PE[3, 5] of the sinusoidal table with d = 400."""
    expected = position.sinusoidal_table(4, 400)[3, 5].item()
    what = "PE[3, 5] for d = 400"
    if isinstance(answer, torch.Tensor | np.ndarray) and np.size(answer) == 1:
        answer = float(answer.item())
    if answer is None or isinstance(answer, bool) or not isinstance(answer, int | float | np.floating):
        return say(False, f"{what}: expected a number, got {describe(answer)}.")
    if not math.isfinite(answer):
        return say(False, f"{what}: got {answer}; expected a finite number in [-1, 1].")
    if abs(answer - expected) < 1e-5:
        return say(True, f"{what}: {expected:.6f} is right.")
    angle = 3 / 10000 ** (2 * (5 // 2) / 400)
    if abs(answer - math.sin(angle)) < 1e-5:
        return say(False, f"{what}: j = 5 is odd, so it takes the cosine, not the sine.")
    if abs(answer - math.cos(3 / 10000 ** (5 / 400))) < 1e-5:
        return say(False, f"{what}: the exponent uses 2 * (j // 2) = 4, not j = 5.")
    return say(False, f"{what}: {answer:.6g} is not it. Angle = 3 / 10000 ** (2 * (5 // 2) / 400), then cos.")


@never_raises
def sinusoidal_function(func: object) -> Verdict:
    """Exercise 03.2: ``func(n, d)`` must return the (n, d) sinusoidal table."""
    cases = [
        ((n, d), position.sinusoidal_table(n, d)) for n, d in ((15, 400), (176, 768), (4, 9), (1, 2), (7, 3))
    ]
    return check_function(func, "your sinusoidal table", cases)


@never_raises
def scrambled_rows(answer: object) -> Verdict:
    """Exercise 03.3: after swapping tokens 0 and 2, which original output row is now row 0, 1, 2, 3?"""
    expected = [2, 1, 0, 3]
    what = "rows of the output after swapping tokens 0 and 2"
    if isinstance(answer, torch.Tensor | np.ndarray):
        answer = answer.tolist()
    if not isinstance(answer, list | tuple) or len(answer) != 4:
        return say(False, f"{what}: expected a list of 4 row numbers, got {describe(answer)}.")
    if list(answer) == expected:
        return say(True, f"{what}: {expected} — the output rows move exactly like the input tokens.")
    if list(answer) == [0, 1, 2, 3]:
        return say(False, f"{what}: the output does change: attention moves its rows along with the tokens.")
    return say(False, f"{what}: {list(answer)} is not it; each output row follows its own token.")
