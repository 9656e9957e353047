"""The probes of vitcourse.probes on hand-built embeddings and attention maps with known answers."""

import math

import pytest
import torch

from vitcourse import probes


def _row_column_code(rows: int, cols: int) -> torch.Tensor:
    """(rows * cols, rows + cols): a one-hot row code next to a one-hot column code."""
    r = torch.arange(rows * cols) // cols
    c = torch.arange(rows * cols) % cols
    return torch.cat([torch.eye(rows)[r], torch.eye(cols)[c]], dim=1)


def test_row_column_code_scores_one_half() -> None:
    # same row or column: cosine 1/2; neither: 0
    assert probes.row_column_score(_row_column_code(3, 5), 3, 5) == pytest.approx(0.5)


def test_weighted_row_column_code_matches_closed_form() -> None:
    # a * (one-hot row) next to b * (one-hot column) on 3 x 5: cosine a^2 / (a^2 + b^2) to the 4 others in the
    # row, b^2 / (a^2 + b^2) to the 2 others in the column, 0 to the 8 patches in neither
    a, b = 2.0, 1.0
    r, c = torch.arange(15) // 5, torch.arange(15) % 5
    code = torch.cat([a * torch.eye(3)[r], b * torch.eye(5)[c]], dim=1)  # (15, 8)
    s = a * a + b * b
    both = (4 * a * a + 2 * b * b) / (6 * s)  # in line: 4 row-mates and 2 column-mates; off line: 0
    row = a * a / s - (2 * b * b / s) / 10  # row-mates minus the 10 of other rows (2 share the column)
    column = b * b / s - (4 * a * a / s) / 12  # column-mates minus the 12 of other columns (4 share the row)
    assert probes.row_column_score(code, 3, 5) == pytest.approx(both)  # 0.6
    assert probes.row_column_score(code, 3, 5, along="row") == pytest.approx(row)  # 0.76
    assert probes.row_column_score(code, 3, 5, along="column") == pytest.approx(column)  # -1/15
    assert column < 0 < both < row  # a strong row code pulls the column-only score below 0


def test_prediction_token_slot_is_left_out() -> None:
    with_token = torch.cat([torch.randn(1, 8), _row_column_code(3, 5)])[None]  # (1, 16, 8)
    assert probes.row_column_score(with_token, 3, 5) == pytest.approx(0.5)


def test_random_and_shared_vectors_score_about_zero() -> None:
    g = torch.Generator().manual_seed(0)
    random = torch.randn(15, 4096, generator=g)
    assert abs(probes.row_column_score(random, 3, 5)) < 0.02
    # one component shared by all patches makes every pair alike but says nothing about the grid
    shared = torch.randn(1, 4096, generator=g) * 3 + torch.randn(15, 4096, generator=g)
    sims = torch.nn.functional.cosine_similarity(shared[:, None], shared[None], dim=-1)
    assert sims[~torch.eye(15, dtype=torch.bool)].mean() > 0.8
    assert abs(probes.row_column_score(shared, 3, 5)) < 0.02


def test_grid_structure_survives_a_shared_component() -> None:
    code = _row_column_code(3, 5) + 2.0  # every entry raised: all similarities rise, differences shrink
    assert 0.01 < probes.row_column_score(code, 3, 5) < 0.5


def test_row_column_score_rejects_bad_grids() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        probes.row_column_score(torch.randn(5, 8), 1, 5)
    with pytest.raises(ValueError, match="expected rows"):
        probes.row_column_score(torch.randn(7, 8), 3, 5)


def test_attention_entropy_bounds() -> None:
    n = 16
    uniform = torch.full((2, 3, n, n), 1 / n)
    one_hot = torch.eye(n).expand(2, 3, n, n)
    torch.testing.assert_close(probes.attention_entropy(uniform), torch.full((2, 3, n), math.log(n)))
    torch.testing.assert_close(probes.attention_entropy(one_hot), torch.zeros(2, 3, n))
    half = torch.tensor([0.5, 0.5, 0.0, 0.0])
    assert probes.attention_entropy(half).item() == pytest.approx(math.log(2))


def test_mean_attention_distance_known_maps() -> None:
    rows, cols, patch = 3, 5, 20
    n = rows * cols
    itself = torch.eye(n)[None, None]  # (1, 1, n, n)
    torch.testing.assert_close(probes.mean_attention_distance(itself, rows, cols, patch), torch.zeros(1, 1))
    # each patch attends to its right-hand neighbour (the last column to its left-hand one): one patch away
    right = torch.zeros(n, n)
    for i in range(n):
        j = i + 1 if i % cols < cols - 1 else i - 1
        right[i, j] = 1.0
    assert probes.mean_attention_distance(right, rows, cols, patch).item() == pytest.approx(patch)
    # uniform attention: the mean distance between all pairs of patch centres (the patch itself included)
    r, c = torch.arange(n) // cols, torch.arange(n) % cols
    pairs = torch.sqrt(((r[:, None] - r[None]) ** 2 + (c[:, None] - c[None]) ** 2).float()) * patch
    uniform = torch.full((n, n), 1 / n)
    assert probes.mean_attention_distance(uniform, rows, cols, patch).item() == pytest.approx(
        pairs.mean().item()
    )


def test_mean_attention_distance_drops_the_prediction_token() -> None:
    rows, cols, patch = 3, 5, 20
    n = rows * cols
    w = torch.zeros(2, 4, n + 1, n + 1)
    w[..., 0] = 0.5  # half of every query's attention goes to the prediction token
    w[..., 1:, 1:] += 0.5 * torch.eye(n)  # the other half to the patch itself
    w[..., 0, 1:] = 0.5 / n
    torch.testing.assert_close(probes.mean_attention_distance(w, rows, cols, patch), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="expected rows"):
        probes.mean_attention_distance(torch.ones(1, 7, 7) / 7, rows, cols, patch)


def test_row_and_column_scores_separately() -> None:
    rows_only = _row_column_code(3, 5)[:, :3]  # (15, 3): a one-hot row code, nothing about columns
    # column score: same column 0, other columns 4 of 12 in the same row (1) -> 0 - 1/3
    assert probes.row_column_score(rows_only, 3, 5, along="row") == pytest.approx(1.0)
    assert probes.row_column_score(rows_only, 3, 5, along="column") == pytest.approx(-1 / 3)
    with pytest.raises(ValueError):
        probes.row_column_score(rows_only, 3, 5, along="diagonal")
