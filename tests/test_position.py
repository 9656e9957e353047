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


def test_sinusoidal_table_pairs_and_distance() -> None:
    table = position.sinusoidal_table(176, 768)
    assert table.shape == (176, 768)
    assert torch.all(table[0, 0::2] == 0) and torch.all(table[0, 1::2] == 1)
    # Entries 2m and 2m + 1 are a sine and a cosine of one angle.
    torch.testing.assert_close(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, torch.ones(176, 384))
    # The frequency of pair m is 10000 ** (-2m / d): row 1 holds sin and cos of exactly that angle.
    freq = 10000 ** (-torch.arange(384, dtype=torch.float64) * 2 / 768)
    torch.testing.assert_close(table[1, 0::2].double(), torch.sin(freq), rtol=0, atol=1e-6)
    # Dot products of rows depend only on the distance between the slots.
    dots = table.double() @ table.double().T
    for offset in (1, 7, 100):
        diagonal = dots.diagonal(offset)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), rtol=0, atol=1e-4)


def test_sinusoidal_table_other_base() -> None:
    table = position.sinusoidal_table(5, 4, base=100.0)
    torch.testing.assert_close(table[3, 2], torch.tensor(math.sin(3 / 100 ** (2 / 4))))


def test_learned_embedding_shape_and_spread() -> None:
    torch.manual_seed(0)
    emb = position.learned_position_embedding(197, 768)
    assert isinstance(emb, torch.nn.Parameter) and emb.requires_grad
    assert emb.shape == (1, 197, 768)
    assert emb.abs().max() <= 0.04 + 1e-7  # our own cut at two standard deviations
    assert 0.0170 < emb.std().item() < 0.0182  # a normal of std 0.02 cut at 2 std has std ~0.0176


def test_torch_trunc_normal_bounds_are_absolute() -> None:
    # Why timm's trunc_normal_(std=.02) is effectively untruncated: its bounds a=-2, b=2 are absolute values.
    t = torch.nn.init.trunc_normal_(
        torch.empty(200_000), std=0.02, generator=torch.Generator().manual_seed(0)
    )
    assert t.abs().max() > 0.04


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


def test_resize_position_embedding_interpolates_in_2d_and_keeps_the_prediction_row() -> None:
    gen = torch.Generator().manual_seed(0)
    pos = torch.randn(1, 1 + 3 * 5, 4, generator=gen)
    resized = position.resize_position_embedding(pos, (3, 5), (6, 10))
    assert resized.shape == (1, 1 + 60, 4) and resized.dtype == pos.dtype
    assert torch.equal(resized[0, 0], pos[0, 0])  # the prediction token's row is kept as it is
    torch.testing.assert_close(position.resize_position_embedding(pos, (3, 5), (3, 5)), pos)
    # each entry d is the bicubic resize of its own (3, 5) map, read row by row
    for d in range(4):
        single = pos[0, 1:, d].reshape(1, 1, 3, 5)
        expected = torch.nn.functional.interpolate(single, size=(6, 10), mode="bicubic", align_corners=False)
        torch.testing.assert_close(resized[0, 1:, d], expected.flatten())
    # a constant grid stays constant; a grid that varies along columns only still does after resizing
    columns_only = torch.arange(5.0).repeat(3)[None, :, None]  # (1, 15, 1): value = column index
    out = position.resize_position_embedding(columns_only, (3, 5), (4, 7), num_prefix_tokens=0)
    rows = out[0, :, 0].reshape(4, 7)
    torch.testing.assert_close(rows, rows[:1].expand(4, 7))
    timm_like = position.resize_position_embedding(pos, (3, 5), (6, 10), antialias=True)
    assert not torch.allclose(timm_like, resized)  # another cubic kernel in PyTorch


def test_resize_position_embedding_refuses_bad_input() -> None:
    pos = torch.randn(1, 16, 4)
    with pytest.raises(ValueError, match="pos_embed must have shape"):
        position.resize_position_embedding(pos, (4, 4), (6, 6))
    with pytest.raises(TypeError, match="old_grid"):
        position.resize_position_embedding(pos, 15, (6, 10))
    with pytest.raises(ValueError, match=r"new_grid\[1\]"):
        position.resize_position_embedding(pos, (3, 5), (6, 0))
    with pytest.raises(TypeError, match="pos_embed"):
        position.resize_position_embedding(pos.long(), (3, 5), (6, 10))
    with pytest.raises(TypeError, match="antialias"):
        position.resize_position_embedding(pos, (3, 5), (6, 10), antialias="False")


def test_show_table_columns_draws_each_chosen_column_and_names_them() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vitcourse import plots

    table = position.sinusoidal_table(176, 768)
    ax = plots.show_table_columns(table, range(0, 768, 8))
    image = ax.images[0].get_array()
    assert image.shape == (176, 96)
    assert torch.allclose(torch.as_tensor(image.data), table[:, ::8])
    assert "every 8th column, 0 to 760, of 768" in ax.get_xlabel()
    assert ax.images[0].colorbar.vmin == -1 and ax.images[0].colorbar.vmax == 1
    ax = plots.show_table_columns(table, range(48))
    assert "columns 0-47 of 768" in ax.get_xlabel()
    with pytest.raises(ValueError, match="at most"):
        plots.show_table_columns(table, range(768))
    with pytest.raises(ValueError, match="increasing"):
        plots.show_table_columns(table, [3, 2])
    with pytest.raises(ValueError, match="lie in"):
        plots.show_table_columns(table, [767, 768])
    with pytest.raises(TypeError, match="columns"):
        plots.show_table_columns(table, "0:10")
    plt.close("all")
