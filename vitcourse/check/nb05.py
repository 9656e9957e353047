"""Exercise checkers for notebook 05 multi-head attention."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention
from ..cost import count_macs
from ..tokens import count_tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    int_answer,
    never_raises,
    reread,
)

__all__ = [
    "attention_function",
    "cost_threshold_tokens",
    "merge_bug_channel",
    "merge_bug_choice",
]


# Exercise 1's statements about the buggy merge (the head axis moved last before the reshape), as the notebook
# lists them.
_MERGE_OPTIONS = ("a", "b", "c", "d", "e")


_MERGE_RIGHT = "a"


@never_raises
def merge_bug_choice(answer: object) -> Verdict:
    """Exercise 05.1 (find the bug): the letter of the statement, among a to e, that says what the buggy merge
    ``o.permute(0, 2, 3, 1).reshape(b, n, h * d)`` of (B, heads, N, head_dim) does and why (each token keeps its
    own numbers, but the head axis comes last, so the heads' channels interleave)."""
    return choice_answer(
        answer,
        _MERGE_RIGHT,
        "the bug in the merge",
        _MERGE_OPTIONS,
        nudge="Each statement says what goes wrong and why; both must hold. Work the code through on the small "
        "labelled input, axis by axis.",
        pointer=reread("Several heads"),
    )  # no diagnosis per wrong letter: the letters are not to be walked through one by one


#: Exercise 05.1, second part: the walk-through's four heads, (B, heads, N, head_dim), glued by the buggy merge.
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
    """Exercise 05.1, second part: with the buggy merge on the walk-through's 4 heads of 16 channels, the output
    channel (counted from 0) that holds head 2's channel 5."""
    heads, _, head_dim = MERGE_SHAPE
    head, channel = MERGE_ASKED
    found = _channel_of(heads, head_dim, head, channel)
    right = _channel_of(heads, head_dim, head, channel, buggy=False)
    wrong = {
        right: "that is where the right merge puts it, after the earlier heads' channels; this merge orders "
        "the channels differently.",
        channel * 2 + head: "that would hold with the small test's 2 heads; here there are 4 heads.",
        head * heads + channel: "check, on the labelled input, which of head and channel varies fastest in "
        "reading order.",
    }
    return int_answer(
        answer,
        found,
        "the output channel asked for",
        nudge="The idea is which axis varies fastest in reading order just before the reshape.",
        wrong=wrong,
        pointer=reread("Several heads"),
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
    """Exercise 05.2: the smallest token count N at which the two products of T2T's first token
    transformer (49 -> 64 channels, one head, no qkv bias) cost more multiply-adds than qkv and proj together:
    2 N^2 c > 3 N L c + N c^2, so N > (3 L + c) / 2 = 105.5, counted on the layer itself."""
    _, dim, chan = _first_stage(1)
    right = next(n for n in range(1, 10 * (dim + chan)) if _cost_ratio(n, dim, chan) > 1)
    wrong = {
        2 * chan + 1: "that would hold for a layer that keeps the token length, with 64 channels in and out; "
        "this one reads 49 and gives 64.",
        2 * dim + 1: "that would hold for a layer that keeps the token length, with 49 channels in and out; "
        "this one reads 49 and gives 64.",
        right - 1: "check your count: the question asks for the first N at which the products cost more "
        "than the layers, not the same or less.",
    }
    return int_answer(
        answer,
        right,
        "the token count asked for",
        nudge="The idea is which of the layer's costs depend on its input length and which on its channels.",
        wrong=wrong,
        pointer=reread("Parameters and multiply-adds"),
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
    """Exercise 05.3: ``func(q, k, v)`` for q, k, v of shape (B, N, heads, head_dim), tokens before heads,
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
            "wrong scale: you divided by head_dim itself; notebook 04's section 3 says what the scale is.",
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
