"""Exercise checkers for notebook 03 position embeddings."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .. import position, tokens
from ._core import Mistake, Verdict, check_function, choice_answer, int_answer, never_raises, reread

__all__ = [
    "permuted_weights_function",
    "sinusoidal_column",
    "sinusoidal_function",
    "control_axis_prediction",
    "learned_embedding_size",
    "resize_pos_embed_function",
]


def _attention_weights(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor) -> torch.Tensor:
    """Single-head attention weights softmax(x W_q (x W_k)^T / sqrt(d)) of tokens x (N, D); returns (N, N)."""
    q, k = x @ w_q, x @ w_k  # (N, d) each
    return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)


def _permutation_cases() -> list[tuple[tuple, torch.Tensor]]:
    """(weights, perm) -> the weights attention really computes on the permuted tokens."""
    gen = torch.Generator().manual_seed(5)
    cases = []
    for n, perm in (
        (6, [1, 2, 3, 4, 5, 0]),
        (15, torch.randperm(15, generator=gen).tolist()),
        (4, [2, 1, 0, 3]),
    ):
        x = torch.randn(n, 12, generator=gen)  # (N, 12)
        w_q, w_k = torch.randn(12, 8, generator=gen), torch.randn(12, 8, generator=gen)
        order = torch.tensor(perm)
        cases.append(((_attention_weights(x, w_q, w_k), order), _attention_weights(x[order], w_q, w_k)))
    return cases


@never_raises
def permuted_weights_function(func: object) -> Verdict:
    """Exercise 03.1: ``func(weights, perm)`` predicts the attention weights of the permuted tokens."""
    mistakes = [
        Mistake(
            lambda a, p: a[p],
            "you moved the rows (queries) but not the columns: every key moved with its token too.",
        ),
        Mistake(
            lambda a, p: a[:, p],
            "you moved the columns (keys) but not the rows: every query moved with its token too.",
        ),
        Mistake(
            lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)],
            "you used the inverse permutation: new token r is old token perm[r], not the other way round.",
        ),
        Mistake(
            lambda a, p: a[p][:, p].T,
            "your matrix is transposed: rows are queries and columns are keys, and the weights are not symmetric.",
        ),
        Mistake(
            lambda a, p: a.clone(),
            "the weights do change: each token keeps its own query and key, so its row and column move with it.",
        ),
    ]
    return check_function(
        func,
        "your predicted weights",
        _permutation_cases(),
        mistakes=mistakes,
        nudge="Each row of the weights belongs to one token's query and each column to one token's key, and every "
        "token takes its own query and key along when it moves.",
        pointer=reread("Attention in one paragraph"),
    )


def _cosine_column(slot: int, angle: float, d: int) -> int:
    """The column of the (., d) sinusoidal table whose cosine entry at ``slot`` has the angle nearest ``angle``."""
    j = torch.arange(d)
    angles = slot / 10000 ** (2 * torch.div(j, 2, rounding_mode="floor").double() / d)  # (d,) at this slot
    odd = j % 2 == 1  # the cosine columns
    return int(j[odd][(angles[odd] - angle).abs().argmin()])


@never_raises
def sinusoidal_column(answer: object) -> Verdict:
    """Exercise 03.2: the column of the d = 400 table that holds cos(0.03) at slot 3 (angle 3 / 100)."""
    slot, angle, d = 3, 0.03, 400
    column = _cosine_column(slot, angle, d)
    table = position.sinusoidal_table(slot + 1, d)
    assert abs(table[slot, column].item() - math.cos(angle)) < 1e-6  # the package agrees
    pair = column // 2
    return int_answer(
        answer,
        column,
        "the column that holds cos(0.03) at slot 3 (d = 400)",
        nudge="Each pair of columns shares one frequency, and the frequencies fall from pair to pair; one column "
        "of each pair holds a sine, the other a cosine.",
        wrong={
            column
            - 1: "that column holds the sine of the same pair; the cosine is the odd column of a pair.",
            pair: "that is the pair index m; pair m takes two columns of the table, and you want one of them.",
            2 * (2 * pair)
            + 1: "there is no such column in a token of length 400: the exponent is 2m / d, with "
            "the factor 2 (m is the pair index).",
            2 * (2 * pair): "there is no such column in a token of length 400: the exponent is 2m / d, with "
            "the factor 2 (m is the pair index).",
            column + 1: "columns count from 0: the first column of the table is column 0.",
            slot: "3 is the slot i (the row); the question asks for the column j.",
        },
        pointer=reread("The sinusoidal table"),
    )


def _table(n: int, d: int, base: float = 10000.0, exponent: str = "pair", start: int = 0) -> torch.Tensor:
    """Sinusoidal-table variants for diagnosing: ``exponent`` "pair" (right), "j" or "2j"."""
    i = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d)  # (d,)
    power = {"pair": 2 * (j // 2), "j": j, "2j": 2 * j}[exponent].to(torch.float64)
    return i / base ** (power / d)  # (n, d) angles


def _sin_cos(angle: torch.Tensor, swapped: bool = False) -> torch.Tensor:
    even = torch.arange(angle.shape[-1]) % 2 == 0  # (d,)
    if swapped:
        even = ~even
    return torch.where(even, torch.sin(angle), torch.cos(angle))


def _roles_swapped(n: int, d: int) -> torch.Tensor:
    """The table with the roles of i and j exchanged in the formula, at the right shape (n, d)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d, dtype=torch.float64)[None, :]  # (1, d)
    angle = j / 10000 ** (2 * torch.div(i, 2, rounding_mode="floor") / d)  # (n, d)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


@never_raises
def sinusoidal_function(func: object) -> Verdict:
    """Exercise 03.3 (find the bug): ``func(n, d)``, the learner's fix of ``buggy_table``, must return the (n, d)
    sinusoidal table. The given bug (the exponent j / d) is recognised without being named, so that running the
    check on the unchanged function gives nothing away."""
    cases = [
        ((n, d), position.sinusoidal_table(n, d)) for n, d in ((15, 400), (176, 768), (4, 9), (1, 2), (7, 3))
    ]
    mistakes = [
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="j")).float(),
            "this is what the given buggy_table returns: the bug is still in it.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d), swapped=True),
            "sine and cosine are swapped: your even entries hold cosines and your odd entries sines.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="2j")),
            "the exponent still gives the two columns of a pair different frequencies (you doubled j).",
        ),
        Mistake(
            lambda n, d: position.sinusoidal_table(n, d).T,
            "your table is transposed: its rows are the entries j and its columns the slots i.",
        ),
        Mistake(
            _roles_swapped,
            "i and j have swapped roles: the slot i plays the entry's part in your formula, and j the slot's.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, start=1)),
            "your slots start at 1; the first token's slot is 0.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=1000.0)),
            "wrong base: your wavelengths grow with powers of 1000, not of the formula's base.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=100000.0)),
            "wrong base: your wavelengths grow with powers of 100000, not of the formula's base.",
        ),
    ]
    return check_function(
        func,
        "your fixed sinusoidal table",
        cases,
        mistakes=mistakes,
        nudge="In the table the two columns of a pair are a sine and a cosine of one and the same frequency, so "
        "that the similarity of two rows depends only on their distance.",
        pointer=reread("The sinusoidal table"),
    )


@never_raises
def control_axis_prediction(answer: object) -> Verdict:
    """Exercise 03.4 (predict): which the control without a position embedding (``vit_where_nopos``) gets right
    more often, the moon's patch row or its patch column."""
    return choice_answer(
        answer,
        "row",
        "which the control reads more often",
        ("row", "column"),
        nudge="A model without a position embedding sees only pixels: ask what a moon's patch and its "
        "surroundings look like in different places of the picture.",
        pointer=reread("What a trained table looks like"),
        wrong={"column": "not what the run shows; the cell after the next heading prints both accuracies."},
    )


@never_raises
def learned_embedding_size(answer: object) -> Verdict:
    """Exercise 03.5: trainable numbers in ViT-L/16's learned position embedding at 384 x 512 (D = 1024)."""
    height, width, patch, d = 384, 512, 16, 1024
    grid = tokens.count_tokens(height, width, patch, patch, 0)  # 24 rows x 32 columns of patches
    rows = grid.total + 1  # one row per patch and one for the prediction token
    square_h = tokens.count_tokens(height, height, patch, patch, 0).total  # as if the image were square
    square_w = tokens.count_tokens(width, width, patch, patch, 0).total
    vit_b_grid = tokens.count_tokens(224, 224, patch, patch, 0).total  # 196: the pre-training grid
    return int_answer(
        answer,
        rows * d,
        "trainable numbers in ViT-L/16's position embedding at 384 x 512",
        nudge="A learned table has one trainable vector for every token slot of one image.",
        wrong={
            grid.total * d: "the prediction token's slot has a row too.",
            grid.total + 1: "each slot holds a whole vector of D numbers, not one number.",
            grid.total: "each slot (every patch and the prediction token) holds a whole vector of D numbers.",
            24 * rows * d: "there is one position embedding, added once before the first block, not one per "
            "block.",
            (square_h + 1) * d: "the image is not square: you counted as if it were as wide as it is high.",
            (square_w + 1) * d: "the image is not square: you counted as if it were as high as it is wide.",
            (grid.rows + grid.cols + 1)
            * d: "you added the patches along the height to those along the width; the patches fill a grid.",
            (height * width // patch + 1) * d: "you divided the pixels by the patch's side; a patch covers "
            "16 squared pixels.",
            (vit_b_grid + 1) * d: "that is the pre-training grid of 224 x 224 images; count the patches of a "
            "384 x 512 image.",
            rows * 768: "768 is ViT-B's token length; ViT-L's tokens are longer.",
        },
        pointer=reread("Learned position embeddings"),
    )


# --- Exercise 03.6: resizing a learned position embedding to another grid ---


def _resize_right(pos: torch.Tensor, old: tuple[int, int], new: tuple[int, int]) -> torch.Tensor:
    return position.resize_position_embedding(pos, old, new)


def _bicubic(grid: torch.Tensor, size: tuple[int, int], **options: object) -> torch.Tensor:
    """(1, D, h, w) -> (1, D, h2, w2) with F.interpolate, bicubic and align_corners=False unless overridden."""
    kwargs = {"mode": "bicubic", "align_corners": False, **options}
    if kwargs["mode"] == "nearest":
        kwargs.pop("align_corners")
    return F.interpolate(grid, size=size, **kwargs)


def _resize_variant(
    pos: torch.Tensor,
    old: tuple[int, int],
    new: tuple[int, int],
    *,
    keep: str = "front",
    read: tuple[int, int] | None = None,
    size: tuple[int, int] | None = None,
    permute_in: bool = True,
    permute_out: bool = True,
    column_major: bool = False,
    **options: object,
) -> torch.Tensor:
    """A resize with one step done differently: ``keep`` what happens to the prediction token's row ("front",
    "drop", "back", "last"); ``read`` the (rows, cols) the grid rows are read as; ``size`` the size asked of
    F.interpolate; ``permute_in``/``permute_out`` whether D is moved to the channel axis (and back)."""
    d = pos.shape[-1]
    h, w = read or old
    h2, w2 = size or new
    if keep == "last":  # the grid taken as the first h * w rows, the prediction token's included
        cls_row, grid_rows = pos[:, -1:], pos[:, :-1]
    else:
        cls_row, grid_rows = pos[:, :1], pos[:, 1:]
    if column_major:  # the notebook's buggy_resize: the grid rows read column by column
        image = grid_rows.reshape(1, w, h, d).permute(0, 3, 2, 1)  # (1, D, h, w), rows and columns mixed up
    elif permute_in:
        image = grid_rows.reshape(1, h, w, d).permute(0, 3, 1, 2)  # (1, D, h, w)
    else:
        image = grid_rows.reshape(1, d, h, w)  # D and tokens mixed
    image = _bicubic(image, (h2, w2), **options)  # (1, D, h2, w2)
    if permute_out:
        rows = image.permute(0, 2, 3, 1).reshape(1, h2 * w2, d)
    else:
        rows = image.reshape(1, h2 * w2, d)  # D and tokens mixed on the way back
    if keep == "drop":
        return rows
    if keep == "back":
        return torch.cat([rows, cls_row], dim=1)
    return torch.cat([cls_row, rows], dim=1)


def _resize_1d(
    pos: torch.Tensor, old: tuple[int, int], new: tuple[int, int], whole: bool = False
) -> torch.Tensor:
    """1-D linear interpolation over the sequence of grid rows (``whole``: the prediction token's row too)."""
    n_new = new[0] * new[1]
    if whole:
        seq = pos.transpose(1, 2)  # (1, D, 1 + h * w)
        return F.interpolate(seq, size=n_new + 1, mode="linear", align_corners=False).transpose(1, 2)
    seq = pos[:, 1:].transpose(1, 2)  # (1, D, h * w)
    rows = F.interpolate(seq, size=n_new, mode="linear", align_corners=False).transpose(1, 2)
    return torch.cat([pos[:, :1], rows], dim=1)


def _resize_cases() -> list[tuple[tuple, torch.Tensor]]:
    """(pos_embed, old_grid, new_grid) -> the resized embedding; non-square grids first, so that a swap of rows
    and columns shows; every case enlarges (or keeps) the grid."""
    gen = torch.Generator().manual_seed(7)
    cases = []
    for old, new, d in (((3, 5), (6, 10), 6), ((2, 3), (5, 4), 4), ((2, 2), (3, 3), 3), ((3, 4), (3, 4), 5)):
        pos = torch.randn(1, 1 + old[0] * old[1], d, generator=gen, dtype=torch.float64)
        cases.append(((pos, old, new), _resize_right(pos, old, new)))
    return cases


@never_raises
def resize_pos_embed_function(func: object) -> Verdict:
    """Exercise 03.6 (find the bug): ``func(pos_embed, old_grid, new_grid)``, the learner's fix of
    ``buggy_resize``, carries a (1, 1 + h * w, D) embedding to a new grid."""

    def swapped(pair: tuple[int, int]) -> tuple[int, int]:
        return pair[1], pair[0]

    mistakes = [
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, column_major=True),
            "this is what the given buggy_resize returns: the bug is still in it.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, keep="drop"),
            "the prediction token's row is missing from your result.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, keep="back"),
            "the prediction token's row belongs in front (row 0), not after the grid rows.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, keep="last"),
            "the prediction token's row went into the grid, and the last grid row took its place.",
        ),
        Mistake(
            lambda p, o, n: _resize_1d(p, o, n),
            "that is a 1-D interpolation along the sequence of patches: it blends the end of one patch row with "
            "the start of the next.",
        ),
        Mistake(
            lambda p, o, n: _resize_1d(p, o, n, whole=True),
            "that is a 1-D interpolation along the whole sequence, the prediction token's row included.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, permute_in=False),
            "on the way in, the D entries of each row got mixed with the patches.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, permute_out=False),
            "on the way back, the D entries got mixed with the patches.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, read=swapped(o), size=swapped(n)),
            "rows and columns of the grid are swapped, both in the old grid and in the new size.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, read=swapped(o)),
            "the old grid was read with rows and columns swapped.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, size=swapped(n)),
            "the new size has rows and columns swapped.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, antialias=True),
            "you passed antialias=True (timm's default): with it, PyTorch's bicubic weights the neighbours "
            "differently, even when enlarging; this exercise asks for plain bicubic interpolation.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, align_corners=True),
            "align_corners=True lines up the corner patches' centres; ViT and timm use align_corners=False.",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, mode="bilinear"),
            "that is bilinear interpolation; the exercise asks for bicubic (mode='bicubic').",
        ),
        Mistake(
            lambda p, o, n: _resize_variant(p, o, n, mode="nearest"),
            "that copies the nearest old row instead of interpolating; use mode='bicubic'.",
        ),
    ]
    return check_function(
        func,
        "your resized position embedding",
        _resize_cases(),
        mistakes=mistakes,
        nudge="The table's grid rows are stored patch row by patch row, and a resize must treat them as an image "
        "whose pixels keep their places.",
        pointer=reread("Interpolating the table in 2-D"),
    )
