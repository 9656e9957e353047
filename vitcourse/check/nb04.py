"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention, ClearestColumn, ClearestRow, map_questions
from ..cost import count_macs
from ..data import load_mountains, to_tensor
from ..tokens import count_tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    float_answer,
    int_answer,
    never_raises,
    reread,
)

__all__ = [
    "entropy_prediction",
    "scaled_weight_ratio",
    "merge_bug_choice",
    "merge_bug_channel",
    "cost_threshold_tokens",
    "attention_function",
    "attention_map_reading",
    "attention_map_column",
]

# Exercise 1's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")
_ENTROPY_RIGHT = "b"
_ENTROPY_WRONG = {
    "a": "the entropy here is that of each row's weights, not of its scores: it measures how evenly the row's "
    "weight is shared among the keys.",
    "c": "the softmax ignores a number added to every score, not one multiplied into them.",
    "d": "the scale multiplies the scores, not q and k: here q and k already have variance about 1 (section 2 "
    "printed it); it is their dot products that grow with d_k.",
    "e": "scores that differ more give one key a larger share, not more keys a share: exp() grows fastest for the "
    "largest score.",
}


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): the letter of the statement, among a to e, that has both the right choice
    (the scaled weights have the larger mean entropy) and the right reason (the scale shrinks the gaps between
    the scores, so the softmax is flatter)."""
    return choice_answer(
        answer,
        _ENTROPY_RIGHT,
        "your prediction",
        _ENTROPY_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. The idea is how a row's "
        "weights depend on its scores.",
        pointer=reread("Attention as a lookup"),
        wrong=_ENTROPY_WRONG,
    )


#: Exercise 04.1, second part: two scores of one row that differ by this much before the scale ...
SCORE_GAP = 8.0
#: ... in the walk-through, whose heads have d_k = 64 channels.
WALK_THROUGH_DK = 64


@never_raises
def scaled_weight_ratio(answer: object) -> Verdict:
    """Exercise 04.1, second part: two keys of one row whose unscaled scores differ by 8; after the scale
    1/sqrt(64), how many times the weight of the lower key the higher key gets (softmax: exp of the scaled gap)."""
    scale = WALK_THROUGH_DK**-0.5
    right = math.exp(SCORE_GAP * scale)
    return float_answer(
        answer,
        right,
        "the weight ratio after the scale",
        nudge="The idea is how the softmax turns a gap between two scores into a ratio between two weights.",
        wrong=(
            (math.exp(SCORE_GAP), "that is the ratio without the scale: the scale acts on the scores first."),
            (SCORE_GAP * scale, "that is the scaled gap between the scores, not the ratio of the weights."),
            (SCORE_GAP, "that is the gap between the scores, not the ratio of the weights."),
            (
                math.exp(SCORE_GAP / WALK_THROUGH_DK),
                "the scale divides by the square root of d_k, not by d_k.",
            ),
            (1 / right, "upside down: the higher key's weight over the lower key's."),
        ),
        rel=0.005,
        pointer=reread("Attention as a lookup"),
    )


# Exercise 2's statements about the buggy merge (the head axis moved last before the reshape), as the notebook
# lists them.
_MERGE_OPTIONS = ("a", "b", "c", "d", "e")
_MERGE_RIGHT = "a"
_MERGE_WRONG = {
    "b": "every label of output token 0 has the token digit 0: each output token holds only its own token.",
    "c": "a reshape never wraps around, and the printout shows every output token with the same pattern.",
    "d": "the shape and the set of numbers are right, but a right set of numbers is not a right merge: reread "
    "how a reshape reads the stored order (section 2).",
    "e": "the labels do not show a reversed head order: the first digit of a label names its head.",
}


@never_raises
def merge_bug_choice(answer: object) -> Verdict:
    """Exercise 04.2 (find the bug): the letter of the statement, among a to e, that says what the buggy merge
    ``o.permute(0, 2, 3, 1).reshape(b, n, h * d)`` of (B, heads, N, head_dim) does and why (each token keeps its
    own numbers, but the head axis comes last, so the heads' channels interleave)."""
    return choice_answer(
        answer,
        _MERGE_RIGHT,
        "the bug in the merge",
        _MERGE_OPTIONS,
        nudge="Each statement says what goes wrong and why; both must hold. The idea is the order of the axes "
        "just before the reshape.",
        pointer=reread("Queries, keys and values"),
        wrong=_MERGE_WRONG,
    )


#: Exercise 04.2, second part: the walk-through's four heads, (B, heads, N, head_dim), glued by the buggy merge.
MERGE_SHAPE = (4, 100, 16)
#: ... and the head and channel asked about.
MERGE_ASKED = (2, 5)


def _channel_of(heads: int, head_dim: int, head: int = 1, channel: int = 0, buggy: bool = True) -> int:
    """The output channel, counted from 0, that holds ``head``'s ``channel`` after the buggy merge (or the right
    one): found by running the merge on labelled entries."""
    labels = torch.arange(heads * head_dim).reshape(
        1, heads, 1, head_dim
    )  # entry = head * head_dim + channel
    glued = labels.permute(0, 2, 3, 1) if buggy else labels.transpose(1, 2)  # (1, 1, ...)
    glued = glued.reshape(1, 1, heads * head_dim)[0, 0]
    return int((glued == head * head_dim + channel).nonzero()[0])


@never_raises
def merge_bug_channel(answer: object) -> Verdict:
    """Exercise 04.2, second part: with the buggy merge on the walk-through's 4 heads of 16 channels, the output
    channel (counted from 0) that holds head 2's channel 5 (5 * 4 + 2 = 22)."""
    heads, _, head_dim = MERGE_SHAPE
    head, channel = MERGE_ASKED
    found = _channel_of(heads, head_dim, head, channel)
    right = _channel_of(heads, head_dim, head, channel, buggy=False)
    wrong = {
        right: "that is where the right merge puts it, after the earlier heads' channels; this merge orders "
        "the channels differently.",
        channel * 2 + head: "that would hold with the small test's 2 heads; here there are 4 heads.",
        head * heads + channel: "head and channel have traded places: check which of the two varies fastest.",
        found + 1: "count the channels from 0, as the printout of the small test does.",
    }
    return int_answer(
        answer,
        found,
        "the output channel asked for",
        nudge="The idea is which axis varies fastest in the stored order just before the reshape.",
        wrong=wrong,
        pointer=reread("Queries, keys and values"),
    )


def _first_stage(scale: int = 1) -> tuple[int, int, int]:
    """T2T's first token transformer on a (60 scale) x (100 scale) picture: (tokens, input length, channels)."""
    kernel, stride, padding = 7, 4, 2
    return count_tokens(60 * scale, 100 * scale, kernel, stride, padding).total, kernel * kernel, 64


def _cost_ratio(n: int, dim: int, chan: int) -> float:
    """Multiply-adds of QK^T and weights @ V over those of qkv and proj, counted on the layer itself."""
    layer = Attention(dim, chan=chan, num_heads=1, qkv_bias=False)
    macs = count_macs(layer, torch.zeros(1, n, dim), depth=1)  # {"qkv": ..., "(model)": ..., "proj": ...}
    return macs["(model)"] / (macs["qkv"] + macs["proj"])


@never_raises
def cost_threshold_tokens(answer: object) -> Verdict:
    """Exercise 04.3: the smallest token count N at which the two products of T2T's first token
    transformer (49 -> 64 channels, one head, no qkv bias) cost more multiply-adds than qkv and proj together:
    2 N^2 c > 3 N L c + N c^2, so N > (3 L + c) / 2 = 105.5, counted on the layer itself."""
    _, dim, chan = _first_stage(1)
    right = next(n for n in range(1, 10 * (dim + chan)) if _cost_ratio(n, dim, chan) > 1)
    wrong = {
        2 * chan + 1: "that would hold for a layer that keeps the token length, with 64 channels in and out; "
        "this one reads 49 and gives 64.",
        2 * dim + 1: "that would hold for a layer that keeps the token length, with 49 channels in and out; "
        "this one reads 49 and gives 64.",
        right - 1: "at that count the layers still cost more: the products must cost more, not the same or "
        "less.",
    }
    return int_answer(
        answer,
        right,
        "the token count asked for",
        nudge="The idea is which of the layer's costs depend on its input length and which on its channels.",
        wrong=wrong,
        pointer=reread("Weights and multiply-adds"),
    )


def _tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, dim: int = -1
) -> torch.Tensor:
    """Attention for the (B, N, heads, head_dim) layout: each head over the tokens; softmax over ``dim`` of
    the (B, heads, N, N) weights. Returns (B, N, heads, head_dim)."""
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))  # each (B, heads, N, head_dim)
    return torch.softmax(qh @ kh.transpose(-2, -1) * scale, dim=dim).matmul(vh).transpose(1, 2)


@never_raises
def attention_function(func: object) -> Verdict:
    """Exercise 04.4: ``func(q, k, v)`` for q, k, v of shape (B, N, heads, head_dim), tokens before heads,
    returns attention of each head over the tokens, (B, N, heads, head_dim), as
    ``F.scaled_dot_product_attention`` gives it on the (B, heads, N, head_dim) layout."""
    gen = torch.Generator().manual_seed(2)
    cases = []
    for shape in ((2, 10, 4, 16), (1, 7, 1, 64), (3, 5, 2, 3)):
        q, k, v = (torch.randn(shape, generator=gen) for _ in range(3))
        expected = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        cases.append(((q, k, v), expected.transpose(1, 2)))
    mistakes = [
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5, dim=-1) @ v,
            "you attended over the heads, not the tokens: in this layout the last two axes are (heads, head_dim), "
            "so a product over the last two axes compares heads with heads.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5, dim=-2),
            "softmax over the wrong axis: each query's weights over the keys must sum to 1.",
        ),
        Mistake(lambda q, k, v: _tokens_first(q, k, v, 1.0), "the scores are not scaled."),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, 1 / q.shape[-1]),
            "wrong scale: you divided by head_dim itself; section 4 says what the scale is.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, (q.shape[2] * q.shape[-1]) ** -0.5),
            "wrong scale: you took the full width (heads x head_dim); each head uses its own head_dim.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** 0.5),
            "wrong scale: you multiplied by the square root of head_dim; the scale shrinks the scores.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5).transpose(1, 2),
            "the numbers are right but the layout is not: you returned (B, heads, N, head_dim); the result must "
            "have the inputs' layout, (B, N, heads, head_dim).",
        ),
    ]
    return check_function(
        func,
        "your attention_tokens_first",
        cases,
        mistakes=mistakes,
        forbidden=("scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward"),
        forbidden_objects=(F.scaled_dot_product_attention, nn.MultiheadAttention, Attention),
        write_with="matrix products and a softmax",
        nudge="The idea: in any layout, each head compares tokens with tokens, and each query's weights over the "
        "keys sum to 1.",
        pointer=reread("Several heads"),
    )


@functools.lru_cache(maxsize=1)
def _shipped_vit() -> nn.Module:
    """The course's shipped ViT (``vit_where``) on the CPU, loaded once."""
    from ..train import load_shipped  # imported here: the training module is only needed by this checker

    return load_shipped("vit_where", "cpu").model


def _map_weights(picture: np.ndarray | torch.Tensor) -> torch.Tensor:
    """The shipped ViT's attention weights on ``picture`` (60 x 100), every block: (blocks, heads, 16, 16)."""
    vit = _shipped_vit()
    image = to_tensor(picture).reshape(1, 1, *np.shape(picture)[-2:])  # (1, 1, H, W)
    with torch.no_grad():
        return torch.stack([vit.attention_weights(image, block=b)[0] for b in range(len(vit.blocks))])


def _map_question(picture: np.ndarray | torch.Tensor) -> ClearestRow:
    """Exercise 04.5's first question on ``picture``: the block, head and query patch whose row of the shipped ViT's
    attention map is easiest to read (see :func:`vitcourse.attention.map_questions`); 0-based."""
    return map_questions(_map_weights(picture), first=1)[0]


@never_raises
def attention_map_reading(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 04.5: which patch (1-15) the query patch asked for attends to most, in the block and head asked
    for, read off the shipped ViT's attention maps on ``picture`` (default: the course picture)."""
    found = _map_question(load_mountains() if picture is None else picture)
    wrong: dict[int, str] = {}  # the first diagnosis of a number wins
    wrong.setdefault(
        found.column_reading,
        "you read the column of the query patch, not its row: a column shows how much every query attends to one "
        "key. Each query's weights over the keys run along its row.",
    )
    wrong.setdefault(
        found.key - 1,
        "the map's ticks are token numbers, and token p is patch p (token 0 is the prediction token): no need to "
        "subtract 1.",
    )
    wrong.setdefault(
        found.key + 1,
        "you counted the ticks from 1, but the first tick is token 0, the prediction token: read the number "
        "written at the tick.",
    )
    wrong.setdefault(
        found.query, "that is the query patch itself; the question asks which key it attends to most."
    )
    return int_answer(
        answer,
        found.key,
        "the patch read off the map",
        nudge="The idea is which axis of a weight matrix holds the queries and which the keys.",
        wrong=wrong,
        pointer=reread("Scores, softmax and the weighted sum"),
    )


def _column_question(picture: np.ndarray | torch.Tensor) -> ClearestColumn:
    """Exercise 04.5's second question on ``picture``: in the same block and head, the patch whose column (as a
    key) is easiest to read (see :func:`vitcourse.attention.map_questions`); token numbers, patch p = token p."""
    return map_questions(_map_weights(picture), first=1)[1]


@never_raises
def attention_map_column(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 04.5, second part: in the same block and head, the query patch (1-15) that attends most to the
    second patch asked about, read down that patch's column of the shipped ViT's map on ``picture`` (default:
    the course picture)."""
    column = _column_question(load_mountains() if picture is None else picture)
    key, found, row_reading = column.key, column.query, column.row_reading
    wrong: dict[int, str] = {}  # the first diagnosis of a number wins
    wrong.setdefault(
        row_reading,
        "you read the patch's row, which holds its own weights over the keys. How much every query attends to "
        "one key runs down that key's column.",
    )
    wrong.setdefault(
        key, "that is the patch asked about; the question asks which query patch attends to it most."
    )
    wrong.setdefault(
        found - 1,
        "the map's ticks are token numbers, and token p is patch p (token 0 is the prediction token): no need to "
        "subtract 1.",
    )
    wrong.setdefault(
        found + 1,
        "you counted the ticks from 1, but the first tick is token 0, the prediction token: read the number "
        "written at the tick.",
    )
    return int_answer(
        answer,
        found,
        "the query patch read off the map",
        nudge="The idea is which axis of a weight matrix holds the queries and which the keys.",
        wrong=wrong,
        pointer=reread("Scores, softmax and the weighted sum"),
    )
