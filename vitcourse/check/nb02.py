"""Exercise checkers for notebook 02 soft split.

Right answers come from ``nn.Unfold`` (``F.unfold``) and the package; each ``Mistake`` is a typical wrong
answer, recognised on the same inputs and named.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from .. import tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    describe,
    int_answer,
    never_raises,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "paper_count_fixed",
    "pixel_in_tokens",
    "pixel_position_entry",
    "pixels_in_two_windows",
    "split_design",
]


H, W = 60, 100  # the course picture


def _per_side_counts(side: int, k: int, s: int, p: int) -> torch.Tensor:
    """How many windows cover each pixel along one side (a 1-D soft split of a row of ones, folded back)."""
    ones = torch.ones(1, 1, 1, side)
    cols = F.unfold(ones, (1, k), stride=(1, s), padding=(0, p))
    return F.fold(cols, (1, side), (1, k), stride=(1, s), padding=(0, p))[0, 0, 0].long()  # (side,)


def _coverage(h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    """(h, w): how many soft-split windows cover each pixel (fold of the split of an all-ones image)."""
    ones = torch.ones(1, 1, h, w)
    return F.fold(F.unfold(ones, k, stride=s, padding=p), (h, w), k, stride=s, padding=p)[0, 0].long()


@never_raises
def pixels_in_two_windows(answer: object) -> Verdict:
    """Exercise 02.2: how many pixels of the 60 x 100 picture lie in exactly two windows (k 20, s 10, p 5)?"""
    k, s, p = 20, 10, 5
    cover = _coverage(H, W, k, s, p)
    down, across = _per_side_counts(H, k, s, p), _per_side_counts(W, k, s, p)  # 1s and 2s along each side
    one_r, two_r = int((down == 1).sum()), int((down == 2).sum())
    one_c, two_c = int((across == 1).sum()), int((across == 2).sum())
    no_pad = _coverage(H, W, k, s, 0)
    return int_answer(
        answer,
        int((cover == 2).sum()),
        "pixels in exactly two windows (k = 20, s = 10, p = 5)",
        nudge="This rests on how neighbouring windows overlap, and on where the padding puts the first and the last "
        "window.",
        wrong={
            int((cover == 4).sum()): "that is the number of pixels in four windows, the inner block.",
            int((cover == 1).sum()): "that is the number of pixels covered by exactly one window: the corner "
            "squares.",
            one_r * two_c: "your count leaves out some of the pixels that lie in two windows.",
            two_r * one_c: "your count leaves out some of the pixels that lie in two windows.",
            one_r * W
            + one_c * H
            - one_r * one_c: "you counted some pixels that lie in only one window as lying in two.",
            one_r * W + one_c * H: "you counted some pixels that lie in only one window as lying in two, and "
            "some of them more than once.",
            int(
                (no_pad == 2).sum()
            ): "that is the count without the padding: the padding shifts every window "
            "up and left by p, which changes where the bands of one window end.",
        },
        pointer=reread("The padded picture and its windows"),
    )


DESIGN = (2, 10, 17)  # Exercise 02.4: the paper's S (the overlap), token rows and columns on the picture


def _side_count(n: int, k: int, step: int, p: int, plus_one: bool = True, ceil: bool = False) -> int:
    """Windows along a side of n pixels, padded by p, of kernel k moved by step (a typical slip per flag)."""
    span = n + 2 * p - k
    return (math.ceil(span / step) if ceil else span // step) + int(plus_one)


def _counts(k_of_step: object) -> object:
    """A token count (rows, cols) in the paper's terms whose windows move by ``k_of_step(k, paper_s)``."""

    def count(h: int, w: int, k: int, paper_s: int, p: int) -> tuple[int, int]:
        step = k_of_step(k, paper_s)
        return _side_count(h, k, step, p), _side_count(w, k, step, p)

    return count


#: Exercise 02.1 (a): splits in the paper's terms (h, w, kernel, the paper's S, padding): T2T-ViT's three on a
#: 224 x 224 image, the picture's, and three more whose kernel is not twice the stride.
PAPER_CASES = [
    (224, 224, 7, 3, 2),
    (56, 56, 3, 1, 1),
    (28, 28, 3, 1, 1),
    (60, 100, 20, 10, 5),
    (60, 100, 7, 3, 2),
    (30, 45, 5, 1, 1),
    (33, 50, 9, 6, 0),
]

PAPER_MISTAKES = [
    Mistake(
        _counts(lambda k, paper_s: paper_s),
        "your windows still move by the paper's S, as paper_count's do.",
    ),
    Mistake(
        _counts(lambda k, paper_s: math.ceil(k / 2)),
        "you took the stride from the rule s = ceil(k/2); a split given by its S need not follow the rule.",
    ),
    Mistake(
        _counts(lambda k, paper_s: k), "your windows move by k, as ViT's patches do: that leaves no overlap."
    ),
    Mistake(
        _counts(lambda k, paper_s: k + paper_s),
        "your windows move further than a kernel, so they would leave gaps; the paper's windows overlap.",
    ),
]


@never_raises
def paper_count_fixed(func: object) -> Verdict:
    """Exercise 02.1 (a): ``fixed_count(h, w, k, paper_s, p)``, the (rows, cols) of tokens ``nn.Unfold`` makes
    for a split given in the T2T paper's terms; written without nn.Unfold or the package's counters."""
    return check_function(
        func,
        "fixed_count",
        [
            (case, tuple(tokens.count_tokens(case[0], case[1], case[2], case[2] - case[3], case[4])[:2]))
            for case in PAPER_CASES
        ],
        normalise=lambda got: tuple(int(v) for v in got) if isinstance(got, tuple | list) else got,
        mistakes=PAPER_MISTAKES,
        nudge="First find how far the official windows move: the 56 x 56 in the prompt fixes it. Then compare that "
        "distance with the kernel 7 and the paper's S = 3.",
        pointer=reread("Counting the tokens"),
        forbidden=("Unfold", "unfold", "count_tokens", "t2t_stride_padding", "conv2d", "Conv2d", "pool"),
        forbidden_objects=(
            torch.nn.Unfold,
            F.unfold,
            tokens.count_tokens,
            F.avg_pool2d,
            F.max_pool2d,
            F.conv2d,
        ),
        write_with="the window-count formula",
    )


DESIGN_NUDGE = "Section 1's count holds along each side, and Exercise 1 turns the paper's S into a stride."


def _split_triple(answer: object) -> tuple[int, int, int] | None:
    """A (k, s, p) of whole numbers with k >= 1, s >= 1, p >= 0, or None."""
    if not isinstance(answer, tuple | list) or len(answer) != 3:
        return None
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in answer):
        return None
    k, s, p = (int(v) for v in answer)
    return (k, s, p) if k >= 1 and s >= 1 and p >= 0 else None


@never_raises
def split_design(answer: object) -> Verdict:
    """Exercise 02.4 (design): a soft split (k, s, p) of the 60 x 100 picture whose overlap is the paper's
    S = 2, with a 10 x 17 token grid, every pixel in some window and p < k. Any such split is right; of the two
    with this grid, only one covers every pixel."""
    overlap, want_rows, want_cols = DESIGN
    what = f"a split with the paper's S = {overlap}, {want_rows} x {want_cols} tokens and every pixel covered"
    got = _split_triple(answer)
    if got is None:
        return say(
            False,
            f"{what}: expected (k, s, p), three whole numbers with k and s at least 1 and p at least 0, "
            f"got {describe(answer)}.",
        )
    k, s, p = got
    if p >= k:
        return say(False, f"{what}: {got} is not it: it pads by p = {p}, not less than the kernel k = {k}.")
    if s == overlap and k - s != overlap:
        return say(
            False, f"{what}: {got} is not it: it moves the windows by the paper's S, as paper_count does."
        )
    if k - s != overlap:
        return unexplained(
            what,
            f"with {got} two neighbouring windows share k - s = {k - s} pixels.",
            nudge=DESIGN_NUDGE,
            pointer=reread("Counting the tokens"),
        )
    if k > min(H, W) + 2 * p:
        return unexplained(
            what,
            f"with {got} a window is larger than the padded picture.",
            nudge=DESIGN_NUDGE,
            pointer=reread("Counting the tokens"),
        )
    rows, cols = _side_count(H, k, s, p), _side_count(W, k, s, p)
    if (rows, cols) != (want_rows, want_cols):
        return unexplained(
            what,
            f"{got} makes a grid of {rows} x {cols} tokens.",
            nudge=DESIGN_NUDGE,
            pointer=reread("Counting the tokens"),
        )
    missed = int((_coverage(H, W, k, s, p) == 0).sum())
    if missed:
        return say(
            False,
            f"{what}: {got} is not it: the last windows stop more than p pixels before the end of the padded "
            f"picture, so {missed} pixels lie in no window and unsplit cannot give them back (section 6's rule).",
        )
    return right(what)


def _tokens_holding(row: int, col: int, h: int, w: int, k: int, s: int, p: int):
    """The (token, position) pairs where pixel (row, col) lands in the soft split (k, s, p) of an h x w image,
    found by splitting an image that is 1 at that pixel only; positions in nn.Unfold's (C, k, k) order."""
    marked = torch.zeros(1, 1, h, w)
    marked[0, 0, row, col] = 1.0
    hits = (F.unfold(marked, k, stride=s, padding=p)[0] == 1).nonzero()  # (pairs, 2): (position, token)
    return sorted((int(n), int(pos)) for pos, n in hits.tolist())


PIXEL = (30, 47)  # the pixel of Exercise 02.3, (row, column) of the 60 x 100 picture


PIXEL_SPLIT = (20, 10, 5)  # k, s, p


PIXEL_NUDGE = "A window holds the pixel when both its rows and its columns reach it."


PLACE_NUDGE = "Where the pixel sits in a token depends on that token's window corner."


def _token_set(answer: object) -> set[int] | None:
    """A set, list or tuple of whole numbers as a set of ints; None if it is not one."""
    if isinstance(answer, dict):
        answer = list(answer)
    if not isinstance(answer, list | tuple | set | frozenset) or not answer:
        return None
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in answer):
        return None
    return {int(v) for v in answer}


@never_raises
def pixel_in_tokens(answer: object) -> Verdict:
    """Exercise 02.3 (a) (predict): pixel (30, 47) of the picture, split with k 20, s 10, p 5: which tokens hold it?
    A set of tokens counted from 0."""
    k, s, p = PIXEL_SPLIT
    row, col = PIXEL
    what = f"the tokens that hold pixel {PIXEL}"
    expected = {n for n, _ in _tokens_holding(row, col, H, W, k, s, p)}
    got = _token_set(answer)
    if got is None:
        return say(
            False, f"{what}: expected a set of whole numbers, such as {{1, 2}}, got {describe(answer)}."
        )
    if got == expected:
        return right(what)
    cols = tokens.count_tokens(H, W, k, s, p).cols
    no_shift = {  # windows taken at multiples of s, as if the padding did not move them
        (r // s) * cols + c // s for r in range(0, H + 2 * p - k + 1, s) for c in range(0, W + 2 * p - k + 1, s)
        if r <= row < r + k and c <= col < c + k
    }  # fmt: skip
    grid_rows = tokens.count_tokens(H, W, k, s, p).rows
    known = {
        frozenset(n + 1 for n in expected): "the tokens are counted from 1 here; count them from 0.",
        frozenset(no_shift): "the padding moves every window up and left by p, so the window starts are not "
        "multiples of s.",
        frozenset((n // cols) * grid_rows + n % cols for n in expected): "a row of the token grid holds one "
        "token per window across the width, not one per window down the height.",
    }
    known.pop(frozenset(expected), None)
    if frozenset(got) in known:
        return say(False, f"{what}: {sorted(got)} is not it: {known[frozenset(got)]}")
    if got < expected:
        return say(False, f"{what}: {sorted(got)} is not all of them: {PIXEL_NUDGE}")
    return unexplained(
        what,
        f"{sorted(got)} is not it.",
        nudge=PIXEL_NUDGE,
        pointer=reread("The first token: where the padding shows"),
    )


@never_raises
def pixel_position_entry(answer: object) -> Verdict:
    """Exercise 02.3 (b) (predict): at which position of the first token that holds pixel (30, 47), the one with
    the smallest number, does the pixel lie (k 20, s 10, p 5)?"""
    k, s, p = PIXEL_SPLIT
    row, col = PIXEL
    what = f"the position of pixel {PIXEL} in the first token that holds it"
    places = dict(_tokens_holding(row, col, H, W, k, s, p))
    first = min(places)  # the token the question asks about; never named in a hint, as it answers part (a)
    expected = places[first]
    cols = tokens.count_tokens(H, W, k, s, p).cols
    top, left = (first // cols) * s, (first % cols) * s  # the corner as if without the padding shift
    r, c = divmod(expected, k)
    wrong = {
        (row - top) * k
        + (col - left): "that takes the window's corner at a multiple of s; the padding moves "
        "every window up and left by p.",
        c * k + r: "that reads the window column by column; a token holds its window row by row.",
        (r + 1) * k + c + 1: "rows and columns inside the window count from 0.",
        r * s + c: "a row of the window holds k pixels, not s.",
    }
    for n, q in places.items():
        if n != first:
            wrong.setdefault(
                q,
                "that is its position in another token that holds it; the question asks about the one with "
                "the smallest number.",
            )
    wrong.pop(expected, None)
    return int_answer(
        answer,
        expected,
        what,
        nudge=PLACE_NUDGE,
        wrong=wrong,
        pointer=reread("The first token: where the padding shows"),
    )
