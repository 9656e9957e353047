import math

import pytest
import torch

from vitcourse import position


def test_sinusoidal_table_equals_the_formula() -> None:
    n, d = 15, 400
    table = position.sinusoidal_table(n, d)
    assert table.shape == (n, d) and table.dtype == torch.float32
    expected = torch.empty(n, d, dtype=torch.float64)
    for i in range(n):
        for j in range(d):
            angle = i / 10000 ** (2 * (j // 2) / d)
            expected[i, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    torch.testing.assert_close(table, expected.float(), rtol=0, atol=1e-6)


def test_sinusoidal_table_176_x_768_range() -> None:
    table = position.sinusoidal_table(176, 768)
    assert table.shape == (176, 768)
    assert table.min() >= -1 and table.max() <= 1
    assert torch.all(table[0, 0::2] == 0) and torch.all(table[0, 1::2] == 1)


def test_learned_embedding_shape_and_spread() -> None:
    torch.manual_seed(0)
    emb = position.learned_position_embedding(197, 768)
    assert isinstance(emb, torch.nn.Parameter) and emb.requires_grad
    assert emb.shape == (1, 197, 768)
    assert emb.abs().max() <= 0.04 + 1e-7  # truncated at two standard deviations
    assert 0.015 < emb.std().item() < 0.02  # a normal of std 0.02 truncated at 2 std has std ~0.0176


def test_cosine_similarity_grid() -> None:
    emb = torch.randn(16, 8)
    grid = position.cosine_similarity_grid(emb, 3, 5)  # first row is the prediction token's slot, dropped
    assert grid.shape == (3, 5, 3, 5)
    diag = torch.stack([grid[r, c, r, c] for r in range(3) for c in range(5)])
    torch.testing.assert_close(diag, torch.ones(15))
    expected = torch.nn.functional.cosine_similarity(emb[1 + 7], emb[1 + 2], dim=0)
    torch.testing.assert_close(grid[1, 2, 0, 2], expected)
    with pytest.raises(ValueError, match="expected rows \\* cols = 15"):
        position.cosine_similarity_grid(torch.randn(20, 8), 3, 5)


def test_bad_sizes() -> None:
    with pytest.raises(ValueError, match="num_tokens"):
        position.sinusoidal_table(0, 8)
    with pytest.raises(TypeError, match="dim"):
        position.sinusoidal_table(4, 8.0)
