# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: all,-execution
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 · T2T's soft split and the token transformer
#
# **Time:** about 55 minutes
#
# Before this: [notebook 02](02_soft_split.ipynb) (the soft split) and [notebook 06](06_encoder_block.ipynb)
# (the encoder block).
#
# ViT cuts the picture into patches once (notebook 01). T2T-ViT (Yuan et al., 2021) replaces that cut with a
# *T2T module*. It soft-splits the image into overlapping windows, lets a small *token transformer* work on the
# tokens, lays them back onto an image, and splits again: three splits in all (the paper's Fig. 4).
#
# Why? Trained on ImageNet alone (the ViT paper's finding), ViT trails convolutional networks of its size. The T2T paper
# blames in part the patch cut: it splits every neighbourhood that crosses a patch border. Overlapping windows
# keep every small neighbourhood whole in some token. That is an *inductive bias*: an assumption about images
# built into the model, not learned from data.
#
# This notebook takes the module's pieces one at a time; [notebook 09](09_tokens_to_token.ipynb) puts them
# together. The course builds the plain token transformer of the official `t2t_vit_t` models, not the paper's
# faster approximation of attention, the Performer.
#
# **By the end you can**
# 1. lay tokens onto their grid T2T's way, one pixel per token, and spot a reshape that scrambles them;
# 2. follow an image's side through T2T's three soft splits, and say which sides end as the same grid;
# 3. predict which neighbourhoods overlapping windows keep whole, against plain patches at the same token count;
# 4. explain why a token transformer's skip adds $v$, and find the bug in one head of its attention.
#
# The setup cell repeats notebook 02's soft split of the picture with $k = 20$: 60 tokens of length 400 on a
# 6 × 10 grid.

# %%
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import PercentFormatter

import vitcourse
from vitcourse import check, diagrams, load_mountains, plots, tokens
from vitcourse.attention import Attention
from vitcourse.blocks import TokenTransformer
from vitcourse.models import T2T_STAGES

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
height, width = H, W
k = 20  # notebook 02's kernel, with the article series' rule for the stride and the padding
s, p = tokens.t2t_stride_padding(k)  # (10, 5)
grid = tokens.count_tokens(H, W, k, s, p)  # 6 x 10 windows
toks = tokens.soft_split(image, k, s, p)  # (1, 60, 400): token i is window i
padded = F.pad(image, (p, p, p, p))  # (1, 1, H + 2p, W + 2p)
starts_down = list(range(-p, H + p - k + 1, s))  # top rows of the windows
starts_across = list(range(-p, W + p - k + 1, s))  # left columns of the windows
print(f"picture: H={H}, W={W}, C={C}; (k, s, p) = ({k}, {s}, {p})")
print(f"tokens {tuple(toks.shape)} on a {grid.rows} x {grid.cols} grid")

# %% [markdown]
# ## 1. T2T's way: one pixel per token (13 min)
#
# Notebook 02 put each window back onto its own pixels. Between its splits, T2T instead lays token $i$ of an
# $h \times w$ grid (6 × 10 here) on grid row $\lfloor i / w \rfloor$, column $i \bmod w$, as one *pixel* whose
# channels are the token's $L$ entries ($L = 400$ here). Here we lay down the raw tokens.
#
# A colleague writes this step as one reshape. Its output has the right shape:


# %%
def plain_rebuild(toks: torch.Tensor, h: int, w: int) -> torch.Tensor:
    """Tokens (B, h * w, L) laid onto an image (B, L, h, w) of h rows and w columns of tokens: token i at row
    i // w, column i % w."""
    b, n, length = toks.shape
    return toks.reshape(b, length, h, w)


print(f"{tuple(toks.shape)} -> {tuple(plain_rebuild(toks, grid.rows, grid.cols).shape)}")

# %% [markdown]
# ### Exercise 1 (predict)
#
# `plain_rebuild` gives the right shape but the wrong image. Lay the picture's tokens, `(1, 60, 400)`, onto the
# 6 × 10 grid with it. Which token, and which entry of it, land in channel 0 at grid row 1, column 0? Tokens,
# entries, rows and columns all count from 0. Trace it by hand, with notebook 01's rule for how a reshape reads
# and fills values, before you run anything. Answer `(token, entry)` as `answer_channel0`.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "plain_rebuild_channel0-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_channel0 = None  # replace None with (token, entry)
### BEGIN SOLUTION
# A reshape reads the (N, L) token matrix row by row, in the order its values are stored, and fills the output
# in that order. Channel 0 is the first h * w = 60 values: the first 60 entries of token 0, filled into the grid
# row by row. Grid row 1, column 0 is value 1 * w + 0 = 10 of channel 0: entry 10 of token 0. The right layout
# puts token 10's entry 0 there. The fix moves the token axis behind the channel axis first:
# toks.transpose(1, 2).reshape(b, c, h, w).
answer_channel0 = (0, 1 * 10 + 0)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "plain_rebuild_channel0-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.plain_rebuild_channel0(answer_channel0)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "plain_rebuild_channel0-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.plain_rebuild_channel0, answer_channel0)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# A reshape reads the $(N, L)$ token matrix row by row, so channel 0 gets its first 60 numbers, all from token 0.
# The fix moves the token axis behind the channel axis first; [the fixed rebuild](#Evidence:-the-fixed-rebuild)
# checks it. (The official T2T code takes the grid's side as the square root of the token count: notebook 09.)

# %% [markdown]
# ### The tokens on their grid

# %% [markdown]
# Each channel of the rebuilt image is the picture at a tenth of its size, shifted by a pixel's place in the
# window. Why: channel $j = a k + b$ holds pixel $(a, b)$ of every window (`nn.Unfold`'s order, one colour
# channel), and token $(r, c)$'s window starts at pixel $(s r - p, s c - p)$. So each channel samples the padded
# picture every $s = 10$ pixels.
#
# The figure shows the picture and three channels: pixels (0, 0), (10, 10) and (19, 19) of each window. Hatched
# cells sample the padding, which holds zeros.

# %% mystnb={"image": {"alt": "The picture, then three channels of the tokens laid onto the 6 by 10 token grid, for pixels (0, 0), (10, 10) and (19, 19) of each window: three small shifted copies of the picture, with the cells that sample the padding hatched"}}
rebuilt = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (1, C*k*k, rows, cols)
print(f"rebuild_image: {tuple(toks.shape)} -> {tuple(rebuilt.shape)}")
channels = [0, (k // 2) * k + k // 2, k * k - 1]  # pixels (0, 0), (10, 10), (19, 19) of each window
fig, axes = plt.subplots(1, 4, figsize=(14, 2.8))
plots.show_picture(image[0, 0], ax=axes[0], title="the picture (60 x 100 pixels)", colorbar=False)
axes[0].set_xticks([0, 25, 50, 75, 100])  # a few ticks, so that their labels do not run together
for ax, ch in zip(axes[1:], channels, strict=True):
    i, j = divmod(ch, k)  # the channel's place in the window
    plots.show_picture(
        rebuilt[0, ch], ax=ax, title=f"channel {ch}:\npixel ({i}, {j}) of each window", colorbar=False
    )
    assert torch.equal(rebuilt[0, ch], padded[0, 0, i::s, j::s][: grid.rows, : grid.cols])
    pad_rows = [r for r, first_row in enumerate(starts_down) if not 0 <= first_row + i < H]
    pad_cols = [c for c, first_col in enumerate(starts_across) if not 0 <= first_col + j < W]
    assert (rebuilt[0, ch, pad_rows] == 0).all() and (rebuilt[0, ch][:, pad_cols] == 0).all()
    for r in range(grid.rows):  # hatch the cells that sample the padding
        for c in range(grid.cols):
            if r in pad_rows or c in pad_cols:
                ax.add_patch(Rectangle((c, r), 1, 1, fill=False, hatch="///", edgecolor="orange", lw=0))
    ax.set_xticks([c + 0.5 for c in range(grid.cols)], range(grid.cols))  # at the cell centres
    ax.set_yticks([r + 0.5 for r in range(grid.rows)], range(grid.rows))
    ax.set_xlabel("token column")
    ax.set_ylabel("token row")
fig.colorbar(axes[1].images[0], ax=list(axes), fraction=0.02, pad=0.02, label="brightness")  # one for all
hatched = Patch(facecolor="none", edgecolor="orange", hatch="///", label="samples the padding (0)")
fig.legend(handles=[hatched], loc="lower center", bbox_to_anchor=(0.5, -0.12))
plt.show()
centre = channels[1]  # pixel (10, 10) of each window
one_cell = torch.equal(rebuilt[0, centre, :-1, :-1], rebuilt[0, 0, 1:, 1:])
print(f"channel {centre} at token (r, c) equals channel 0 at token (r + 1, c + 1): {one_cell}")
assert one_cell

# %% [markdown]
# What to look for: the same shapes, shifted. Since $k = 2s$, pixel (10, 10) of a window is pixel (0, 0) of the
# window one token down and one right, so channel 210 is channel 0 moved by one cell (the cell checks it). A
# sample every 10 pixels can miss a small shape: the moon shows in channels 0 and 210, not in 399. Only cells at
# the grid's edges sample the padding, and channel 210, near each window's centre, never does.

# %% [markdown]
# ## 2. Three splits in a row (12 min)
#
# T2T-ViT's module soft-splits the image with $(k, s, p) = (7, 4, 2)$, lays the tokens onto their grid, splits
# with $(3, 2, 1)$, lays them down again, and splits once more with $(3, 2, 1)$. Each split, with what follows
# it, is a *stage*, numbered 1 to 3; in code, `T2T_STAGES[0]` holds stage 1. (Notebook 09's token transformers
# change the tokens' length, not the grid.)
#
# Each split counts its tokens along a side of $n$ as in [notebook 02](02_soft_split.ipynb) (§1, Counting the
# tokens):
#
# $$n_{\text{out}} = \left\lfloor \frac{n + 2p - k}{s} \right\rfloor + 1 .$$
#
# Because of the floor, $s$ neighbouring sides $n$ give the same $n_{\text{out}}$.
#
# The cell runs the three splits on the picture; with no transformer between them, each multiplies a token's
# length by $k^2$. Then it follows the paper's 224 × 224 input. Each later split puts 3 × 3 neighbouring tokens
# into one window, so tokens sit further apart: the last lines print that spacing, in input pixels.

# %%
x = image  # (1, 1, H, W)
lengths = []  # the token length after each split, with no token transformer between the splits
for kk, ss, pp in T2T_STAGES:
    split_tokens = tokens.soft_split(x, kk, ss, pp)  # (1, rows * cols, C * kk * kk)
    lengths.append(split_tokens.shape[-1])
    step = tokens.count_tokens(x.shape[-2], x.shape[-1], kk, ss, pp)
    print(
        f"{tuple(x.shape[-2:])} -> soft split ({kk}, {ss}, {pp}) -> {step.rows} x {step.cols} = {step.total} "
        f"tokens of length {split_tokens.shape[-1]}"
    )
    x = tokens.rebuild_image(split_tokens, step.rows, step.cols)  # (1, C * kk * kk, rows, cols)
sides = [224]  # the paper's input side
for kk, ss, pp in T2T_STAGES:
    sides.append(tokens.count_tokens(sides[-1], sides[-1], kk, ss, pp).rows)
print("the paper's input side, split after split: " + " -> ".join(str(n) for n in sides))
growth = [after // before for before, after in zip(lengths, lengths[1:], strict=False)]
print(f"after the first split, token lengths (no transformers) grow {growth[0]}-fold, then {growth[1]}-fold")
stride = 1  # in input pixels: the step between neighbouring tokens
for stage, (_, ss, _) in enumerate(T2T_STAGES, start=1):
    stride = stride * ss  # each split steps over ss tokens of the stage before
    print(f"stage {stage}: tokens {stride} pixels apart")
print(
    f"ViT, P = 16, on 224: a {224 // 16} x {224 // 16} grid, tokens 16 pixels apart, each on 16 x 16 pixels"
)
assert stride == 16 and 224 // 16 == sides[-1]

# %% [markdown]
# ### Exercise 2 (predict, on paper)
#
# The paper's 224 × 224 input ends as a 14 × 14 grid (its Section 3.3), but it is not the only square side that
# does. Work backwards from 14, on paper, one split at a time. Give `answer_grid_sides`, four whole numbers: the
# smallest and largest grid side after stage 1 that stages 2 and 3 turn into 14, then the smallest and largest
# after stage 2 that stage 3 turns into 14. Give `answer_sides = (smallest, largest)`: the image sides that all
# three splits turn into 14 × 14.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_input_sides-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_sides = None  # replace None with (smallest, largest)
answer_grid_sides = None  # replace None with four whole numbers: stage 1's range, then stage 2's
### BEGIN SOLUTION
# A split turns a side n into floor((n + 2p - k) / s) + 1 tokens, so the sides that give m tokens run from
# (m - 1) * s + k - 2p to that plus s - 1: the floor forgives up to s - 1 extra pixels.
# Backwards from the last split: grids of side 27 to 28 give 14; grids of side 53 to 56 give 27 to 28;
# image sides 211 to 226 give 53 to 56.
low, high = 14, 14
ranges = []  # the side ranges before stage 3, before stage 2 and before stage 1
for kk, ss, pp in reversed(((7, 4, 2), (3, 2, 1), (3, 2, 1))):
    low, high = (low - 1) * ss + kk - 2 * pp, (high - 1) * ss + kk - 2 * pp + ss - 1
    ranges.append((low, high))
answer_sides = (low, high)
answer_grid_sides = (*ranges[1], *ranges[0])  # after stage 1: 53 to 56; after stage 2: 27 to 28
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_input_sides-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_grid_sides(answer_grid_sides)
check.t2t_input_sides(answer_sides)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "t2t_grid_sides-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_grid_sides, answer_grid_sides)
check.require(check.t2t_input_sides, answer_sides)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# Each floor accepts $s$ neighbouring sides, and working backwards widens the range at every split.
# [Where the windows reach the edges](#Evidence:-where-the-windows-reach-the-edges) runs the three splits on
# every side near 224, lists those that end as 14 × 14, and prints their grids.

# %% [markdown]
# ## 3. Which neighbourhoods a soft split keeps whole (13 min)
#
# Notebook 02 showed that a soft split keeps every $(k - s + 1) \times (k - s + 1)$ block of pixels whole in some
# window, wherever it lies, when the windows reach the image's edges, as here
# ([the edge check](#Evidence:-where-the-windows-reach-the-edges)).
#
# Why whole matters, in this course's reading of the paper's argument: a token's pixels enter the token
# transformer together, so its qkv layer (section 4) sees a whole block at once. Pixels split over several
# tokens meet only through attention, or at the next split.
#
# New here is a comparison at the same number of tokens. ViT's patches of $P = 4$ ($s = k = 4$, $p = 0$) cut the
# picture into the same 15 × 25 grid as T2T's first split. The cell asks, for every position of an $m \times m$
# block, whether some window holds it whole, and prints where stage 1's windows lie.


# %%
def whole_blocks(h: int, w: int, kernel: int, stride: int, padding: int, m: int) -> torch.Tensor:
    """(h - m + 1, w - m + 1) booleans: is the m x m block with this top-left pixel inside some window?"""
    # top-left (row, col) of every window, in the unpadded image's coordinates: (N, 2)
    corners = torch.from_numpy(tokens.window_corners(h, w, kernel, stride, padding))
    a, b = torch.arange(h - m + 1), torch.arange(w - m + 1)  # block top-left rows, columns
    top, left = corners[:, :1], corners[:, 1:]  # (N, 1) each
    rows_in = (top <= a) & (a + m <= top + kernel)  # (N, h - m + 1): window n holds the block's rows
    cols_in = (left <= b) & (b + m <= left + kernel)  # (N, w - m + 1)
    return (rows_in[:, :, None] & cols_in[:, None, :]).any(dim=0)  # (h - m + 1, w - m + 1)


splits = {  # name: (h, w, k, s, p) of the image it splits: the two splits that give the same token grid
    "T2T stage 1": (height, width, *T2T_STAGES[0]),
    "ViT, P = 4": (height, width, 4, 4, 0),
}
block_sides = range(1, 8)  # m
shares, grids = {}, {}
for name, (hh, ww, kk, ss, pp) in splits.items():  # kk, ss, pp: the setup's k, s, p stay as they are
    grids[name] = tokens.count_tokens(hh, ww, kk, ss, pp)
    shares[name] = [whole_blocks(hh, ww, kk, ss, pp, m).float().mean().item() for m in block_sides]
    largest = max(m for m in block_sides if shares[name][m - 1] == 1.0)
    print(
        f"{name}: (k, s, p) = ({kk}, {ss}, {pp}) -> {grids[name].rows} x {grids[name].cols} = "
        f"{grids[name].total} tokens of {kk * kk} pixels each; largest block always whole: {largest} x {largest}"
    )
    assert largest == kk - ss + 1
t2t1, vit4 = grids["T2T stage 1"], grids["ViT, P = 4"]
assert vit4 == t2t1  # the same token grid
k1 = T2T_STAGES[0][0]  # stage 1's kernel
tops = sorted({int(t) for t in tokens.window_corners(height, width, *T2T_STAGES[0])[:, 0]})  # window top rows
print(
    "T2T stage 1's windows cover rows (both ends included) "
    + ", ".join(f"{t}..{t + k1 - 1}" for t in tops[:4])
    + ", ...; the columns likewise"
)

# %% [markdown]
# ### Exercise 3 (predict)
#
# Stage 1 keeps every 4 × 4 block whole. Predict what it does to 5 × 5 blocks, from the window rows printed above.
#
# (a) For which top rows from 0 to 11 does no window hold all 5 rows of a block? Give a list, `answer_cut_rows`.
#
# (b) Columns follow the same pattern. What share of the picture's 5 × 5 block positions does stage 1 keep whole
# in some token? Give a number between 0 and 1, `answer_share5`. (The pattern runs evenly to the picture's edges.)

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_cut_rows-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_cut_rows = None  # replace None with a list of top rows
answer_share5 = None  # replace None with a number between 0 and 1
### BEGIN SOLUTION
# Windows hold rows -2..4, 2..8, 6..12, ...: they start every 4 rows and hold 7. A block of rows a..a + 4 fits
# in the window starting at t when t <= a and a + 4 <= t + 6, so when a is 0, 1 or 2 rows below a window's top.
# Top rows 1, 5, 9 are 3 rows below one, too far for the block's last row: 1 top row in 4 is cut.
answer_cut_rows = [a for a in range(12) if a % 4 == 1]
# A block is whole when both its rows and its columns fit, and the two patterns are independent: (3/4) ** 2.
answer_share5 = (3 / 4) ** 2
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_cut_rows-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_cut_rows(answer_cut_rows)
check.t2t_whole_share(answer_share5)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "t2t_cut_rows-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_cut_rows, answer_cut_rows)
check.require(check.t2t_whole_share, answer_share5)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# A 5-row block fits a 7-row window only if it starts 0, 1 or 2 rows below the window's top. Windows start every
# 4 rows, so 1 top row in 4 is cut. Columns do the same, and a block must fit both ways: $(3/4)^2$ of the
# positions. The figure's cell counts it on the picture.

# %% [markdown]
# ### Blocks kept whole, side by side

# %% [markdown]
# The left panel compares T2T's stage 1 with ViT's $P = 4$ patches for each block side $m$; it starts at $m = 2$,
# since a single pixel is always whole. The right panel maps which 5 × 5 blocks stage 1 keeps whole.

# %% mystnb={"image": {"alt": "Two panels. Left: the share of m by m blocks kept whole in some token, for m from 2 to 7 pixels, for T2T's first soft split and for ViT patches of 4 pixels on the same 15 by 25 token grid; T2T keeps every block up to 4 by 4 whole and a falling share of larger ones, ViT a lower share from 2 by 2 on and no block of 5 or more. Right: a map over block top rows and left columns of which 5 by 5 blocks are whole in T2T's first split, a pattern that repeats every 4 pixels with one row and one column in four cut."}}
# [4] is m = 5 and [:4] is m = 1..4: the list counts from 0, m from 1
assert shares["ViT, P = 4"][4] == 0 and all(v == 1 for v in shares["T2T stage 1"][:4])
share5 = shares["T2T stage 1"][4]  # m = 5
print(f"T2T stage 1, 5 x 5 blocks: {share5:.4f} of positions whole; (3/4)^2 = {(3 / 4) ** 2:.4f}")
assert share5 == (3 / 4) ** 2
fig, axes = plt.subplots(1, 2, figsize=(13, 4.2), width_ratios=[1.0, 1.25], layout="constrained")
for name, marker, above in zip(("T2T stage 1", "ViT, P = 4"), ("o", "s"), (True, False), strict=True):
    _, _, kk, ss, pp = splits[name]
    values = shares[name][1:]  # m = 2..7
    axes[0].plot(block_sides[1:], values, marker=marker, label=f"{name}: ({kk}, {ss}, {pp})")
    for m, v in zip(block_sides[1:], values, strict=True):  # T2T's shares above its line, ViT's below
        axes[0].annotate(
            f"{v:.0%}",
            (m, v),
            textcoords="offset points",
            xytext=(0, 7 if above else -9),
            ha="center",
            va="bottom" if above else "top",
            fontsize=8,
        )
axes[0].set_xticks(block_sides[1:])  # block sides are whole numbers of pixels
axes[0].set_ylim(-0.12, 1.12)
axes[0].yaxis.set_major_formatter(PercentFormatter(1.0))
axes[0].set_xlabel("block side m (pixels)")
axes[0].set_ylabel("m x m blocks whole in some token\n(% of positions)")
axes[0].set_title(f"Same token grid ({t2t1.rows} x {t2t1.cols}): blocks kept whole")
axes[0].legend(
    title="split: (k, s, p)", loc="upper right", bbox_to_anchor=(1.0, 0.88), fontsize=9
)  # no point there
hh, ww, kk, ss, pp = splits["T2T stage 1"]
colours = ListedColormap(["#f4d6a0", "#2b5c8a"])  # cut, whole
axes[1].imshow(whole_blocks(hh, ww, kk, ss, pp, 5)[:24, :40].int(), cmap=colours, vmin=0, vmax=1)
axes[1].set_xticks(range(1, 40, 4))  # the cut columns: 1, 5, 9, ...
axes[1].set_yticks(range(1, 24, 4))  # the cut rows
axes[1].set_xlabel("block's left column (pixel; ticks at the cut columns)")
axes[1].set_ylabel("block's top row (pixel;\nticks at the cut rows)")
axes[1].set_title("5 x 5 blocks, T2T stage 1: top-left 24 x 40 positions")
axes[1].legend(
    handles=[
        Patch(color=colours(1), label="whole in some token"),
        Patch(color=colours(0), label="cut in every token"),
    ],
    loc="upper left",
    bbox_to_anchor=(1.01, 1.0),
)
plt.show()

# %% [markdown]
# What to look for: T2T keeps every block up to 4 × 4 whole. ViT's patches keep a block whole only where it
# crosses no patch border, and never one larger than the patch. Overlap buys whole neighbourhoods at a given
# number of tokens, at the price of longer tokens: 49 entries against 16. Larger patches keep more blocks whole
# but give far fewer tokens ([more splits](#Evidence:-more-splits-and-the-block-counts)).

# %% [markdown]
# ## 4. The token transformer (17 min)
#
# After stage 1 a token is a 7 × 7 window of one channel, of length 49. A *token transformer* is an encoder block
# (notebook 06) whose attention also changes the token length, to 64. The code's names:
#
# - dim: the input token length, $C k^2$, here 49;
# - chan: the output token length, T2T's `token_dim`, 64 as in the paper;
# - `w_qkv`: $W_{qkv}$ as `nn.Linear` stores it, transposed, of shape (3·chan, dim), here (192, 49).
#
# For tokens $X$ of shape $(N, \text{dim})$ and one head:
#
# $$[Q, K, V] = \mathrm{LN}(X)\, W_{qkv}, \qquad W_{qkv} \in \mathbb{R}^{\text{dim} \times 3\,\text{chan}}
#   \ (\text{no bias}),$$
#
# $$Y = V + \mathrm{softmax}\!\left(Q K^\top \cdot \text{scale}\right) V\, W_{\text{proj}} + b_{\text{proj}},
#   \qquad Z = Y + \mathrm{MLP}(\mathrm{LN}(Y)) .$$
#
# LN and MLP are notebook 06's (the MLP's hidden layer is 64 wide, an MLP ratio of 1), the softmax and the scale
# notebook 04's. Two things differ from notebook 06's block: the first skip and the scale.

# %% [markdown]
# ### The skip
#
# An encoder block adds its input back: $X + \mathrm{Attn}(\mathrm{LN}(X))$. Here that fails: $X$ has length 49,
# the output length 64, and tensors of different lengths cannot be added. A new learned layer from 49 to 64
# would do, but T2T reuses one it already has: $V$, a linear function of the normalised input, of length 64. So
# the first residual carries $V$, not $X$. (The official code has one head and adds `v.squeeze(1)`; with several
# heads, this package merges $V$'s heads side by side first.)

# %% [markdown]
# ### The scale
#
# Notebook 04 scaled $QK^\top$ by one over the square root of q's length: $1/8$ here, a bare `TokenTransformer`'s
# default. The official T2T code takes the input length instead, $(\text{dim} / \text{heads})^{-1/2}$, as does
# `TokensToToken` (notebook 09). At stage 2, dim = 9 · 64 = 576 (stage 3 has no token transformer, only the
# projection to $D$): the scores shrink and the softmax flattens. The cell prints the scales, and the scores'
# variance for unit-variance q and k (notebook 04's rule keeps it at 1).

# %%
default_scale = TokenTransformer(49, 64, num_heads=1).attn.scale  # without qk_scale: notebook 04's rule
first_scale = TokenTransformer(49, 64, num_heads=1, qk_scale=49**-0.5).attn.scale
later_dim = 3 * 3 * 64  # stage 2: 3 x 3 windows of 64-channel tokens
later_scale = TokenTransformer(later_dim, 64, num_heads=1, qk_scale=later_dim**-0.5).attn.scale
print(f"a bare TokenTransformer's default scale: {default_scale:.4f} = 1/{round(default_scale**-1)}")
print(f"stage 1, dim = 49: scale {first_scale:.4f} = 1/{round(first_scale**-1)}")
print(
    f"stage 2, dim = {later_dim}: scale {later_scale:.4f} = 1/{round(later_scale**-1)}, "
    f"{default_scale / later_scale:.0f} times smaller than the default 1/8"
)
score_variance = 64 * later_scale**2  # q . k sums 64 products of variance 1, then is scaled
print(f"stage 2: score variance 64 x scale^2 = {score_variance:.4f} = 1/{round(1 / score_variance)}")
assert abs(default_scale / later_scale - 3) < 1e-9 and abs(score_variance - 1 / 9) < 1e-9

# %% [markdown]
# ### Exercise 4 (find the bug, then explain it)
#
# A colleague wrote one head of a token transformer's attention, skip included. It takes normalised tokens `x`
# (B, N, dim), `w_qkv` (3·chan, dim) with the rows for $Q$, then $K$, then $V$ and no bias, `w_proj` (chan, chan)
# and `b_proj` (chan,). It returns the right shape, yet disagrees with the package's attention holding the same
# weights: the cell below shows it.
#
# (a) Find the bug, and write a corrected `my_token_attention` with matrix products and `torch.softmax`, not with
# the package's `Attention`. The check also names other usual slips.
#
# (b) Explain what the bug does. The colleague's output equals an attention *without any skip* whose softmax
# weights are replaced by another $N \times N$ matrix. What does each row of that matrix sum to? Give
# `answer_row_sum`.


# %%
def buggy_token_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    chan = w_proj.shape[0]
    q = x @ w_qkv[:chan].T  # (B, N, chan)
    k = x @ w_qkv[chan : 2 * chan].T  # (B, N, chan)
    v = x @ w_qkv[2 * chan :].T  # (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, N, N)
    return (v + weights @ v) @ w_proj.T + b_proj  # (B, N, chan)


gen = torch.Generator().manual_seed(2)
x_try = torch.randn(2, 10, 49, generator=gen)  # (B, N, dim)
# each weight divided by the square root of its layer's input length, 49 or 64, so that values stay near 1
w_try = (torch.randn(192, 49, generator=gen) / 7, torch.randn(64, 64, generator=gen) / 8, torch.zeros(64))
# fused=False: the attention computed step by step, not with PyTorch's fused kernel
reference = Attention(49, 64, num_heads=1, qkv_bias=False, qk_scale=49**-0.5, v_skip=True, fused=False)
with torch.no_grad():
    reference.qkv.weight.copy_(w_try[0])
    reference.proj.weight.copy_(w_try[1])
    reference.proj.bias.copy_(w_try[2])
    buggy_out = buggy_token_attention(x_try, *w_try, 49**-0.5)
    print(
        f"shape {tuple(buggy_out.shape)}; equals the package's attention: {torch.allclose(buggy_out, reference(x_try), atol=1e-5)}"
    )


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "v_skip_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_token_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    ### BEGIN SOLUTION
    # The bug: the colleague adds v before the projection, so v goes through proj too. The skip adds v to the
    # projected output, after proj.
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)  # each (B, N, chan): the rows of w_qkv in three blocks
    attn = (q @ k.transpose(-2, -1) * scale).softmax(dim=-1)  # (B, N, N): each query's row sums to 1
    out = (attn @ v) @ w_proj.T + b_proj  # (B, N, chan)
    return v + out  # the skip through v: x has length dim, v and out have length chan
    ### END SOLUTION


answer_row_sum = None  # replace None with a number
### BEGIN SOLUTION
# v + weights @ v = (I + weights) @ v: the identity plus the softmax, whose rows sum to 1 + 1. Then proj acts on
# the whole mix, so nothing bypasses proj: there is no skip left.
answer_row_sum = 2
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "v_skip_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.v_skip_function(my_token_attention)
check.v_skip_row_sum(answer_row_sum)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "v_skip_function-test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.v_skip_function, my_token_attention)
check.require(check.v_skip_row_sum, answer_row_sum)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 4

# %% [markdown]
# The colleague adds $v$ before the projection: $(A v + v) W_{\text{proj}} = ((A + I) v) W_{\text{proj}}$, with
# $A$ the softmax weights and $I$ the identity. That is attention with weights $A + I$ and no skip: nothing
# bypasses proj. [The token transformer step by step](#Evidence:-the-token-transformer-step-by-step) checks
# each step of the right block against the package and draws it.

# %% [markdown]
# ## Summary
#
# - Between its splits, T2T lays each token on its grid cell as one pixel. A plain reshape scrambles the tokens:
#   the token axis must move behind the channels first.
# - Each split rounds down, so a range of sides ends as the same grid; 224 × 224 ends as 14 × 14.
# - A soft split keeps every $(k - s + 1) \times (k - s + 1)$ block whole in some token, larger blocks at some
#   positions. Patches on the same token grid keep far fewer whole.
# - A token transformer's attention changes the token length, 49 to 64 at stage 1, so its first residual adds
#   $v$, after proj. T2T's scale comes from the input length: $1/7$ at stage 1, not notebook 04's $1/8$.
#
# **Next:** [09 Tokens-to-Token](09_tokens_to_token.ipynb) puts these pieces together: the T2T module stage by
# stage, on the picture, and T2T-ViT end to end.


# %% [markdown]
# ## Evidence: the fixed rebuild
#
# Section 1's fix moves the token axis behind the channels before the reshape. The first cell labels every entry
# of the picture's tokens by its (token, entry) and checks the fix against `vitcourse.tokens.rebuild_image`; the
# second does the same on random tokens laid onto a grid that is not square, 3 × 7. The first cell answers
# Exercise 1: do it first.

# %%
plain = plain_rebuild(toks, grid.rows, grid.cols)  # (1, 400, 6, 10)
print(
    f"plain_rebuild's channel 0 equals entries 0 to 59 of token 0: {torch.equal(plain[0, 0].flatten(), toks[0, 0, :60])}"
)
labels = torch.arange(toks.numel()).reshape(toks.shape)  # each entry's value: token * 400 + entry
at_1_0 = divmod(int(plain_rebuild(labels, grid.rows, grid.cols)[0, 0, 1, 0]), toks.shape[2])
print(f"channel 0 at grid row 1, column 0 holds (token, entry) = {at_1_0}; token {grid.cols} belongs there")


def fixed_rebuild(toks: torch.Tensor, h: int, w: int) -> torch.Tensor:
    """Tokens (B, h * w, L) laid onto an image (B, L, h, w): the token axis moved behind the channels first."""
    b, n, length = toks.shape
    return toks.transpose(1, 2).reshape(b, length, h, w)  # (B, N, L) -> (B, L, N) -> (B, L, h, w)


assert torch.equal(
    fixed_rebuild(toks, grid.rows, grid.cols), tokens.rebuild_image(toks, grid.rows, grid.cols)
)
assert divmod(int(fixed_rebuild(labels, grid.rows, grid.cols)[0, 0, 1, 0]), toks.shape[2]) == (grid.cols, 0)
print("fixed_rebuild equals vitcourse.tokens.rebuild_image on the picture's 6 x 10 grid")

# %%
odd = torch.randn(2, 3 * 7, 5)  # a 3 x 7 grid of 5-channel tokens
assert torch.equal(fixed_rebuild(odd, 3, 7), tokens.rebuild_image(odd, 3, 7))
print("fixed_rebuild equals vitcourse.tokens.rebuild_image on a 3 x 7 grid of 5-channel tokens")


# %% [markdown]
# ## Evidence: where the windows reach the edges
#
# Section 3's rule needs windows at both edges of every side. The first window starts at $-p \le 0$; the last one
# must cover the last pixel, $n - 1$ on a side of $n$. When it does not, the last pixels lie in no window at all.
# On a side of 10 with $(k, s, p) = (7, 4, 2)$, the two windows cover rows $-2 \dots 4$ and $2 \dots 8$ (both ends
# included), and row 9 is in neither. The first cell prints the last row the last window covers, for each stage,
# on the picture's sides, on 224, and on that side of 10; the second tries every pixel of a 10 × 10 image.


# %%
def last_window_end(side: int, kernel: int, stride: int, padding: int) -> int:
    """The last pixel the last window covers along a side, that pixel included (windows start at -padding)."""
    n_windows = (side + 2 * padding - kernel) // stride + 1
    return -padding + (n_windows - 1) * stride + kernel - 1


for side, stages in ((60, T2T_STAGES), (100, T2T_STAGES), (224, T2T_STAGES), (10, T2T_STAGES[:1])):
    start, reach = side, []
    for stage, (kk, ss, pp) in enumerate(
        stages, start=1
    ):  # each stage splits the side the one before produced
        end = last_window_end(side, kk, ss, pp)
        reach.append(end >= side - 1)
        print(
            f"image side {start:3d}, stage {stage} on a side of {side:3d}, (k, s, p) = {(kk, ss, pp)}: last window "
            f"covers up to {end} (the last is {side - 1}), reaches the edge: {end >= side - 1}"
        )
        side = (side + 2 * pp - kk) // ss + 1
    assert all(reach) == (start != 10)  # only the 10-pixel side is left with pixels in no window

# %%
edge = whole_blocks(10, 10, 7, 4, 2, 1)  # single pixels of a 10 x 10 image, split with (7, 4, 2)
edge_tops = sorted({int(t) for t in tokens.window_corners(10, 10, 7, 4, 2)[:, 0]})
print("side of 10, (7, 4, 2): the windows cover rows " + ", ".join(f"{t}..{t + 6}" for t in edge_tops))
print(
    f"10 x 10 image, (7, 4, 2): row 9 in some window: {edge[9].any().item()}, column 9: {edge[:, 9].any().item()}"
)
assert not edge[9].any() and not edge[:, 9].any()

# %% [markdown]
# Along a side of $n$ pixels the last window covers up to pixel $n + p - r - 1$ (that pixel included), with $r$
# the remainder of $(n + 2p - k) / s$. So when $r > p$ the last $r - p$ rows (and columns) fall in no window.
#
# The next cell answers Exercise 2: do it first. It lists every square side that T2T's three
# splits turn into the official 14 × 14 grid, with its three grids and the pixel rows that no stage-1 window
# covers. On these sides stages 2 and 3 always reach their grid's edges; the cell checks it. It ends with the
# heights and widths that give the picture's final 4 × 7 grid.

# %%
sides = [n for n in range(150, 300) if tokens.stage_grids(n, n)[-1].rows == 14]
print(f"square sides giving a 14 x 14 grid: {sides[0]} to {sides[-1]} ({len(sides)} sides, 224 among them)")
print(f"{'side':>4s}  grid side after stages 1, 2, 3   last pixel rows in no stage-1 window")
dropped_at = []
for n in sides:
    grid_sides = [g.rows for g in tokens.stage_grids(n, n)]
    kk, ss, pp = T2T_STAGES[0]
    dropped = max(0, n - 1 - last_window_end(n, kk, ss, pp))
    assert dropped == max(0, (n + 2 * pp - kk) % ss - pp)  # the rule above
    for side_in, side_out, (k2, s2, p2) in zip(grid_sides, grid_sides[1:], T2T_STAGES[1:], strict=False):
        assert (
            last_window_end(side_in, k2, s2, p2) >= side_in - 1
            and side_out == (side_in + 2 * p2 - k2) // s2 + 1
        )
    if dropped:
        dropped_at.append(n)
    print(f"{n:4d}  {' -> '.join(map(str, grid_sides)):31s}  {dropped}")
print(f"sides whose last pixel row and column fall in no window: {dropped_at}")
rows = [n for n in range(20, 120) if tokens.stage_grids(n, 100)[-1].rows == 4]
cols = [n for n in range(50, 200) if tokens.stage_grids(60, n)[-1].cols == 7]
print(f"heights giving 4 rows: {rows[0]} to {rows[-1]}; widths giving 7 columns: {cols[0]} to {cols[-1]}")
assert 224 in sides and 60 in rows and 100 in cols and 224 not in dropped_at

# %% [markdown]
# ## Evidence: more splits and the block counts
#
# Section 3 compared the two splits that give the same token grid. The cell adds T2T's second split, which splits
# the 15 × 25 grid that stage 1 rebuilds, and ViT's patches of $P = 20$ from notebook 01. Stage 2's blocks are
# counted in grid cells, not in pixels: each cell is a stage-1 token, so stage 2 stays out of section 3's figure.
# Then it counts, for each block side $m$, how many of the picture's $m \times m$ blocks each of section 3's splits
# keeps whole.

# %%
more_splits = {  # stage 2 splits the grid stage 1 rebuilds
    "T2T stage 1": splits["T2T stage 1"],
    "ViT, P = 4": splits["ViT, P = 4"],
    "T2T stage 2": (*tokens.count_tokens(height, width, *T2T_STAGES[0])[:2], *T2T_STAGES[1]),
    "ViT, P = 20": (height, width, 20, 20, 0),
}
for name, (hh, ww, kk, ss, pp) in more_splits.items():
    unit = "grid cells" if name == "T2T stage 2" else "pixels"
    more_grid = tokens.count_tokens(hh, ww, kk, ss, pp)
    found = [whole_blocks(hh, ww, kk, ss, pp, m).float().mean().item() for m in block_sides]
    largest = max(m for m in block_sides if found[m - 1] == 1.0)
    print(
        f"{name}: splits {hh} x {ww} {unit} with (k, s, p) = ({kk}, {ss}, {pp}) -> {more_grid.rows} x "
        f"{more_grid.cols} = {more_grid.total} tokens of {kk * kk} {unit} each (k * k)"
    )
    print(
        "   share of positions where an m x m block is whole, m = 1..7: "
        + "  ".join(f"{v:.2f}" for v in found)
    )
    print(f"   largest block always whole: {largest} x {largest} {unit}   (k - s + 1 = {kk - ss + 1})")
    assert largest == kk - ss + 1
vit20 = tokens.count_tokens(height, width, 20, 20, 0)
print(
    f"ViT with P = 20 makes {t2t1.total // vit20.total} times fewer tokens ({vit20.total} instead of {t2t1.total})"
)
length_ratio = (T2T_STAGES[0][0] / 4) ** 2  # T2T stage 1's token length over ViT P = 4's, per channel
print(
    f"on the same grid T2T stage 1's tokens are {length_ratio:.1f} times longer than ViT P = 4's: 49 entries against 16"
)
assert length_ratio == 49 / 16
print(f"{'m':>3s} {'m x m blocks':>13s} {'whole, T2T stage 1':>19s} {'whole, ViT P = 4':>17s}")
for m in block_sides[1:]:  # the picture's blocks at every position: (H - m + 1) x (W - m + 1) of them
    counts = [int(whole_blocks(*splits[name], m).sum()) for name in ("T2T stage 1", "ViT, P = 4")]
    print(f"{m:3d} {(height - m + 1) * (width - m + 1):13d} {counts[0]:19d} {counts[1]:17d}")


# %% [markdown]
# ## Evidence: the token transformer step by step
#
# `vitcourse.attention.Attention(dim, chan, num_heads, qkv_bias=False, qk_scale=..., v_skip=True)` is the `attn`
# of every `TokenTransformer`; with one head it is exactly Exercise 4's function. The cell runs a token
# transformer on the walk-through sizes: a batch of 13, 100 tokens of length 49 in and 64 out, one head and an
# MLP ratio of 1, as in the T2T module. The tokens are random normal numbers standing in for soft-split windows.
# Each step is computed by hand from the module's own layers and compared with `TokenTransformer.forward`.

# %%
batch, n_tokens, dim, chan = 13, 100, 49, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, 49)
tt = TokenTransformer(dim, chan, num_heads=1, mlp_ratio=1.0, qk_scale=dim**-0.5).to(device).eval()
with torch.no_grad():
    h = tt.norm1(x)  # (B, N, 49)
    attn_out, st = tt.attn.steps(h)  # every intermediate of the attention
    print(f"input {tuple(x.shape)} -> norm1 {tuple(h.shape)}")
    print(
        f"q, k, v each {tuple(st.q.shape)}; scores {tuple(st.scores.shape)}; heads merged {tuple(st.merged.shape)}"
    )
    v_merged = st.v.transpose(1, 2).reshape(batch, n_tokens, chan)  # (B, N, 64): v with its heads merged
    y = tt.attn.proj(st.merged) + v_merged  # (B, N, 64): the skip through v
    print(f"proj(merged) + v -> {tuple(y.shape)}")
    out = y + tt.mlp(tt.norm2(y))  # (B, N, 64)
    print(f"+ MLP(norm2) -> {tuple(out.shape)}")
    same = torch.allclose(y, attn_out, atol=1e-5) and torch.allclose(out, tt(x), atol=1e-5)
print(
    f"equals TokenTransformer.forward: {same}; scale on Q K^T: {tt.attn.scale:.4f} = 1/{round(tt.attn.scale**-1)}"
)
assert same and out.shape == (batch, n_tokens, chan)

# %% [markdown]
# The diagram draws the whole block on the same sizes (the 1 in (13, 1, 100, 64) is the head axis). The skip
# carries $v$ from the qkv layer to a sum after proj; no arrow carries the input tokens past the attention.

# %% mystnb={"image": {"alt": "Diagram of a token transformer on a batch of 13 images: 100 tokens of length 49 go through a layer norm and an attention layer whose output has length 64, with a skip connection that adds v, then a layer norm and an MLP with its own residual, giving 100 tokens of length 64."}}
diagrams.token_transformer(batch=13, tokens=100, dim=49, chan=64)
plt.show()
