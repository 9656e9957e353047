"""Exercise checkers for notebook 08, T2T's soft split and the token transformer.

Right answers come from the package (``vitcourse.tokens``, ``vitcourse.attention.Attention``); each ``Mistake`` or
``known`` entry is a typical wrong answer, recognised on the same inputs and named.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import torch

from .. import tokens
from ..attention import Attention
from ..blocks import TokenTransformer
from ..models import T2T_STAGES
from ._core import (
    Mistake,
    Verdict,
    _number,
    check_function,
    describe,
    float_answer,
    never_raises,
    pair,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "plain_rebuild_channel0",
    "t2t_cut_rows",
    "t2t_grid_sides",
    "t2t_input_sides",
    "t2t_whole_share",
    "v_skip_function",
    "v_skip_row_sum",
]


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
    """Exercise 08.2: the smallest and the largest square side that T2T-ViT's three soft splits turn into a
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
            f"{what}: {got} is not it: 224 is the paper's example, not necessarily an end of the range; test "
            "the sides next to your answer through all three splits.",
        )
    return unexplained(what, f"{got} is not it.", nudge=SIDES_NUDGE, pointer=reread("Three splits in a row"))


def _two_ranges(answer: object) -> tuple[tuple[object, object], tuple[object, object]] | None:
    """``answer`` (a, b, c, d), or ((a, b), (c, d)), as two pairs ((a, b), (c, d)); None if it is not shaped so."""
    if isinstance(answer, tuple | list) and len(answer) == 4:
        answer = (answer[:2], answer[2:])
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return None
    if not all(isinstance(r, tuple | list) and len(r) == 2 for r in answer):
        return None
    return pair(answer[0]), pair(answer[1])


@never_raises
def t2t_grid_sides(answer: object) -> Verdict:
    """Exercise 08.2, second part: the grid sides after stage 1 and after stage 2 that T2T-ViT's remaining splits
    turn into the 14 x 14 grid, as (smallest, largest after stage 1, smallest, largest after stage 2)."""
    what = f"the grid sides after stages 1 and 2 that end as {T2T_GRID} x {T2T_GRID}"
    after_1 = _sides_ending_as(T2T_GRID, T2T_SPLITS[1:])  # two (3, 2, 1) splits still to come
    after_2 = _sides_ending_as(T2T_GRID, T2T_SPLITS[2:])  # one (3, 2, 1) split still to come
    got = _two_ranges(answer)
    if got is None:
        return say(
            False,
            f"{what}: expected four whole numbers, (smallest, largest after stage 1, smallest, largest after "
            f"stage 2), got {describe(answer)}.",
        )
    values = [v for r in got for v in r]
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return say(False, f"{what}: grid sides are whole numbers of tokens; give four ints.")
    if got == (after_1, after_2):
        return right(what)
    paper_path, side = [], PAPER_SIDE
    for k, s, p in T2T_SPLITS[:2]:
        side = _split_side(side, k, s, p)
        paper_path.append((side, side))
    known = {
        (
            after_2,
            after_1,
        ): "the first two numbers are the grid after stage 1, which is larger than the grid after stage 2.",
        tuple(
            paper_path
        ): "those are the grids that 224 passes through, one side each; every split rounds down, so "
        "more than one grid side gives the same count.",
        (
            _sides_ending_as(T2T_GRID, T2T_SPLITS[1:], _rounded_up),
            _sides_ending_as(T2T_GRID, T2T_SPLITS[2:], _rounded_up),
        ): "you rounded up; a window that does not fit is not a token, so every split rounds down (floor).",
        (
            _sides_ending_as(T2T_GRID, T2T_SPLITS[1:], _no_padding),
            _sides_ending_as(T2T_GRID, T2T_SPLITS[2:], _no_padding),
        ): "that is the range without the padding: each split pads every side with p zeros at both ends.",
    }
    if got in known:
        return say(False, f"{what}: {_flat(got)} is not it: {known[got]}")
    if any(r[0] > r[1] for r in got):
        return say(False, f"{what}: {_flat(got)} is not it: each range is smallest, then largest.")
    return unexplained(
        what, f"{_flat(got)} is not it.", nudge=SIDES_NUDGE, pointer=reread("Three splits in a row")
    )


def _flat(ranges: tuple[tuple[object, object], tuple[object, object]]) -> tuple[object, ...]:
    return (*ranges[0], *ranges[1])


@never_raises
def plain_rebuild_channel0(answer: object) -> Verdict:
    """Exercise 08.1 (trace a reshape, ``plain_rebuild``): on the picture's (1, 60, 400) tokens and its 6 x 10 grid,
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
        right_layout: "that is the layout the function is meant to give, not the one this reshape gives; a reshape "
        "moves no axis: it reads the (N, L) token matrix in the order its values are stored.",
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


TOKEN_DIM = 64  # T2T's token length inside the module (official code: token_dim=64)


def _package_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    """The right answer: ``vitcourse.attention.Attention`` (one head, no qkv bias, ``v_skip=True``) holding
    the given weights, on the step-by-step path."""
    dim, chan = x.shape[-1], w_proj.shape[0]
    attention = Attention(dim, chan, num_heads=1, qkv_bias=False, qk_scale=scale, v_skip=True, fused=False)
    with torch.no_grad():
        attention.qkv.weight.copy_(w_qkv)
        attention.proj.weight.copy_(w_proj)
        attention.proj.bias.copy_(b_proj)
        return attention(x)


def _pieces(
    x: torch.Tensor, w_qkv: torch.Tensor, scale: float, axis: int = -1
) -> tuple[torch.Tensor, torch.Tensor]:
    """(weights @ v, v) for one head: the attention's mix before the projection, and v."""
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)  # each (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis)  # (B, N, N)
    return weights @ v, v


def _with_skip(
    x: torch.Tensor,
    w_qkv: torch.Tensor,
    w_proj: torch.Tensor,
    b_proj: torch.Tensor,
    scale: float,
    axis: int = -1,
) -> torch.Tensor:
    """The right computation with a chosen scale and softmax axis (to build the mistaken variants)."""
    mixed, v = _pieces(x, w_qkv, scale, axis)
    return v + mixed @ w_proj.T + b_proj


def _given_token_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    """Exercise 08.4's function as given, with its bug."""
    chan = w_proj.shape[0]
    q = x @ w_qkv[:chan].T  # (B, N, chan)
    k = x @ w_qkv[chan : 2 * chan].T  # (B, N, chan)
    v = x @ w_qkv[2 * chan :].T  # (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, N, N)
    return (v + weights @ v) @ w_proj.T + b_proj  # (B, N, chan)


def _is_given(func: object) -> bool:
    """Is ``func`` the given function itself, or a copy of its code under another name? (Its numbers equal
    those of "v added before the projection" written another way, so the code tells the two apart.)"""
    code = getattr(func, "__code__", None)
    given = _given_token_attention.__code__
    return getattr(func, "__name__", "") == "buggy_token_attention" or (
        code is not None and code.co_code == given.co_code and code.co_names == given.co_names
    )


_GIVEN_UNCHANGED = "that is the given function, unchanged: the bug is still in it."


V_SKIP_MISTAKES = [
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _pieces(x, w_qkv, scale)[0] @ w_proj.T + b_proj,
        "the skip is missing: the token transformer's attention adds v to its projected output (section "
        '"The token transformer", the skip).',
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: sum(_pieces(x, w_qkv, scale)) @ w_proj.T + b_proj,
        "your output differs from the package's by what proj does to v: your v passes through proj along with "
        "the attention's mix.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: x + _pieces(x, w_qkv, scale)[0] @ w_proj.T + b_proj,
        "you added x, the input. That runs only when dim equals chan, as in this test; in T2T's first token "
        f"transformer x has length dim = {T2T_STAGES[0][0] ** 2} and the output length chan = {TOKEN_DIM}, so x + "
        'out raises a size error (the section "The token transformer" says what T2T adds instead).',
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, scale, axis=-2),
        "softmax over the wrong axis: each query's weights over the keys must sum to 1, and yours do not.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, 1.0),
        "the scores are not scaled: the argument `scale` goes unused.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, 1 / scale),
        "you divided the scores by `scale`; it is already the factor to multiply them by.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, w_proj.shape[0] ** -0.5),
        "you scaled by chan ** -0.5 yourself; use the argument `scale` (T2T takes its scale from dim, not "
        'chan: the section "The token transformer", the scale).',
    ),
]


_X_SKIP_RAISES = (
    "adding the input x fails: x has length dim = {dim}, while q, k, v and the projected output have length "
    'chan = {chan}, and tensors of different lengths cannot be added (the section "The token transformer" '
    "says what T2T adds instead)."
)


def _v_skip_cases() -> list[tuple[tuple, torch.Tensor]]:
    """Tokens and weights (seeded) for (batch, tokens, dim, chan, scale): dim == chan first (where adding x
    runs, so that mistake is recognised), then T2T's sizes with T2T's scale, then others."""
    gen = torch.Generator().manual_seed(6)
    cases = []
    for batch, n, dim, chan, scale in (
        (2, 6, 8, 8, 8**-0.5),
        (2, 10, 49, 64, 49**-0.5),
        (1, 7, 12, 4, 0.3),
        (3, 5, 9, 16, 0.5),
    ):
        x = torch.randn(batch, n, dim, generator=gen)
        w_qkv = torch.randn(3 * chan, dim, generator=gen) * dim**-0.5  # q, k, v entries of about unit size
        w_proj = torch.randn(chan, chan, generator=gen) * chan**-0.5
        b_proj = 0.1 * torch.randn(chan, generator=gen)
        args = (x, w_qkv, w_proj, b_proj, scale)
        cases.append((args, _package_attention(*args)))
    return cases


FORBIDDEN_ATTENTION = (  # what already computes attention: a "write it yourself" answer must not call it
    "Attention",
    "TokenTransformer",
    "scaled_dot_product_attention",
    "MultiheadAttention",
    "multi_head_attention_forward",
)


@never_raises
def v_skip_function(func: object) -> Verdict:
    """Exercise 08.4 (a) (find the bug): ``func(x, w_qkv, w_proj, b_proj, scale)``, one head of a token transformer's
    attention with its skip through v, as ``Attention(dim, chan, 1, qkv_bias=False, qk_scale=scale, v_skip=True)``,
    written with matrix products and a softmax: the package's attention, or torch's, fails."""
    what = "your token attention"
    if callable(func) and _is_given(func):
        return say(False, f"{what}: {_GIVEN_UNCHANGED} {reread('The token transformer')}")
    cases = _v_skip_cases()
    if callable(func):  # adding x where its length differs from chan raises: name that mistake
        args = next(a for a, _ in cases if a[0].shape[-1] != a[2].shape[0])
        dim, chan = args[0].shape[-1], args[2].shape[0]
        try:
            with torch.no_grad():
                func(*args)
        except RuntimeError as err:
            sizes = {int(n) for n in re.findall(r"size of tensor \w \((\d+)\)", str(err))}
            if sizes == {dim, chan}:
                return say(False, f"{what}: {_X_SKIP_RAISES.format(dim=dim, chan=chan)}")
        except Exception:  # any other failure is reported by check_function below
            pass
    return check_function(
        func,
        what,
        cases,
        mistakes=V_SKIP_MISTAKES,
        nudge="The token transformer's attention: what its skip connection adds back, and at which point.",
        pointer=reread("The token transformer"),
        forbidden=FORBIDDEN_ATTENTION,
        forbidden_objects=(Attention, TokenTransformer),
        write_with="matrix products and torch.softmax",
    )


# --- Exercise 08.3: which 5 x 5 blocks T2T's first split keeps whole ---

BLOCK = 5  # the block side the exercise asks about
CUT_ROWS_UP_TO = 11  # the exercise asks about top rows 0 to 11


def _cut_rows(
    kernel: int, stride: int, padding: int, block: int = BLOCK, top: int = CUT_ROWS_UP_TO
) -> list[int]:
    """Top rows 0..top at which no window (starting at -padding, every stride rows, kernel rows tall) holds a
    block of ``block`` rows."""
    starts = range(-padding, top + block + stride, stride)
    return [a for a in range(top + 1) if not any(t <= a and a + block <= t + kernel for t in starts)]


def _as_rows(answer: object) -> list[int] | None:
    """``answer`` as a sorted list of whole numbers, or None if it is not a collection of whole numbers."""
    if isinstance(answer, torch.Tensor | np.ndarray):
        answer = answer.tolist()
    if not isinstance(answer, list | tuple | set | frozenset | range):
        return None
    values = list(answer)
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return None
    return sorted({int(v) for v in values})


@never_raises
def t2t_cut_rows(answer: object) -> Verdict:
    """Exercise 08.3 (a) (predict): the top rows from 0 to 11 at which no window of T2T's first split,
    (k, s, p) = (7, 4, 2), holds all five rows of a 5 x 5 block, as a list."""
    what = f"the top rows 0 to {CUT_ROWS_UP_TO} where no stage-1 window holds a {BLOCK}-row block"
    kernel, stride, padding = T2T_SPLITS[0]
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        return say(False, f"{what}: give a list of top rows, not one number.")
    got = _as_rows(answer)
    if got is None:
        return say(False, f"{what}: expected a list of whole numbers, got {describe(answer)}.")
    expected = _cut_rows(kernel, stride, padding)
    if got == expected:
        return right(what)
    window_tops = [t for t in range(-padding, CUT_ROWS_UP_TO + 1, stride) if t >= 0]
    known = {
        tuple(
            window_tops
        ): "those are the rows where windows start; a block that starts at a window's top row "
        "fits in that window.",
        tuple(_cut_rows(kernel, stride, 0)): "you started the first window at row 0; the padding moves every "
        "window up by p rows.",
        (): "a window is 7 rows tall, but the windows start only every s rows: test a block that starts between "
        "two window tops.",
        tuple(a for a in range(CUT_ROWS_UP_TO + 1) if a not in expected): "you listed the rows where a block "
        "fits; the question asks for those where it fits in no window.",
        tuple(expected[:-1]): f"the list stops early: the pattern repeats up to row {CUT_ROWS_UP_TO}.",
    }
    if tuple(got) in known:
        return say(False, f"{what}: {got} is not it: {known[tuple(got)]}")
    return unexplained(
        what,
        f"{got} is not it.",
        nudge="A block's rows fit in a window when its first and its last row both lie inside that window.",
        pointer=reread("Which neighbourhoods a soft split keeps whole"),
    )


@never_raises
def t2t_whole_share(answer: object) -> Verdict:
    """Exercise 08.3 (b) (predict): the share of the picture's 5 x 5 block positions that T2T's first split keeps
    whole in some token, a number between 0 and 1."""
    what = f"the share of {BLOCK} x {BLOCK} block positions that stage 1 keeps whole"
    number, refusal = _number(answer, what, "a number between 0 and 1")
    if refusal is not None:
        return refusal
    value = float(number)
    kernel, stride, padding = T2T_SPLITS[0]
    per_side = (
        1 - len(_cut_rows(kernel, stride, padding, top=stride - 1)) / stride
    )  # rows that fit, per period
    expected = per_side**2
    if abs(value - expected) < 5e-3:  # two decimals are enough: 0.56 passes
        return right(what)
    if 1 < value <= 100 and abs(value / 100 - expected) < 1e-3:
        return say(False, f"{what}: give a share between 0 and 1, not a percentage.")
    known = [
        (
            per_side,
            "that counts the rows only; a block is whole only where its rows and its columns both fit.",
        ),
        (1 - expected, "that is the share of positions where the block is cut, not where it is whole."),
        (
            1 - per_side,
            "that is the share of top rows that are cut, not of positions where the block is whole.",
        ),
        (
            0.0,
            f"a block larger than k - s + 1 is not whole everywhere, but a {kernel}-wide window still holds it "
            "at some positions.",
        ),
        (
            1.0,
            f"{kernel} rows hold {BLOCK}, but the windows start only every s rows; not every position fits.",
        ),
    ]
    for wrong, why in known:
        if abs(value - wrong) < 1e-3:
            return say(False, f"{what}: {value:g} is not it: {why}")
    if not 0 <= value <= 1:
        return say(False, f"{what}: {value:g} is not it: a share lies between 0 and 1.")
    return unexplained(
        what,
        f"{value:g} is not it.",
        nudge="A block is whole where its rows fit some window and its columns fit some window.",
        pointer=reread("Which neighbourhoods a soft split keeps whole"),
    )


# --- Exercise 08.4 (b): what the bug does ---


@never_raises
def v_skip_row_sum(answer: object) -> Verdict:
    """Exercise 08.4 (b) (explain): the given function equals an attention without a skip whose softmax weights
    are replaced by another N x N matrix; what each row of that matrix sums to."""
    what = "the row sum of the weights in the buggy function"
    weights = torch.softmax(torch.randn(4, 4, generator=torch.Generator().manual_seed(0)), dim=-1)
    expected = float((weights + torch.eye(4)).sum(-1)[0])  # the buggy line: v + weights @ v
    return float_answer(
        answer,
        expected,
        what,
        nudge="In the buggy line, v passes through proj beside the attention's mix, as if it were part of the mix.",
        wrong=[
            (
                1.0,
                "1 is the softmax's own row sum; the buggy line mixes in more than the softmax's weights before proj.",
            ),
            (0.0, "the buggy line keeps the softmax's weights and adds to them; it cancels nothing."),
        ],
        rel=1e-6,
        pointer=reread("The token transformer"),
    )
