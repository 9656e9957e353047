"""Exercise checkers for notebook 05 multi-head attention."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention
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
    "heads_growth_choice",
    "heads_scores_macs",
    "heads_weight_entries",
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
        channel * 2 + head: "you counted with the small test's 2 heads; the layer asked about has 4.",
        head * heads + channel: "you multiplied the head by the number of heads; redo the labelled input's "
        "reading order before the reshape.",
    }
    return int_answer(
        answer,
        found,
        "the output channel asked for",
        nudge="The idea is which axis varies fastest in reading order just before the reshape.",
        wrong=wrong,
        pointer=reread("Several heads"),
    )


# Exercise 2 (a)'s statements about what grows from 4 to 16 heads, as the notebook lists them: a. the
# parameters, b. QK^T's multiply-adds, c. the number of attention weights, d. b and c, e. none.
_GROWTH_OPTIONS = ("a", "b", "c", "d", "e")


_GROWTH_RIGHT = "c"


@never_raises
def heads_growth_choice(answer: object) -> Verdict:
    """Exercise 05.2 (a): the letter of the statement, among a to e, that says what grows when the walk-through's
    layer goes from 4 heads to 16 (only the number of attention weights: one N x N map per head). Graded with
    the two counts of (b), which back the choice."""
    return choice_answer(
        answer,
        _GROWTH_RIGHT,
        "what grows with more heads",
        _GROWTH_OPTIONS,
        nudge="Check your letter against the two counts of (b): work out what each head multiplies, and what "
        "the layer's parameters depend on.",
        pointer=reread("Parameters and multiply-adds"),
    )  # no diagnosis per wrong letter: the letters are not to be walked through one by one


#: Exercise 05.2: the walk-through's layer (D = 64, N = 100 tokens, one item) cut into this many heads.
HEADS_ASKED = (64, 100, 16)


def _heads_counts(dim: int, n: int, heads: int) -> tuple[int, int]:
    """The multiply-adds of QK^T over all heads, from the shapes of q and k, and the number of attention weights,
    as the layer returns them, for one item of ``n`` tokens of length ``dim`` cut into ``heads`` heads."""
    with torch.no_grad():
        _, steps = Attention(dim, num_heads=heads, qkv_bias=True).steps(torch.zeros(1, n, dim))
    _, h, tokens, head_dim = steps.q.shape  # (1, heads, N, head_dim)
    return h * tokens * tokens * head_dim, steps.weights.numel()


@never_raises
def heads_scores_macs(answer: object) -> Verdict:
    """Exercise 05.2 (a): the multiply-adds of QK^T over all 16 heads of the walk-through's layer (D = 64,
    N = 100, one item): each head N * N * head_dim, so N^2 D in all, as with one head."""
    dim, n, heads = HEADS_ASKED
    right, _ = _heads_counts(dim, n, heads)
    wrong = {
        heads
        * n
        * n
        * dim: "you gave each head all D channels; a head compares tokens on its own channels only.",
        n * n * (dim // heads): "that is one head's count; the question asks for all the heads together.",
        2 * n * n * dim: "that counts weights @ V too; the question asks for the scores QK^T alone.",
        n
        * dim
        * dim: "that is the size of a D x D linear layer on N tokens; the scores compare tokens with tokens.",
    }
    return int_answer(
        answer,
        right,
        "the multiply-adds of the 16 heads' scores",
        nudge="The idea is what each head sees of a token, and what it compares with what.",
        wrong=wrong,
        pointer=reread("Parameters and multiply-adds"),
    )


@never_raises
def heads_weight_entries(answer: object) -> Verdict:
    """Exercise 05.2 (b): the number of attention weights of the walk-through's layer cut into 16 heads (one
    item of N = 100 tokens): one N x N map per head."""
    dim, n, heads = HEADS_ASKED
    _, right = _heads_counts(dim, n, heads)
    wrong = {
        n * n: "that is one map of N x N; each head computes its own weights.",
        4 * n * n: "that is the 4-head walk-through; the question asks about 16 heads.",
        13 * heads * n * n: "that counts all 13 items of the walk-through; the question asks for one item.",
        heads
        * n
        * (dim // heads): "that is the size of the heads' outputs; the weights compare every query with "
        "every key.",
    }
    return int_answer(
        answer,
        right,
        "the number of attention weights",
        nudge="The idea: what one head's weights compare, and whether the heads share them.",
        wrong=wrong,
        pointer=reread("Four heads on the walk-through"),
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
        forbidden=(
            "scaled_dot_product_attention",
            "MultiheadAttention",
            "multi_head_attention_forward",
            # the ATen routines behind F.scaled_dot_product_attention, reachable through torch.ops.aten
            "_scaled_dot_product_attention_math",
            "_scaled_dot_product_flash_attention",
            "_scaled_dot_product_efficient_attention",
            "_scaled_dot_product_cudnn_attention",
            "_native_multi_head_attention",
        ),
        forbidden_objects=(F.scaled_dot_product_attention, nn.MultiheadAttention, Attention),
        write_with="matrix products and a softmax",
        nudge="The idea: in any layout, each head compares tokens with tokens, and each query's weights over the "
        "keys sum to 1.",
        pointer=reread("Several heads"),
    )
