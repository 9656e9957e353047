"""The probes of vitcourse.probes on hand-built embeddings and attention maps with known answers."""

import math

import numpy as np
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


def test_similarity_by_distance_of_a_row_column_code() -> None:
    # one-hot row next to one-hot column: cosine 1/2 for every pair in a row or column, 0 for the rest
    table = probes.similarity_by_distance(_row_column_code(3, 5), 3, 5)
    assert sum(c.pairs for c in table) == 15 * 14 // 2
    for c in table:
        assert c.mean == pytest.approx(0.5 if c.line in ("row", "column") else 0.0, abs=1e-6)
    lines = {(round(c.distance, 3), c.line): c.pairs for c in table}
    # 3 rows of 5: 4 + 3 + 2 + 1 pairs per row at distances 1 to 4; 5 columns of 3: 2 + 1 at distances 1, 2
    assert [lines[(d, "row")] for d in (1, 2, 3, 4)] == [12, 9, 6, 3]
    assert [lines[(d, "column")] for d in (1, 2)] == [10, 5]
    assert lines[(round(math.sqrt(2), 3), "neither")] == 16  # diagonal neighbours: 2 * 2 * 4
    assert [c.distance for c in table] == sorted(c.distance for c in table)


def test_similarity_by_offset_against_a_loop() -> None:
    rows, cols = 3, 4
    emb = torch.randn(1 + rows * cols, 5, generator=torch.Generator().manual_seed(0))
    unit = torch.nn.functional.normalize(emb[1:].double(), dim=-1)
    sims = unit @ unit.T
    total = torch.zeros(2 * rows - 1, 2 * cols - 1, dtype=torch.float64)
    count = torch.zeros_like(total)
    for p in range(rows * cols):
        for q in range(rows * cols):
            dr, dc = q // cols - p // cols + rows - 1, q % cols - p % cols + cols - 1
            total[dr, dc] += sims[p, q]
            count[dr, dc] += 1
    expected = total / count
    expected[rows - 1, cols - 1] = 1.0
    got = probes.similarity_by_offset(emb, rows, cols)
    assert got.shape == (5, 7) and torch.allclose(got, expected)
    code = _row_column_code(rows, cols)  # same row or column: 1/2, elsewhere 0
    got = probes.similarity_by_offset(code, rows, cols)
    assert torch.allclose(got[rows - 1, [0, 1, 2, 4, 5, 6]], torch.full((6,), 0.5, dtype=torch.float64))
    assert torch.allclose(got[[0, 4], 0], torch.zeros(2, dtype=torch.float64))


def test_distance_only_embedding_has_the_gaussian_similarity() -> None:
    sigma = 1.3
    control = probes.distance_only_embedding(3, 5, sigma)
    assert control.shape == (15, 15)
    r, c = torch.arange(15) // 5, torch.arange(15) % 5
    d2 = ((r[:, None] - r[None]) ** 2 + (c[:, None] - c[None]) ** 2).double()
    sims = torch.nn.functional.cosine_similarity(control[:, None], control[None], dim=-1)
    torch.testing.assert_close(sims, torch.exp(-d2 / (2 * sigma**2)), atol=1e-6, rtol=0)
    # its table falls with distance whatever the line
    means = [m.mean for m in probes.similarity_by_distance(control, 3, 5)]
    assert (torch.tensor(means).diff() <= 1e-6).all()


def test_distance_only_scores_closed_form_on_2_by_2() -> None:
    # 2 x 2: each patch has 2 neighbours in its row or column (distance 1) and 1 in neither (sqrt 2)
    sigma = 1.0
    near, diagonal = math.exp(-1 / (2 * sigma**2)), math.exp(-2 / (2 * sigma**2))
    scores = probes.distance_only_scores(2, 2, sigma)
    assert scores["both"] == pytest.approx(near - diagonal, abs=1e-6)
    # rows only: its row-mate (distance 1) minus the other row (one at distance 1, one at sqrt 2)
    assert scores["row"] == pytest.approx(near - (near + diagonal) / 2, abs=1e-6)
    assert scores["column"] == pytest.approx(scores["row"], abs=1e-6)  # a square grid has no favourite


def test_distance_only_scores_on_3_by_5_favour_columns_and_vanish_when_narrow() -> None:
    scores = probes.distance_only_scores(3, 5, 1.0)
    assert 0.15 < scores["both"] < 0.3 and scores["column"] > scores["row"] > 0  # column-mates are nearer
    tiny = probes.distance_only_scores(3, 5, 0.05)  # every pair nearly orthogonal: the identity
    assert all(abs(v) < 1e-6 for v in tiny.values())


def test_distance_probes_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="sigma"):
        probes.distance_only_embedding(3, 5, 0.0)
    with pytest.raises(TypeError, match="sigma"):
        probes.distance_only_scores(3, 5, "wide")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 2"):
        probes.similarity_by_distance(torch.randn(5, 8), 1, 5)
    with pytest.raises(ValueError, match="expected rows"):
        probes.similarity_by_distance(torch.randn(7, 8), 3, 5)


GRIDS = [(3, 5), (6, 10), (12, 20)]


def _random_fourier_embedding(rows: int, cols: int, length: float, dims: int, seed: int) -> torch.Tensor:
    """(rows * cols, dims): random Fourier features whose dot products approximate exp(-d^2 / (2 length^2))."""
    g = torch.Generator().manual_seed(seed)
    r, c = torch.arange(rows * cols) // cols, torch.arange(rows * cols) % cols
    centres = torch.stack([r, c], -1).double()  # (N, 2) in patches
    freqs = torch.randn(2, dims, generator=g, dtype=torch.float64) / length
    phases = torch.rand(dims, generator=g, dtype=torch.float64) * 2 * math.pi
    return torch.cos(centres @ freqs + phases) * math.sqrt(2 / dims)


@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("length", [1.0, 1.25, 1.5])
def test_beyond_locality_is_about_zero_for_distance_only_embeddings(
    grid: tuple[int, int], length: float
) -> None:
    # exact: the eigen factor of the Gaussian kernel matrix (measured: |terms| <= 0.0002, R^2 1.0000)
    fit = probes.row_column_beyond_locality(probes.distance_only_embedding(*grid, length), grid)
    assert abs(fit.same_row) < 0.04 and abs(fit.same_column) < 0.04
    assert fit.r_squared > 0.999
    d = torch.linspace(1.0, 4.0, 13, dtype=torch.float64)  # the smooth part is the Gaussian itself
    torch.testing.assert_close(fit.smooth_at(d), torch.exp(-(d**2) / (2 * length**2)), atol=0.01, rtol=0)
    # approximate: random Fourier features, 4096 dimensions (measured: |terms| <= 0.009)
    features = _random_fourier_embedding(*grid, length, 4096, seed=1)
    fit = probes.row_column_beyond_locality(features, grid)
    assert abs(fit.same_row) < 0.04 and abs(fit.same_column) < 0.04


@pytest.mark.parametrize("grid", GRIDS)
def test_beyond_locality_of_row_and_column_codes(grid: tuple[int, int]) -> None:
    rows, cols = grid
    # one-hot row next to one-hot column: cosine 1/2 in a line, 0 off it; both terms exactly 0.5
    fit = probes.row_column_beyond_locality(_row_column_code(rows, cols), grid)
    assert fit.same_row == pytest.approx(0.5, abs=1e-6) and fit.same_column == pytest.approx(0.5, abs=1e-6)
    assert fit.r_squared == pytest.approx(1.0)
    assert fit.pairs == rows * cols * (rows * cols - 1) // 2
    # a one-hot row code alone: cosine 1 in a row, 0 elsewhere (a column's other patches are in other rows)
    fit = probes.row_column_beyond_locality(_row_column_code(rows, cols)[:, :rows], grid)
    assert fit.same_row == pytest.approx(1.0, abs=1e-6) and abs(fit.same_column) < 1e-6


@pytest.mark.parametrize("grid", GRIDS)
def test_beyond_locality_of_random_vectors(grid: tuple[int, int]) -> None:
    g = torch.Generator().manual_seed(0)
    random = torch.randn(grid[0] * grid[1] + 1, 4096, generator=g)  # a prediction token's slot first
    fit = probes.row_column_beyond_locality(random[None], grid)  # (1, N + 1, D)
    assert abs(fit.same_row) < 0.05 and abs(fit.same_column) < 0.05  # measured: <= 0.007


def test_beyond_locality_rejects_bad_input() -> None:
    code = _row_column_code(3, 5)
    with pytest.raises(TypeError, match="grid"):
        probes.row_column_beyond_locality(code, 15)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rows"):
        probes.row_column_beyond_locality(code, (3.0, 5))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="grid"):
        probes.row_column_beyond_locality(code, (1, 15))
    with pytest.raises(ValueError, match="too few distinct distances"):
        probes.row_column_beyond_locality(torch.randn(4, 8), (2, 2))
    with pytest.raises(ValueError, match="pos_embed"):
        probes.row_column_beyond_locality(code, (3, 4))
    with pytest.raises(ValueError, match="pos_embed"):
        probes.row_column_beyond_locality(code.expand(2, 15, 8), (3, 5))
    with pytest.raises(TypeError, match="pos_embed"):
        probes.row_column_beyond_locality(code.numpy(), (3, 5))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pos_embed"):
        probes.row_column_beyond_locality(code.long(), (3, 5))
    with pytest.raises(ValueError, match="pos_embed"):
        probes.row_column_beyond_locality(torch.full((15, 8), float("nan")), (3, 5))
    with pytest.raises(ValueError, match="width"):
        probes.row_column_beyond_locality(code, (3, 5), width=0.0)
    with pytest.raises(TypeError, match="width"):
        probes.row_column_beyond_locality(code, (3, 5), width="wide")  # type: ignore[arg-type]


@pytest.mark.parametrize("grid", [(3, 5), (6, 10), (2, 7)])
def test_attention_distance_bounds_match_the_maps_they_describe(grid: tuple[int, int]) -> None:
    rows, cols = grid
    n, patch = rows * cols, 10
    bounds = probes.attention_distance_bounds(rows, cols, patch)
    uniform = torch.full((n, n), 1 / n)
    assert bounds["uniform"] == pytest.approx(
        probes.mean_attention_distance(uniform, rows, cols, patch).item()
    )
    r, c = torch.arange(n) // cols, torch.arange(n) % cols
    steps = (r[:, None] - r[None]).abs() + (c[:, None] - c[None]).abs()
    neighbours = (steps == 1).float()
    neighbours = neighbours / neighbours.sum(-1, keepdim=True)  # each patch: its nearest others, evenly
    assert bounds["nearest"] == pytest.approx(
        probes.mean_attention_distance(neighbours, rows, cols, patch).item()
    )
    centres = torch.stack([r, c], -1).double() * patch
    far = torch.cdist(centres, centres).argmax(-1)
    farthest = torch.eye(n)[far]  # each patch attends only to the patch farthest from it
    assert bounds["farthest"] == pytest.approx(
        probes.mean_attention_distance(farthest, rows, cols, patch).item()
    )
    assert bounds["itself"] == 0 < bounds["nearest"] < bounds["uniform"] < bounds["farthest"]
    with pytest.raises(ValueError, match="at least 2 patches"):
        probes.attention_distance_bounds(1, 1, 10)


def test_filter_components_recover_known_patterns() -> None:
    g = torch.Generator().manual_seed(0)
    patterns = torch.linalg.qr(torch.randn(25, 2, generator=g, dtype=torch.float64))[
        0
    ].T  # (2, 25) orthonormal
    coefficients = torch.randn(64, 2, generator=g, dtype=torch.float64) * torch.tensor(
        [3.0, 1.0], dtype=torch.float64
    )
    filters = (coefficients @ patterns + 0.5).reshape(
        64, 1, 5, 5
    )  # every filter: a mean plus the two patterns
    found = probes.filter_components(filters.float(), k=2)
    assert found.components.shape == (2, 1, 5, 5) and found.explained.shape == (2,)
    flat = found.components.reshape(2, 25).double()
    # the components span the patterns' plane, and the first (3 times the spread) is the first pattern
    torch.testing.assert_close(flat @ flat.T, torch.eye(2, dtype=torch.float64), atol=1e-5, rtol=0)
    assert (flat @ patterns.T).abs().diagonal().min() > 0.99
    assert found.explained.sum().item() == pytest.approx(1.0, abs=1e-5)
    torch.testing.assert_close(
        found.mean.reshape(25).double(), filters.reshape(64, 25).mean(0), atol=1e-6, rtol=0
    )
    for component in flat:  # the sign is fixed: the largest entry positive
        assert component[component.abs().argmax()] > 0


def test_filter_components_agree_with_the_covariance_eigenvalues() -> None:
    filters = torch.randn(48, 1, 6, 6, generator=torch.Generator().manual_seed(1))
    found = probes.filter_components(filters)
    assert found.components.shape == (36, 1, 6, 6)
    eigenvalues = np.linalg.eigvalsh(np.cov(filters.reshape(48, 36).numpy().T))[::-1]
    np.testing.assert_allclose(found.explained.numpy(), eigenvalues / eigenvalues.sum(), rtol=1e-4, atol=1e-7)
    with pytest.raises(ValueError, match="k must be at most"):
        probes.filter_components(filters, k=37)
    with pytest.raises(ValueError, match="at least 2 filters"):
        probes.filter_components(filters[:1])
    with pytest.raises(ValueError, match="weight"):
        probes.filter_components(filters[0])


def test_shipped_grid_model_shows_rows_and_columns_beyond_locality() -> None:
    # the ViT of 60 patches that notebook 12 sets beside the ViT paper's Figure 7: both terms at least 0.1,
    # where embeddings of locality alone on the same grid stay below 0.04
    from vitcourse import train

    table = train.load_shipped("vit_within").model.pos_embed.detach()
    fit = probes.row_column_beyond_locality(table, (6, 10))
    assert fit.same_row >= 0.1 and fit.same_column >= 0.1
    for sigma in (1.0, 1.5):
        control = probes.row_column_beyond_locality(probes.distance_only_embedding(6, 10, sigma), (6, 10))
        assert abs(control.same_row) < 0.04 and abs(control.same_column) < 0.04


def test_smooth_random_embeddings_are_locality_on_average() -> None:
    g = torch.Generator().manual_seed(0)
    draws = [probes.smooth_random_embedding(6, 10, 1.5, 64, g) for _ in range(300)]
    assert draws[0].shape == (60, 64)
    unit = [torch.nn.functional.normalize(e, dim=-1) for e in draws]
    mean_similarity = torch.stack([u @ u.T for u in unit]).mean(0)  # (60, 60)
    r, c = torch.arange(60) // 10, torch.arange(60) % 10
    distance = torch.cdist(torch.stack([r, c], 1).double(), torch.stack([r, c], 1).double())
    expected = torch.exp(-(distance**2) / (2 * 1.5**2))
    assert (mean_similarity - expected).abs().max() < 0.05  # random Fourier features of the Gaussian
    terms = torch.tensor(
        [
            [f.same_row, f.same_column]
            for f in map(lambda e: probes.row_column_beyond_locality(e, (6, 10)), draws)
        ]
    )
    assert terms.mean(0).abs().max() < 0.02  # no preference for rows or columns on average
    assert terms.abs().max() > 0.05  # but single draws have chance preferences: the null has a spread
    again = probes.smooth_random_embedding(6, 10, 1.5, 64, torch.Generator().manual_seed(0))
    torch.testing.assert_close(again, draws[0])
    with pytest.raises(ValueError, match="dim must be an even number"):
        probes.smooth_random_embedding(6, 10, 1.5, 63)
    with pytest.raises(TypeError, match="generator"):
        probes.smooth_random_embedding(6, 10, 1.5, 64, 3)  # type: ignore[arg-type]
