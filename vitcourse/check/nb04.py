"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention, ClearestRow, clearest_row
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
    "scores_growth",
    "merge_bug_choice",
    "merge_bug_first_token",
    "attention_cost_ratio",
    "attention_function",
    "attention_map_reading",
]

# Exercise 1's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")
_ENTROPY_RIGHT = "b"
_ENTROPY_WRONG = {
    "a": "the entropy here is that of each row's weights, not of its scores: it measures how evenly the row's "
    "weight is shared among the keys.",
    "c": "adding the same number to every score leaves the softmax unchanged; multiplying every score by the same "
    "number does not: it stretches or shrinks the gaps between them.",
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


def _token_count(side: int, patch: int = 16) -> int:
    """Tokens of a ViT on a ``side`` x ``side`` image: its patches plus the prediction token."""
    return count_tokens(side, side, patch, patch, 0).total + 1


@never_raises
def scores_growth(answer: object) -> Verdict:
    """Exercise 04.2: by what factor the number of entries of Q K^T in one ViT-B/16 layer (one image, 12 heads)
    grows from 224 x 224 to 384 x 384 (patches of 16 plus the prediction token: 197 -> 577 tokens)."""
    small, large = _token_count(224), _token_count(384)
    right = (large / small) ** 2
    patches_only = ((large - 1) / (small - 1)) ** 2
    linear = large / small
    return float_answer(
        answer,
        right,
        "growth of Q K^T from 224 to 384",
        nudge="The idea is what a row and a column of QK^T stand for, and which tokens a ViT makes from an image.",
        wrong=(
            (patches_only, "the prediction token is a token too: it has a row and a column of QK^T."),
            (linear, "that is how the number of tokens grows, not the number of entries of QK^T."),
            (
                (large - 1) / (small - 1),
                "that is how the number of patches grows, not the number of entries of QK^T.",
            ),
            (384 / 224, "that is how the side of the image grows, not the number of entries of QK^T."),
            (right * 12, "the heads are the same at both sizes: they scale both counts alike and cancel."),
            (1 / right, "upside down: the count at 384 over the count at 224."),
            (1 / patches_only, "upside down, and the prediction token is a token too."),
        ),
        rel=0.002,
        pointer=reread("Scores, softmax and the weighted sum"),
    )


# Exercise 3's statements about the buggy merge (a reshape without the transpose), as the notebook lists them.
_MERGE_OPTIONS = ("a", "b", "c", "d", "e")
_MERGE_RIGHT = "b"
_MERGE_WRONG = {
    "a": "the labels of output token 0 do not alternate between heads, as interleaved channels would.",
    "c": "a reshape never wraps around: it keeps every number once, in order, and output token 0 is wrong too.",
    "d": "a right shape is not a right merge: the labels say which head, token and channel each number came from.",
    "e": "the labels do not show a reversed head order: the first digit of a label names its head.",
}


@never_raises
def merge_bug_choice(answer: object) -> Verdict:
    """Exercise 04.3 (find the bug): the letter of the statement, among a to e, that says what the buggy merge
    ``o.reshape(b, n, h * d)`` of (B, heads, N, head_dim) does and why (output token 0 gets head 0's channels of
    tokens 0 and 1, since a reshape keeps the stored order, head by head)."""
    return choice_answer(
        answer,
        _MERGE_RIGHT,
        "the bug in the merge",
        _MERGE_OPTIONS,
        nudge="Each statement says what goes wrong and why; both must hold. The idea is the order in which a "
        "tensor's numbers are stored, and what a reshape does with that order.",
        pointer=reread("Queries, keys and values"),
        wrong=_MERGE_WRONG,
    )


#: Exercise 04.3, second part: the walk-through's four heads, (B, heads, N, head_dim), glued by the buggy merge.
MERGE_SHAPE = (4, 100, 16)


def _first_token_with_head(heads: int, n: int, head_dim: int, head: int = 1) -> int:
    """The first output token, counted from 0, of ``o.reshape(b, n, heads * head_dim)`` that holds any number
    of ``head``, for ``o`` of shape (b, heads, n, head_dim): found by running the buggy merge on labels."""
    labels = torch.arange(heads).reshape(1, heads, 1, 1).expand(1, heads, n, head_dim)  # each entry: its head
    glued = labels.reshape(1, n, heads * head_dim)  # the buggy merge
    return int((glued[0] == head).any(-1).nonzero()[0])


@never_raises
def merge_bug_first_token(answer: object) -> Verdict:
    """Exercise 04.3, second part: with the buggy merge on the walk-through's 4 heads of 100 tokens and 16
    channels, the first output token (counted from 0) that holds any of head 1's numbers."""
    heads, n, head_dim = MERGE_SHAPE
    found = _first_token_with_head(heads, n, head_dim)
    wrong: dict[int, str] = {}
    wrong.setdefault(
        _first_token_with_head(2, 3, 2),
        "that is where head 1 starts in the small test; the walk-through's heads hold far more numbers each.",
    )
    wrong.setdefault(
        _first_token_with_head(2, n, heads * head_dim // 2),
        "that is where head 1 would start with 2 heads of 32 channels; the walk-through has 4 heads of 16.",
    )
    wrong.setdefault(found + 1, "count the output tokens from 0, as the printout of the small test does.")
    return int_answer(
        answer,
        found,
        "the first output token with head 1's numbers",
        nudge="The idea is the order in which the heads' output stores its numbers, and what a reshape does with "
        "that order.",
        wrong=wrong,
        pointer=reread("Queries, keys and values"),
    )


def _first_stage() -> tuple[int, int, int]:
    """T2T's first token transformer on the course picture: (tokens, input length, channels)."""
    kernel, stride, padding = 7, 4, 2
    return count_tokens(60, 100, kernel, stride, padding).total, kernel * kernel, 64


def _cost_ratio(n: int, dim: int, chan: int) -> float:
    """Multiply-adds of QK^T and weights @ V over those of qkv and proj, counted on the layer itself."""
    layer = Attention(dim, chan=chan, num_heads=1, qkv_bias=False)
    macs = count_macs(layer, torch.zeros(1, n, dim), depth=1)  # {"qkv": ..., "(model)": ..., "proj": ...}
    return macs["(model)"] / (macs["qkv"] + macs["proj"])


@never_raises
def attention_cost_ratio(answer: object) -> Verdict:
    """Exercise 04.4: in T2T's first token transformer on the picture, ``Attention(49, chan=64, num_heads=1,
    qkv_bias=False)`` on the 375 tokens of the first soft split, how many times more multiply-adds go into the
    two matrix products than into the two linear layers."""
    n, dim, chan = _first_stage()
    right = _cost_ratio(n, dim, chan)
    products = 2 * n * n * chan
    qkv, proj = 3 * n * dim * chan, n * chan * chan
    return float_answer(
        answer,
        right,
        "products over layers in T2T's first attention",
        nudge="The idea is which sizes each of the layer's four costs is made of when the input length and the "
        "channels differ.",
        wrong=(
            (
                n / (2 * chan),
                "that is the ratio for a layer that keeps the token length at 64; here qkv reads tokens of "
                "length 49, so it costs less.",
            ),
            (n / (2 * dim), "q, k and v have 64 channels here, not 49: the products compare 64 channels."),
            (products / 2 / (qkv + proj), "weights @ V costs as much as QK^T: count both products."),
            (products / qkv, "proj is a linear layer too: count it with qkv."),
            (products / (n * dim * chan + proj), "qkv makes three things, q, k and v, from each token."),
            (
                products / (products + qkv + proj),
                "that is the products' share of the whole layer; the question "
                "asks for products divided by layers.",
            ),
            ((qkv + proj) / products, "upside down: the products divided by the layers."),
        ),
        rel=0.005,
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
    """Exercise 04.5: ``func(q, k, v)`` for q, k, v of shape (B, N, heads, head_dim), tokens before heads,
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
    """Exercise 04.6's question on ``picture``: the block, head and query patch whose row of the shipped ViT's
    attention map is easiest to read (see :func:`vitcourse.attention.clearest_row`); 0-based."""
    return clearest_row(_map_weights(picture), first=1)


@never_raises
def attention_map_reading(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 04.6: which patch (1-15) the query patch asked for attends to most, in the block and head asked
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
