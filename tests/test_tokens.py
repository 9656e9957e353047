import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from vitcourse import data, tokens
from vitcourse.tokens import count_tokens, patchify, soft_split, unsplit, window_corners


@settings(max_examples=300, deadline=None)
@given(
    h=st.integers(1, 40),
    w=st.integers(1, 40),
    k=st.integers(1, 9),
    s=st.integers(1, 6),
    p=st.integers(0, 4),
)
def test_count_tokens_equals_unfold(h: int, w: int, k: int, s: int, p: int) -> None:
    fits = k <= min(h + 2 * p, w + 2 * p)
    if not fits:
        with pytest.raises(ValueError, match="kernel"):
            count_tokens(h, w, k, s, p)
        return
    out = nn.Unfold(k, stride=s, padding=p)(torch.zeros(1, 1, h, w))
    count = count_tokens(h, w, k, s, p)
    assert count.total == out.shape[-1]
    assert count.rows * count.cols == count.total
    # rows belong to the height: a taller image never has fewer rows
    assert count_tokens(h + s, w, k, s, p).rows == count.rows + 1


def test_count_tokens_picture_numbers() -> None:
    assert count_tokens(60, 100, 20, 20, 0) == (3, 5, 15)
    assert count_tokens(60, 100, 20, 10, 5) == (6, 10, 60)
    assert tokens.t2t_stride_padding(20) == (10, 5)
    assert tokens.t2t_stride_padding(7) == (4, 2)
    assert tokens.t2t_stride_padding(3) == (2, 1)


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        ((60, 100, 80, 10, 5), ValueError, "kernel=80 is larger than the padded height "),
        ((60, 100, 0, 1, 0), ValueError, "kernel must be an int >= 1"),
        ((60, 100, 3, 0, 0), ValueError, "stride must be"),
        ((60, 100, 3, 1, -1), ValueError, "padding must be an int >= 0"),
        ((60.0, 100, 3, 1, 0), TypeError, "height must be an int"),
        ((60, 100, True, 1, 0), TypeError, "kernel"),
    ],
)
def test_count_tokens_bad_input(args: tuple, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        count_tokens(*args)


@settings(max_examples=40, deadline=None)
@given(
    c=st.integers(1, 3),
    p=st.integers(1, 6),
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    d=st.integers(1, 12),
)
def test_patch_tokenizer_equals_conv2d(c: int, p: int, rows: int, cols: int, d: int) -> None:
    h, w = rows * p, cols * p
    tok = tokens.PatchTokenizer((h, w), p, c, d)
    conv = nn.Conv2d(c, d, kernel_size=p, stride=p)
    with torch.no_grad():
        conv.weight.copy_(tok.proj.weight.reshape(d, c, p, p))
        conv.bias.copy_(tok.proj.bias)
    x = torch.randn(2, c, h, w)
    expected = conv(x).flatten(2).transpose(1, 2)  # (B, N, D)
    torch.testing.assert_close(tok(x), expected, rtol=1e-5, atol=1e-5)
    assert tok.num_patches == rows * cols


def test_picture_patches() -> None:
    x = data.to_tensor(data.load_mountains())
    t = tokens.patchify(x, 20)
    assert t.shape == (1, 15, 400)
    # patch 11 (the article's patch 12; numbered from 0, row by row) is rows 40-60, columns 20-40
    torch.testing.assert_close(t[0, 11], x[0, 0, 40:60, 20:40].reshape(-1))
    tok = tokens.PatchTokenizer((60, 100), 20, 1, 768)
    assert tok(x).shape == (1, 15, 768)


def test_lecture_example_224() -> None:
    tok = tokens.PatchTokenizer(224, 16, 3, 768)
    assert tok(torch.zeros(1, 3, 224, 224)).shape == (1, 196, 768)


def test_patch_size_must_divide_and_lists_valid_sizes() -> None:
    with pytest.raises(
        ValueError, match=r"patch_size=7 does not divide the image \(60 x 100\).*\[1, 2, 4, 5, 10, 20\]"
    ):
        tokens.patchify(torch.zeros(1, 1, 60, 100), 7)


def test_soft_split_picture() -> None:
    x = data.to_tensor(data.load_mountains())
    t = tokens.soft_split(x, 20)
    assert t.shape == (1, 60, 400)
    padded = F.pad(x, (5, 5, 5, 5))
    assert padded.shape[-2:] == (70, 110)
    corners = tokens.window_corners(60, 100, 20, 10, 5)
    for i in (0, 7, 59):
        r, c = corners[i] + 5
        torch.testing.assert_close(t[0, i], padded[0, 0, r : r + 20, c : c + 20].reshape(-1))


@settings(max_examples=60, deadline=None)
@given(
    b=st.integers(1, 2),
    c=st.integers(1, 3),
    h=st.integers(4, 20),
    w=st.integers(4, 20),
    k=st.integers(1, 5),
)
def test_soft_split_then_unsplit_round_trips(b: int, c: int, h: int, w: int, k: int) -> None:
    x = torch.randn(b, c, h, w)
    s, p = tokens.t2t_stride_padding(k)
    t = tokens.soft_split(x, k)
    assert t.shape == (b, count_tokens(h, w, k, s, p).total, c * k * k)
    back = tokens.unsplit(t, h, w, k)
    covered = F.fold(
        torch.ones(1, k * k, t.shape[1]), (h, w), kernel_size=k, stride=s, padding=p
    ).bool()  # pixels some window holds
    torch.testing.assert_close(back * covered, x * covered, rtol=1e-5, atol=1e-5)


def test_unsplit_covers_the_picture_with_t2t_rule() -> None:
    x = data.to_tensor(data.load_mountains())
    torch.testing.assert_close(tokens.unsplit(tokens.soft_split(x, 20), 60, 100, 20), x)


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 3), c=st.integers(1, 5), h=st.integers(1, 12), w=st.integers(1, 12))
def test_rebuild_image_inverts_flattening_for_any_shape(b: int, c: int, h: int, w: int) -> None:
    img = torch.randn(b, c, h, w)
    seq = img.flatten(2).transpose(1, 2)  # (B, H*W, C): what a token transformer hands back
    torch.testing.assert_close(tokens.rebuild_image(seq, h, w), img)
    # soft split with a 1 x 1 window is that flattening
    torch.testing.assert_close(tokens.rebuild_image(tokens.soft_split(img, 1, 1, 0), h, w), img)


def test_rebuild_image_bad_input() -> None:
    with pytest.raises(ValueError, match=r"tokens has 10 tokens but height \* width = 3 \* 4 = 12"):
        tokens.rebuild_image(torch.zeros(1, 10, 2), 3, 4)
    with pytest.raises(ValueError, match=r"tokens must have 3 dimensions"):
        tokens.rebuild_image(torch.zeros(10, 2), 2, 5)
    with pytest.raises(TypeError, match="tokens must be a torch.Tensor"):
        tokens.rebuild_image([[0.0]], 1, 1)


def test_soft_split_rank_error() -> None:
    with pytest.raises(
        ValueError, match=r"images must have 4 dimensions \(B, C, H, W\), got shape \(60, 100\)"
    ):
        tokens.soft_split(torch.zeros(60, 100), 3)


def test_window_corners_match_count() -> None:
    corners = tokens.window_corners(60, 100, 20, 10, 5)
    assert corners.shape == (60, 2)
    assert tuple(corners[0]) == (-5, -5) and tuple(corners[-1]) == (45, 85)
    assert math.prod(count_tokens(60, 100, 20, 10, 5)[:2]) == len(corners)


def test_stage_grids_walk_the_t2t_module() -> None:
    # the walk-through of the course: a 400 x 100 input through (7, 4, 2), (3, 2, 1), (3, 2, 1)
    assert tokens.T2T_STAGES == ((7, 4, 2), (3, 2, 1), (3, 2, 1))
    assert tokens.stage_grids(400, 100) == [(100, 25, 2500), (50, 13, 650), (25, 7, 175)]
    assert tokens.stage_grids(data.HEIGHT, data.WIDTH)[-1] == (4, 7, 28)
    assert tokens.stage_grids(224, 224)[-1].total == 196  # 14 x 14, as the official 224 x 224 models have
    assert tokens.stage_grids(60, 100, [(20, 10, 5)]) == [count_tokens(60, 100, 20, 10, 5)]


@settings(max_examples=60, deadline=None)
@given(h=st.integers(8, 300), w=st.integers(8, 300))
def test_stage_grids_chain_count_tokens(h: int, w: int) -> None:
    grids = tokens.stage_grids(h, w)
    height, width = h, w
    for grid, (k, s, p) in zip(grids, tokens.T2T_STAGES, strict=True):
        assert grid == count_tokens(height, width, k, s, p)
        height, width = grid.rows, grid.cols


def test_stage_grids_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one"):
        tokens.stage_grids(60, 100, [])
    with pytest.raises(ValueError, match="kernel=7 is larger than the padded height and width"):
        tokens.stage_grids(2, 2)


@settings(max_examples=60, deadline=None)
@given(
    height=st.integers(1, 14),
    width=st.integers(1, 14),
    kernel=st.integers(1, 9),
    stride=st.integers(1, 10),
    padding=st.integers(0, 5),
)
def test_unsplit_returns_exactly_the_covered_pixels(
    height: int, width: int, kernel: int, stride: int, padding: int
) -> None:
    """unsplit(soft_split(x)) is x where some window covers the pixel and 0 elsewhere, covered counted by hand."""
    if kernel > min(height, width) + 2 * padding:
        return  # no window fits: count_tokens refuses these, tested elsewhere
    x = torch.rand(1, 2, height, width) + 1.0  # no pixel is 0, so a 0 can only mean "not covered"
    back = unsplit(soft_split(x, kernel, stride, padding), height, width, kernel, stride, padding)
    covered = torch.zeros(height, width, dtype=torch.bool)
    for r, c in window_corners(
        height, width, kernel, stride, padding
    ):  # the reference: every window, one by one
        covered[max(r, 0) : max(r + kernel, 0), max(c, 0) : max(c + kernel, 0)] = True
    torch.testing.assert_close(back, torch.where(covered, x, torch.zeros(())))
    rows_ok = [(side + 2 * padding - kernel) % stride <= padding for side in (height, width)]
    if stride <= kernel and padding < kernel and all(rows_ok):  # the docstring's condition for "every pixel"
        assert covered.all()


def test_unsplit_docstring_example() -> None:
    x = torch.rand(1, 1, 9, 14) + 1.0
    back = unsplit(soft_split(x, 9, 9, 1), 9, 14, 9, 9, 1)
    torch.testing.assert_close(back[..., :8, :8], x[..., :8, :8])
    assert (back[..., 8, :] == 0).all() and (back[..., :, 8:] == 0).all()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_splits_keep_a_floating_dtype(dtype: torch.dtype) -> None:
    x = torch.rand(1, 1, 8, 8).to(dtype)
    assert soft_split(x, 3).dtype == dtype and patchify(x, 4).dtype == dtype
    torch.testing.assert_close(patchify(x, 4).float(), patchify(x.float(), 4))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int64, torch.bool, torch.complex64])
def test_splits_refuse_other_dtypes_saying_how_to_convert(dtype: torch.dtype) -> None:
    with pytest.raises(
        TypeError, match=r"images has dtype .*: (convert it with images\.float\(\)|pass its real)"
    ):
        patchify(torch.zeros(1, 1, 8, 8, dtype=dtype), 4)


def test_entries_per_token_counts_and_bounds_each_tokens_true_entries() -> None:
    mask = torch.zeros(3, 10, dtype=torch.bool)
    mask[0, [2, 5, 7]] = True
    mask[2, 9] = True
    assert tokens.entries_per_token(mask) == {0: (3, 2, 7), 2: (1, 9, 9)}
    with pytest.raises(ValueError):
        tokens.entries_per_token(torch.zeros(10, dtype=torch.bool))


def test_window_reach_finds_each_final_tokens_square() -> None:
    # one split (7, 4, 2): token 0's window starts 2 pixels before the image, so it holds rows and columns 0..4
    first = tokens.window_reach(20, 20, [(7, 4, 2)], 0)
    assert first.shape == (20, 20) and first[:5, :5].all() and int(first.sum()) == 25
    # T2T's three splits: a final token away from the edges reaches a 31 x 31 square (side += (k - 1) * step)
    grid = tokens.stage_grids(200, 200, tokens.T2T_STAGES)[-1]
    centre = (grid.rows // 2) * grid.cols + grid.cols // 2
    reach = tokens.window_reach(200, 200, tokens.T2T_STAGES, centre)
    rows, cols = reach.any(dim=1).nonzero()[:, 0], reach.any(dim=0).nonzero()[:, 0]
    assert len(rows) == len(cols) == 31 and int(reach.sum()) == 31 * 31
    assert int(cols[-1] - cols[0]) == 30 and int(rows[-1] - rows[0]) == 30  # one solid square
    with pytest.raises(ValueError, match="token"):
        tokens.window_reach(200, 200, tokens.T2T_STAGES, grid.total)
