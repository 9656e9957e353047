"""Right answers for the checkers of notebook 04; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

import torch

from vitcourse import check, load_mountains, to_tensor, train


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis) @ v


def tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    """Attention for (B, N, heads, head_dim) inputs, written with einsum; returns (B, N, heads, head_dim)."""
    p = torch.softmax(torch.einsum("bnhd,bmhd->bhnm", q, k) * scale, dim=axis)  # (B, heads, N, N)
    return torch.einsum("bhnm,bmhd->bnhd", p, v)


# Exercise 1, second part: unscaled scores 8 apart, scale 1/sqrt(64): weight ratio exp(8 / 8).
WEIGHT_RATIO = math.exp(8 / math.sqrt(64))

# Exercise 3, second part: the buggy merge of (B, 4, 100, 16): head 0 fills 100 x 16 numbers, 64 per output token.
FIRST_HEAD1_TOKEN = (100 * 16) // 64

# Exercise 2: 197 tokens at 224 x 224 (196 patches of 16 + the prediction token), 577 at 384 x 384.
GROWTH = (577 / 197) ** 2

# Exercise 4: Attention(49, chan=64, one head, no qkv bias) on the 15 x 25 = 375 tokens of the first soft split.
N, L, C = 375, 49, 64
PRODUCTS, QKV, PROJ = 2 * N * N * C, 3 * N * L * C, N * C * C
COST_RATIO = PRODUCTS / (QKV + PROJ)


def _map_reading() -> tuple[int, int, int]:
    """Exercise 6 on the course picture, worked out independently of the checker: (key, query, column reading),
    token numbers, from the shipped ViT's maps and the same rule for choosing the row."""
    vit = train.load_shipped("vit_where", "cpu").model
    image = to_tensor(load_mountains())  # (1, 1, 60, 100)
    best = None
    with torch.no_grad():
        for b in range(len(vit.blocks)):
            weights = vit.attention_weights(image, block=b)[0].double()  # (heads, 16, 16)
            for h in range(weights.shape[0]):
                for q in range(1, 16):
                    top = weights[h, q].topk(2)
                    key, column = int(top.indices[0]), int(weights[h, :, q].argmax())
                    if key < 1 or key == q or abs(column - key) <= 1:
                        continue
                    ratio = float(top.values[0] / top.values[1])
                    if best is None or ratio > best[0]:
                        best = (ratio, key, q, column)
    return best[1], best[2], best[3]


KEY, QUERY, COLUMN = _map_reading()

VALUE_CHECKS = {
    check.entropy_prediction: "b",
    check.scaled_weight_ratio: WEIGHT_RATIO,
    check.scores_growth: GROWTH,
    check.merge_bug_choice: "b",
    check.merge_bug_first_token: FIRST_HEAD1_TOKEN,
    check.attention_cost_ratio: COST_RATIO,
    check.attention_map_reading: KEY,
}
FUNCTION_CHECKS = {
    check.attention_function: lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5),
}
MISTAKES = [
    (check.entropy_prediction, "a", "not of its scores"),
    (check.entropy_prediction, "c", "multiplying every score"),
    (check.entropy_prediction, "d", "not q and k"),
    (check.entropy_prediction, " E ", "exp() grows fastest"),
    (check.entropy_prediction, "scaled", "not one of the options"),
    (check.scaled_weight_ratio, math.exp(8), "without the scale"),
    (check.scaled_weight_ratio, 1.0, "scaled gap"),
    (check.scaled_weight_ratio, 8, "gap between the scores"),
    (check.scaled_weight_ratio, math.exp(8 / 64), "not by d_k"),
    (check.scaled_weight_ratio, 1 / WEIGHT_RATIO, "upside down"),
    (check.scores_growth, (576 / 196) ** 2, "the prediction token is a token too"),
    (check.scores_growth, 577 / 197, "how the number of tokens grows"),
    (check.scores_growth, 576 / 196, "how the number of patches grows"),
    (check.scores_growth, 384 / 224, "how the side of the image grows"),
    (check.scores_growth, 12 * GROWTH, "the heads are the same"),
    (check.scores_growth, 1 / GROWTH, "upside down"),
    (check.merge_bug_choice, "a", "do not alternate"),
    (check.merge_bug_choice, "c", "never wraps around"),
    (check.merge_bug_choice, "d", "a right shape is not a right merge"),
    (check.merge_bug_choice, "E", "reversed head order"),
    (check.merge_bug_choice, "reshape", "not one of the options"),
    (check.merge_bug_first_token, 1, "small test"),
    (check.merge_bug_first_token, (100 * 32) // 64, "2 heads of 32 channels"),
    (check.merge_bug_first_token, FIRST_HEAD1_TOKEN + 1, "count the output tokens from 0"),
    (check.attention_cost_ratio, N / (2 * C), "keeps the token length"),
    (check.attention_cost_ratio, N / (2 * L), "not 49"),
    (check.attention_cost_ratio, PRODUCTS / 2 / (QKV + PROJ), "count both products"),
    (check.attention_cost_ratio, PRODUCTS / QKV, "proj is a linear layer too"),
    (check.attention_cost_ratio, PRODUCTS / (QKV / 3 + PROJ), "three things"),
    (check.attention_cost_ratio, PRODUCTS / (PRODUCTS + QKV + PROJ), "share of the whole layer"),
    (check.attention_cost_ratio, (QKV + PROJ) / PRODUCTS, "upside down"),
    (check.attention_function, lambda q, k, v: attention(q, k, v, q.shape[-1] ** -0.5), "over the heads"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5, axis=-2),
        "wrong axis",
    ),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, 1.0), "not scaled"),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, 1 / q.shape[-1]), "head_dim itself"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, (q.shape[2] * q.shape[-1]) ** -0.5),
        "full width",
    ),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** 0.5), "multiplied by"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5).transpose(1, 2),
        "layout",
    ),
    (check.attention_map_reading, COLUMN, "column of the query patch"),
    (check.attention_map_reading, KEY - 1, "no need to subtract 1"),
    (check.attention_map_reading, KEY + 1, "counted the ticks from 1"),
    (check.attention_map_reading, QUERY, "the query patch itself"),
]
