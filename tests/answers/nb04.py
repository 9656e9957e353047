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

# Exercise 2, second part: the buggy merge puts the head axis last: output channel c * heads + h holds head h's
# channel c, so head 2's channel 5 lands at 5 * 4 + 2.
HEAD2_CHANNEL5 = 5 * 4 + 2

# Exercise 3: the products cost more than qkv and proj when 2 N^2 c > 3 N L c + N c^2: N > (3 * 49 + 64) / 2 = 105.5.
THRESHOLD_TOKENS = 106


def _map_reading() -> tuple[int, int, int, int, int, int]:
    """Exercise 5 on the course picture, worked out independently of the checker, token numbers: the first
    question's (key, query, column reading) and the second's (column, its query, its row reading). In each head,
    the clearest row and the clearest column apart from it; the head where the less clear of the two is clearest."""
    vit = train.load_shipped("vit_where", "cpu").model
    image = to_tensor(load_mountains())  # (1, 1, 60, 100)
    best = None
    with torch.no_grad():
        for b in range(len(vit.blocks)):
            weights = vit.attention_weights(image, block=b)[0].double()  # (heads, 16, 16)
            for h in range(weights.shape[0]):
                head_map, row_best, column_best = weights[h], None, None
                for q in range(1, 16):
                    top = head_map[q].topk(2)
                    key, column = int(top.indices[0]), int(head_map[:, q].argmax())
                    if key < 1 or key == q or abs(column - key) <= 1:
                        continue
                    ratio = float(top.values[0] / top.values[1])
                    if row_best is None or ratio > row_best[0]:
                        row_best = (ratio, key, q, column)
                if row_best is None:
                    continue
                for k in range(1, 16):
                    top = head_map[1:, k].topk(2)
                    query, row = 1 + int(top.indices[0]), int(head_map[k].argmax())
                    if k in row_best[1:3] or query in row_best[1:3] or row == query:
                        continue
                    ratio = float(top.values[0] / top.values[1])
                    if column_best is None or ratio > column_best[0]:
                        column_best = (ratio, k, query, row)
                if column_best is None:
                    continue
                score = min(row_best[0], column_best[0])
                if best is None or score > best[0]:
                    best = (score, *row_best[1:], *column_best[1:])
    return best[1:]


KEY, QUERY, COLUMN, COLUMN_KEY, COLUMN_QUERY, COLUMN_ROW = _map_reading()

VALUE_CHECKS = {
    check.entropy_prediction: "b",
    check.scaled_weight_ratio: WEIGHT_RATIO,
    check.merge_bug_choice: "a",
    check.merge_bug_channel: HEAD2_CHANNEL5,
    check.cost_threshold_tokens: THRESHOLD_TOKENS,
    check.attention_map_reading: KEY,
    check.attention_map_column: COLUMN_QUERY,
}
FUNCTION_CHECKS = {
    check.attention_function: lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5),
}
MISTAKES = [
    (check.entropy_prediction, "a", "not of its scores"),
    (check.entropy_prediction, "c", "not one multiplied into them"),
    (check.entropy_prediction, "d", "not q and k"),
    (check.entropy_prediction, " E ", "exp() grows fastest"),
    (check.entropy_prediction, "scaled", "not one of the options"),
    (check.scaled_weight_ratio, math.exp(8), "without the scale"),
    (check.scaled_weight_ratio, 1.0, "scaled gap"),
    (check.scaled_weight_ratio, 8, "gap between the scores"),
    (check.scaled_weight_ratio, math.exp(8 / 64), "not by d_k"),
    (check.scaled_weight_ratio, 1 / WEIGHT_RATIO, "upside down"),
    (check.merge_bug_choice, "b", "token digit 0"),
    (check.merge_bug_choice, "c", "never wraps around"),
    (check.merge_bug_choice, "d", "how a reshape reads the stored order"),
    (check.merge_bug_choice, "E", "reversed head order"),
    (check.merge_bug_choice, "reshape", "not one of the options"),
    (check.merge_bug_channel, 37, "where the right merge puts it"),
    (check.merge_bug_channel, 12, "small test's 2 heads"),
    (check.merge_bug_channel, 13, "traded places"),
    (check.merge_bug_channel, HEAD2_CHANNEL5 + 1, "count the channels from 0"),
    (check.cost_threshold_tokens, 129, "64 channels in and out"),
    (check.cost_threshold_tokens, 99, "49 channels in and out"),
    (check.cost_threshold_tokens, 105, "not the same or less"),
    (check.attention_map_reading, COLUMN, "column of the query patch"),
    (check.attention_map_reading, KEY - 1, "no need to subtract 1"),
    (check.attention_map_reading, KEY + 1, "counted the ticks from 1"),
    (check.attention_map_reading, QUERY, "the query patch itself"),
    (check.attention_map_column, COLUMN_ROW, "you read the patch's row"),
    (check.attention_map_column, COLUMN_KEY, "the patch asked about"),
    (check.attention_map_column, COLUMN_QUERY - 1, "no need to subtract 1"),
    (check.attention_map_column, COLUMN_QUERY + 1, "counted the ticks from 1"),
]
