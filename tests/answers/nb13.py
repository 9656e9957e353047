"""Right answers for the checkers of notebook 13; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check, load_mountains, to_tensor, train


def _map_reading() -> tuple[int, int, int, int, int, int]:
    """Exercise 13.1 on the course picture, worked out independently of the checker, token numbers (patch p is
    token p + 1): the first question's (key, query, column reading) and the second's (column, its query, its row
    reading). In each head,
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


LADDER = "is not it. The exercise rests on"  # the first rung of an undiagnosed wrong answer's hint ladder
CORNER = 55.96  # a moon-only head on one scene with the moon in patch 0: mean of 10 * |centre - (0, 0)|, 60 patches

VALUE_CHECKS: dict = {
    check.attention_map_reading: KEY,
    check.attention_map_column: COLUMN_QUERY,
    check.moon_only_head_distance: 42.3,
    check.moon_corner_distance: CORNER,
    check.control_run: "c",
    check.control_rows_prediction: "start",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.attention_map_reading, COLUMN, "column of the query token"),
    (check.attention_map_reading, KEY - 1, "patch number"),
    (check.attention_map_reading, KEY + 1, "counted the ticks from 1"),
    (check.attention_map_reading, QUERY, "the query token itself"),
    (check.attention_map_column, COLUMN_ROW, "you read the token's row"),
    (check.attention_map_column, COLUMN_KEY, "the token asked about"),
    (check.attention_map_column, COLUMN_QUERY - 1, "patch number"),
    (check.attention_map_column, COLUMN_QUERY + 1, "counted the ticks from 1"),
    # the figure's other reference lines (itself, nearest, farthest) get the hint ladder, no diagnosis of their own
    (check.moon_only_head_distance, 0.0, LADDER),
    (check.moon_only_head_distance, 10.0, LADDER),
    (check.moon_only_head_distance, 81.2, LADDER),
    (check.moon_only_head_distance, CORNER, "one scene's distance"),
    (check.moon_corner_distance, CORNER / 10, "in patches"),
    (check.moon_corner_distance, 42.04, "uniform line"),
    (check.moon_corner_distance, 0.0, "on itself"),
    (check.control_run, "g", "not one of the options"),
    (check.control_rows_prediction, "0.05", "not one of the options"),
]
