"""`attention.clearest_column` and `attention.map_questions`, which choose 04's Exercise 5 questions."""

from __future__ import annotations

import pytest
import torch

from vitcourse.attention import clearest_column, map_questions


def test_clearest_column_picks_the_standout_column_and_skips() -> None:
    weights = torch.full((4, 4), 0.1)
    weights[2, 1] = 0.9  # column 1: query 2 stands out 9 times
    weights[1, 3] = 0.5  # column 3: query 1 stands out 5 times
    weights[3, 2] = 0.3  # row 3's largest weight is key 2, not query 1
    found = clearest_column(weights, first=1)
    assert (found.key, found.query) == (1, 2)
    assert found.ratio == pytest.approx(9.0)
    assert (
        clearest_column(weights, first=1, skip=(2,)).key,
        clearest_column(weights, first=1, skip=(2,)).query,
    ) == (3, 1)


def test_clearest_column_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        clearest_column(torch.rand(2, 3, 3))
    with pytest.raises(ValueError):
        clearest_column(torch.rand(3, 3), first=2)


def test_map_questions_asks_about_one_map_with_distinct_answers() -> None:
    gen = torch.Generator().manual_seed(0)
    weights = (4 * torch.randn(2, 3, 8, 8, generator=gen)).softmax(-1)  # (blocks, heads, N, N)
    row, column = map_questions(weights)
    head_map = weights[row.index]
    assert int(head_map[row.query].argmax()) == row.key
    assert 1 + int(head_map[1:, column.key].argmax()) == column.query
    assert column.key not in (row.query, row.key) and column.query not in (0, row.query, row.key)
    assert column.row_reading != column.query
