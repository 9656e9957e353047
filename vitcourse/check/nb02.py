"""Exercise checkers for notebook 02 soft split.

Right answers come from ``nn.Unfold`` (``F.unfold``) and the package; each ``Mistake`` is a typical wrong
answer, recognised on the same inputs and named.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from .. import tokens
from ._core import (
    Verdict,
    choice_answer,
    describe,
    int_answer,
    never_raises,
    pair,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "pixels_in_two_windows",
    "paper_count_side",
    "unfold_count_side",
    "pixel_in_tokens",
    "pixel_position_entry",
    "same_position_choice",
    "plain_rebuild_channel0",
    "t2t_input_sides",
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
            one_r
            * two_c: "that is only the bands along the top and bottom edges; the bands along the left and "
            "right edges lie in two windows as well.",
            two_r
            * one_c: "that is only the bands along the left and right edges; the bands along the top and "
            "bottom edges lie in two windows as well.",
            one_r * W
            + one_c * H
            - one_r * one_c: "you counted the corner squares with the edge bands, but a "
            "corner pixel is reached by one window down and one across, so it lies in one window only.",
            one_r * W
            + one_c * H: "you counted the corner squares with the edge bands, twice; a corner pixel "
            "lies in one window only.",
            int(
                (no_pad == 2).sum()
            ): "that is the count without the padding: the padding shifts every window "
            "up and left by p, which changes where the bands of one window end.",
        },
        pointer=reread("The padded picture and its windows"),
    )


T2T_SPLITS = ((7, 4, 2), (3, 2, 1), (3, 2, 1))  # the T2T module's three soft splits (kernel, stride, padding)
T2T_GRID = 14  # the paper's final grid side (Section 3.3): 224 x 224 -> 14 x 14 tokens
PAPER_SIDE = 224
SIDES_NUDGE = "Every split rounds down, so more than one side gives the same count, at every split."


def _split_side(n: int, k: int, s: int, p: int) -> int:
    """Tokens along one side of length ``n`` (0 where no window fits), as ``vitcourse.tokens.count_tokens``."""
    return tokens.count_tokens(n, n, k, s, p).rows if n + 2 * p >= k else 0


@functools.cache
def _sides_ending_as(grid: int, settings: tuple[tuple[int, int, int], ...], count=_split_side, top=1024):
    """The (smallest, largest) square side below ``top`` that ``settings``, applied one after another with
    ``count(n, k, s, p)`` per side, turn into a ``grid`` x ``grid`` token grid; None if there is none."""
    sides = []
    for side in range(1, top):
        n = side
        for k, s, p in settings:
            n = count(n, k, s, p) if n > 0 else 0
        if n == grid:
            sides.append(side)
    return (min(sides), max(sides)) if sides else None


def _no_padding(n: int, k: int, s: int, p: int) -> int:
    return (n - k) // s + 1 if n >= k else 0


def _rounded_up(n: int, k: int, s: int, p: int) -> int:
    return math.ceil((n + 2 * p - k) / s) + 1 if n + 2 * p >= k else 0


@never_raises
def t2t_input_sides(answer: object) -> Verdict:
    """Exercise 02.5: the smallest and the largest square side that T2T-ViT's three soft splits turn into a
    14 x 14 token grid, as the pair (smallest, largest); the paper's 224 is one of them."""
    what = f"smallest and largest square side that end as {T2T_GRID} x {T2T_GRID}"
    expected = _sides_ending_as(T2T_GRID, T2T_SPLITS)
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        return say(False, f"{what}: give the pair (smallest, largest), not one number.")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return say(False, f"{what}: expected a pair (smallest, largest), got {describe(answer)}.")
    got = pair(answer)
    if got == expected:
        return right(what)
    if any(isinstance(v, float) for v in got):
        return say(False, f"{what}: sides are whole numbers of pixels; give two ints.")
    if not all(isinstance(v, int | np.integer) for v in got):
        return say(False, f"{what}: expected a pair of whole numbers, got {describe(answer)}.")
    first_slack = T2T_SPLITS[0][1] - 1  # the first split's rounding alone: stride - 1 more pixels
    paper, first_only = (PAPER_SIDE, PAPER_SIDE), (expected[0], expected[0] + first_slack)
    no_padding = _sides_ending_as(T2T_GRID, T2T_SPLITS, _no_padding)
    rounded_up = _sides_ending_as(T2T_GRID, T2T_SPLITS, _rounded_up)
    backwards = _sides_ending_as(T2T_GRID, T2T_SPLITS[::-1])
    known = {
        (expected[1], expected[0]): "the pair is (smallest, largest): the smaller side comes first.",
        paper: "224 is the paper's side, but not the only one: every split rounds down, so several sides give "
        "the same count at each split.",
        first_only: "you let only the first split's rounding widen the range; the second and third splits round "
        "down too, so each of them accepts more than one grid size.",
        no_padding: "that is the range without the padding: each split pads every side with p zeros at both "
        "ends before its windows slide.",
        rounded_up: "you rounded up; a window that does not fit is not a token, so every split rounds down "
        "(floor).",
        backwards: "you ran the splits in the wrong order: the 7 x 7 split comes first, on the image, and the "
        "two 3 x 3 splits follow on the token grids.",
    }
    if got in known and got != expected:
        return say(False, f"{what}: {got} is not it: {known[got]}")
    if got[0] == got[1]:
        return say(
            False,
            f"{what}: {got} gives one side twice, but every split rounds down, so a whole range of sides ends "
            "as the same grid; the exercise asks for both ends of that range.",
        )
    if got[1] == PAPER_SIDE:
        return say(
            False,
            f"{what}: {got} is not it: 224 is the paper's example, not the largest side; the first split rounds "
            "down, so slightly larger sides still give it the same first grid.",
        )
    return unexplained(what, f"{got} is not it.", nudge=SIDES_NUDGE, pointer=reread("Counting the tokens"))


PAPER_SPLIT = (224, 7, 3, 2)  # Exercise 02.1 (b): side, kernel, the paper's S (an overlap), padding
OVERLAP_NUDGE = (
    "This rests on what a window's step is: how far one window moves to reach its neighbour. Ask whether the "
    "paper's S is that step, or something else about neighbouring windows."
)


def _side_count(n: int, k: int, step: int, p: int, plus_one: bool = True, ceil: bool = False) -> int:
    """Windows along a side of n pixels, padded by p, of kernel k moved by step (a typical slip per flag)."""
    span = n + 2 * p - k
    return (math.ceil(span / step) if ceil else span // step) + int(plus_one)


@never_raises
def paper_count_side(answer: object) -> Verdict:
    """Exercise 02.1 (b): tokens per side that the buggy ``paper_count`` returns for the paper's first split of a
    224 x 224 image (kernel 7, overlap 3, padding 2): the window moved by the overlap."""
    n, k, overlap, p = PAPER_SPLIT
    expected = _side_count(n, k, overlap, p)
    fixed = _side_count(n, k, k - overlap, p)
    return int_answer(
        answer,
        expected,
        "the tokens per side paper_count returns for the paper's first split",
        nudge="paper_count keeps its bug: predict what the function as written returns.",
        wrong={
            fixed: "that is the right count, nn.Unfold's; the question asks what paper_count returns, bug and all.",
            _side_count(n, k, overlap, p, plus_one=False): "one short: check the + 1 and the padding.",
            _side_count(n, k, overlap, p, ceil=True): "paper_count divides with //, which rounds down.",
            expected**2: "that is the number of tokens; the question asks for the tokens per side.",
        },
        pointer=reread("Counting the tokens"),
    )


@never_raises
def unfold_count_side(answer: object) -> Verdict:
    """Exercise 02.1 (b): tokens per side that ``nn.Unfold`` makes for the paper's first split of a 224 x 224
    image (kernel 7, overlap 3, padding 2)."""
    n, k, overlap, p = PAPER_SPLIT
    expected = tokens.count_tokens(n, n, k, k - overlap, p).rows
    assert expected == _side_count(n, k, k - overlap, p)
    return int_answer(
        answer,
        expected,
        "the tokens per side nn.Unfold makes for the paper's first split",
        nudge=OVERLAP_NUDGE,
        wrong={
            _side_count(
                n, k, overlap, p
            ): "that is what paper_count returns, bug and all; nn.Unfold moves each window by its stride.",
            _side_count(n, k, k - overlap, p, plus_one=False): "one short: check the + 1 and the padding.",
            _side_count(
                n, k, k - overlap, p, ceil=True
            ): "a window that does not fit is not a token: round down.",
            _side_count(
                n, k, k, p
            ): "you moved the windows by k, as ViT's patches do: that leaves no overlap.",
            expected**2: "that is the number of tokens; the question asks for the tokens per side.",
        },
        pointer=reread("Counting the tokens"),
    )


def _tokens_holding(row: int, col: int, h: int, w: int, k: int, s: int, p: int):
    """The (token, position) pairs where pixel (row, col) lands in the soft split (k, s, p) of an h x w image,
    found by splitting an image that is 1 at that pixel only; positions in nn.Unfold's (C, k, k) order."""
    marked = torch.zeros(1, 1, h, w)
    marked[0, 0, row, col] = 1.0
    hits = (F.unfold(marked, k, stride=s, padding=p)[0] == 1).nonzero()  # (pairs, 2): (position, token)
    return sorted((int(n), int(pos)) for pos, n in hits.tolist())


PIXEL = (30, 47)  # the pixel of Exercise 02.3, (row, column) of the 60 x 100 picture
PIXEL_SPLIT = (20, 10, 5)  # k, s, p
PIXEL_TOKEN = 24  # Exercise 02.3 (b) asks for the pixel's position in this token
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
        what, f"{sorted(got)} is not it.", nudge=PIXEL_NUDGE, pointer=reread("A soft split by hand")
    )


@never_raises
def pixel_position_entry(answer: object) -> Verdict:
    """Exercise 02.3 (b) (predict): at which position of token 24 does pixel (30, 47) lie (k 20, s 10, p 5)?"""
    k, s, p = PIXEL_SPLIT
    row, col = PIXEL
    what = f"the position of pixel {PIXEL} in token {PIXEL_TOKEN}"
    places = dict(_tokens_holding(row, col, H, W, k, s, p))
    expected = places[PIXEL_TOKEN]
    cols = tokens.count_tokens(H, W, k, s, p).cols
    top, left = (
        (PIXEL_TOKEN // cols) * s,
        (PIXEL_TOKEN % cols) * s,
    )  # the corner as if without the padding shift
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
        if n != PIXEL_TOKEN:
            wrong.setdefault(
                q, f"that is its position in token {n}; the question asks about token {PIXEL_TOKEN}."
            )
    wrong.pop(expected, None)
    return int_answer(
        answer, expected, what, nudge=PLACE_NUDGE, wrong=wrong, pointer=reread("A soft split by hand")
    )


@never_raises
def same_position_choice(answer: object) -> Verdict:
    """Exercise 02.3 (c) (predict): does pixel (30, 47) sit at the same position in every token that holds it?"""
    k, s, p = PIXEL_SPLIT
    places = {q for _, q in _tokens_holding(*PIXEL, H, W, k, s, p)}
    return choice_answer(
        answer,
        "yes" if len(places) == 1 else "no",
        f"whether pixel {PIXEL} sits at the same position in every token that holds it",
        ["yes", "no"],
        nudge=PLACE_NUDGE,
        pointer=reread("A soft split by hand"),
        wrong={
            "yes": "compare the corners of two windows that hold it: the pixel's row and column inside each."
        },
    )


@never_raises
def plain_rebuild_channel0(answer: object) -> Verdict:
    """Exercise 02.4 (predict, ``plain_rebuild``): on the picture's (1, 60, 400) tokens and its 6 x 10 grid,
    which token and which entry of it does plain_rebuild put in channel 0 at grid row 1, column 0:
    (token, entry)."""
    n_tok, c, h, w = 60, 400, 6, 10
    row, col = 1, 0  # the grid cell the exercise asks about
    toks = torch.arange(n_tok * c).reshape(1, n_tok, c)  # entry value = token * c + entry
    expected = divmod(int(toks.reshape(1, c, h, w)[0, 0, row, col]), c)
    right_layout = divmod(int(toks.transpose(1, 2).reshape(1, c, h, w)[0, 0, row, col]), c)
    column_major = divmod(col * h + row, c)  # the grid filled column by column
    sides_swapped = divmod(row * h + col, c)  # a grid row taken as h values long
    what = "the token and the entry that plain_rebuild puts in channel 0 at grid row 1, column 0"
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return say(False, f"{what}: expected two whole numbers (token, entry), got {describe(answer)}.")
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in answer):
        return say(False, f"{what}: expected two whole numbers (token, entry), got {describe(answer)}.")
    got = tuple(int(v) for v in answer)
    if got == expected:
        return right(what)
    known = {
        right_layout: "that is where it should come from; a reshape reads the (N, C) matrix in storage order.",
        column_major: "the grid of a channel is filled row by row, not column by column.",
        sides_swapped: "a grid row holds w values, one per token column, not h.",
        (expected[0] + 1, expected[1] + 1): "count tokens and entries from 0.",
    }
    known.pop(expected, None)
    if got in known:
        return say(False, f"{what}: {got} is not it: {known[got]}")
    return unexplained(
        what,
        f"{got} is not it.",
        nudge="A reshape reads the values in the order they are stored, and fills the new shape in that order.",
        pointer=reread("T2T's way: one pixel per token"),
    )
