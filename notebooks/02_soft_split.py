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
# # 02 · Soft split: overlapping patches
#
# **Time:** about 60 minutes
#
# Before this: [notebook 01](01_patch_tokenization.ipynb), which cuts the picture into patches.
#
# ViT's patches never overlap, so whatever crosses a patch border is cut apart. The Tokens-to-Token model,
# *T2T*, starts instead with a **soft split**: windows that overlap their neighbours, on a picture padded with
# zeros. T2T-ViT soft-splits three times, with a small transformer between the splits (Yuan et al. 2021,
# Fig. 4 and Section 3.3). Here we take one split apart; notebooks 08 and 09 chain three.
#
# By the end you can
# 1. count the tokens a sliding window makes, from its kernel, stride and padding,
# 2. read the T2T paper's settings as `nn.Unfold`'s,
# 3. say how many windows hold each pixel, and follow one pixel into every token that holds it,
# 4. build a soft split from padding and strided windows,
# 5. put the tokens back with `F.fold`, say when every pixel comes back, and design a split for which it does.
#
# Windows are counted from 0, row by row, like ViT's patches, and window $i$ becomes token $i$.

# %%
import math

import imageio.v3 as iio
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import Image, display
from matplotlib.patches import Rectangle
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets
from vitcourse.data import summit_square

picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
print(f"picture: H={H}, W={W}, C={C}")

# %% [markdown]
# ## 1. Counting the tokens (8 min)
#
# A soft split cuts the picture into square *windows* that overlap, and each window becomes one token. It has
# three settings. The *kernel* $k$ is the side of a window, in pixels. The *stride* $s$ is how far a window moves
# from one token to the next. The *padding* $p$ is the number of rows and columns of zeros added on each side.
# Here $k = 20$, $s = 10$, $p = 5$: windows as large as notebook 01's patches, each starting half a window after
# the previous one. Two neighbouring windows share $k - s$ rows or columns, their *overlap*.
#
# Now the count, along one side. Take a side of $w$ pixels and add $p$ zeros at each end: the padded side has
# $w + 2p$ pixels, counted from 0. The first window starts at 0, the next at $s$, then $2s$, and so on. The last
# one must end inside, so it starts at $w + 2p - k$ or before. The number of windows is the first one plus the
# steps of $s$ that fit:
#
# $$n = \left\lfloor \frac{w + 2p - k}{s} \right\rfloor + 1.$$
#
# This is `nn.Unfold`'s formula with dilation 1, where a window's pixels sit side by side
# ([windows with dilation](#Evidence:-windows-with-dilation)). The tokens form a grid of
# $n_{rows} \times n_{cols}$. The cell lists the window starts in the picture's own coordinates instead: there
# the padding begins at $-p$, so the starts are $-p, -p + s, \dots$
#
# The settings follow the article series' rule for T2T-ViT, $s = \lceil k/2 \rceil$ and $p = \lceil k/4 \rceil$
# (Callis, *Tokens-to-Token Vision Transformers, Explained*). The official code (`models/t2t_vit.py`) does not
# state the rule; the cell compares it with the code's three splits, copied from that file.

# %%
k = 20
s, p = math.ceil(k / 2), math.ceil(k / 4)
assert (s, p) == tokens.t2t_stride_padding(k)
# (kernel, stride, padding) of the three soft splits in T2T-ViT's models/t2t_vit.py
official = [(7, 4, 2), (3, 2, 1), (3, 2, 1)]
for which, (kk, ss, pp) in zip(("first", "second", "third"), official, strict=True):
    print(
        f"{which} split, k = {kk}: the rule gives (s, p) = {tokens.t2t_stride_padding(kk)}, the code uses {(ss, pp)}"
    )
assert all(tokens.t2t_stride_padding(kk) == (ss, pp) for kk, ss, pp in official)
print(f"kernel {k}: stride {s}, padding {p}")
starts_down = list(range(-p, H + p - k + 1, s))  # top rows of the windows
starts_across = list(range(-p, W + p - k + 1, s))  # left columns of the windows
print(f"window starts down:   {starts_down} -> {len(starts_down)}")
print(f"window starts across: {starts_across} -> {len(starts_across)}")
unfolded = nn.Unfold(kernel_size=k, stride=s, padding=p)(image)  # (B, C*k*k, N)
print(f"nn.Unfold output {tuple(unfolded.shape)}: {unfolded.shape[-1]} tokens of length {unfolded.shape[1]}")
print(f"vitcourse.count_tokens: {tokens.count_tokens(H, W, k, s, p)}")
assert len(starts_down) * len(starts_across) == unfolded.shape[-1] == tokens.count_tokens(H, W, k, s, p).total

# %% [markdown]
# ## 2. The padded picture and its windows (14 min)
#
# The figure keeps the picture's own coordinates: the padding lies outside the dashed white border. Window 0 is
# shaded orange; window 1, next along its row, is outlined in cyan. They share $k - s$ columns, the orange inside
# the cyan outline. Window 10, first in the next row (not drawn), shares rows with window 0 the same way.
#
# Below, an animation shows all the windows in token order, row by row, two frames per second, looping
# ([read back from the GIF](#Evidence:-the-frames-of-the-animation)). Each window is tinted orange, its neighbours
# on the token grid are outlined in cyan, and thin cyan lines inside it mark where a neighbour begins or ends.
# Watch how each window shares half its width with the next. Overlap pays: a shape that a ViT patch border cuts
# can lie whole in one window ([the largest square kept whole](#Evidence:-the-largest-square-kept-whole)).


# %% mystnb={"image": {"alt": "The padded picture in its own pixel coordinates, with window 0 shaded orange in the top-left corner and window 1 outlined in cyan, overlapping it by 10 columns; the picture's border is dashed. Then an animation of the 60 windows one after another, row by row"}}
def show_windows(filled: int, outlined: list[int], title: str, square: tuple | None = None) -> None:
    """The zero-padded picture in its own coordinates with its border dashed white; window ``filled`` shaded
    orange, the windows ``outlined`` outlined cyan, and an optional (top, left, height, width) square dotted
    with ViT's 20 x 20 patch borders in grey."""
    _, ax = plt.subplots(figsize=(7.5, 4.2))
    plots.show_picture(F.pad(image, (p, p, p, p))[0, 0], ax=ax, title=title, extent_offset=-p)
    ax.add_patch(Rectangle((0, 0), W, H, fill=False, ec="white", ls="--", lw=1.2))  # the picture's border
    row, col = corners[filled]
    ax.add_patch(Rectangle((col, row), k, k, fc=plots.WINDOW_COLOUR, alpha=0.5, ec=plots.WINDOW_COLOUR, lw=2))
    for n in outlined:
        row, col = corners[n]
        ax.add_patch(Rectangle((col, row), k, k, fill=False, ec=plots.NEIGHBOUR_COLOUR, lw=2))
    if square is not None:
        row, col, rows_, cols_ = square
        ax.add_patch(Rectangle((col, row), cols_, rows_, fill=False, ec="black", ls=":", lw=2.6))
        for x in range(20, W, 20):  # ViT's 20 x 20 patch borders, for comparison
            ax.axvline(x, color="lightgrey", lw=1)
        for y in range(20, H, 20):
            ax.axhline(y, color="lightgrey", lw=1)
    ax.set_xlim(-p, W + p)  # the padded picture, and no margin around it
    ax.set_ylim(H + p, -p)
    plt.show()


# F.pad's (p, p, p, p) is (left, right) for the last axis, then (top, bottom): (1, 1, H + 2p, W + 2p)
padded = F.pad(image, (p, p, p, p))  # the same padding show_windows draws
print(f"padded picture: {tuple(padded.shape[-2:])}, rows {-p} to {H + p - 1}, columns {-p} to {W + p - 1}")
corners = tokens.window_corners(H, W, k, s, p)  # (N, 2) top-left (row, col) of every window
grid = tokens.count_tokens(H, W, k, s, p)
show_windows(
    0, [1], f"window 0 (orange) and window 1 (cyan) of {len(corners)}: {k} x {k}, stride {s}, padding {p}"
)
shown = [0, 1, grid.cols]
print(f"window corners (row, col): {[tuple(int(v) for v in corners[i]) for i in shown]} (windows {shown})")
print(f"columns window 0 shares with window 1: {corners[1][1]} to {corners[0][1] + k - 1} ({k - s} columns)")
gif = plots.soft_split_animation(picture, k, s, p, scale=4, frames_per_second=2)  # built in memory, no file
display(Image(data=gif, format="gif"))

# %% [markdown]
# ### The paper's settings
#
# The T2T paper gives its three splits as "$P = [7, 3, 3]$, $S = [3, 1, 1]$"
# (Section 3.3). Its $P$ is the kernel $k$, not the course's patch side $P$. It gives no padding; the paddings
# 2, 1, 1 come from the official code.
#
# A colleague writes a token count in the paper's terms and tests it on the picture's split.


# %%
def paper_count(h: int, w: int, k: int, paper_s: int, p: int) -> tuple[int, int]:
    """Tokens (rows, cols) of a soft split in the T2T paper's terms: kernel k, the paper's S, padding p."""
    rows = (h + 2 * p - k) // paper_s + 1
    cols = (w + 2 * p - k) // paper_s + 1
    return rows, cols


paper_s = 10  # the picture's split in the paper's terms
by_unfold = tokens.count_tokens(H, W, k, s, p)
print(f"paper_count{(H, W, k, paper_s, p)} = {paper_count(H, W, k, paper_s, p)}")
print(f"nn.Unfold's count: {(by_unfold.rows, by_unfold.cols)}")

# %% [markdown]
# ### Exercise 1 (find the bug)
#
# `paper_count` passes the test above, yet it is wrong. T2T-ViT's first split of a 224 × 224 image is kernel 7,
# the paper's $S = 3$, padding 2, and the official model makes 56 × 56 tokens from it; `paper_count` does not.
# Find what the paper's $S$ measures and write `fixed_count(h, w, k, paper_s, p)`: the same arguments, the
# `(rows, cols)` that `nn.Unfold` makes. The check tries seven splits and refuses `nn.Unfold` and the package's
# counters.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "paper_count_fixed-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def fixed_count(h: int, w: int, k: int, paper_s: int, p: int) -> tuple[int, int]:
    """Tokens (rows, cols) of a soft split in the T2T paper's terms: kernel k, the paper's S, padding p."""
    ### BEGIN SOLUTION
    # The paper's S is the overlap: the pixels two neighbouring windows share. Its S = [3, 1, 1] beside the
    # official strides 4, 2, 2 for kernels 7, 3, 3: stride = k - S. paper_count moved the windows by S.
    stride = k - paper_s
    return (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "paper_count_fixed-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.paper_count_fixed(fixed_count)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "paper_count_fixed-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.paper_count_fixed, fixed_count)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The T2T paper's $S$ is the overlap, $k - s$: its $S = [3, 1, 1]$ with kernels 7, 3, 3 are the official strides
# 4, 2, 2. The picture's split hid the bug: its kernel is twice the stride, so the overlap equals the stride
# ([both counts on the 224 × 224 split](#Evidence:-the-paper's-first-split)).

# %% [markdown]
# ## 3. How many windows hold each pixel? (12 min)
#
# In ViT every pixel belongs to exactly one token when $H$ and $W$ are multiples of $P$, as 60 and 100 are of 20.
# With overlapping windows, a pixel can belong to several.

# %% [markdown]
# ### Exercise 2 (predict)
#
# Take $k = 20$, $s = 10$, $p = 5$ on the 60 × 100 picture. How many of its pixels lie
# in exactly two windows? Set `answer_two`. The window starts are printed in section 1.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "pixels_in_two_windows-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_two = None  # replace None with your answer
### BEGIN SOLUTION
# Along one side, a row is reached by 1 window near the ends and by 2 elsewhere (windows start every s = k/2).
# Rows: starts -5, 5, ..., 45, so rows 0-4 and 55-59 lie in 1 window, the other 50 rows in 2.
# Columns: likewise 10 columns in 1 window, 90 in 2. A pixel's count is (its row's) x (its column's), so it is
# 2 for a row in 1 and a column in 2, or a row in 2 and a column in 1.
answer_two = 10 * 90 + 50 * 10
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "pixels_in_two_windows-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.pixels_in_two_windows(answer_two)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "pixels_in_two_windows-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.pixels_in_two_windows, answer_two)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The cell counts, for every pixel, the windows that cover it, and draws the counts as a heat map; its colour bar
# marks only the counts that occur.

# %% mystnb={"image": {"alt": "A heat map of how many windows cover each pixel: four in the inner block, two in a band along each edge, one in the four corner squares"}}
cover = torch.zeros(H, W, dtype=torch.long)  # (H, W)
for top, left in corners:
    cover[max(top, 0) : top + k, max(left, 0) : left + k] += 1  # the window, clipped to the picture
values, counts = cover.unique(return_counts=True)
for v, n in zip(values.tolist(), counts.tolist(), strict=True):
    print(f"covered by {v} window(s): {n:5d} pixels ({100 * n / (H * W):.1f} %)")
print(f"every pixel covered: {bool((cover > 0).all())}; most common count: {int(values[counts.argmax()])}")
# the picture rows that only one window reaches
one_window = [r for r in range(H) if sum(t <= r < t + k for t in starts_down) == 1]
print(f"picture rows that only one window reaches: {one_window}")
print(f"tokens: {len(corners)} of {k * k} values, {len(corners) * k * k:,} values for {H * W:,} pixels")
print(f"ViT's 20 x 20 patches: {(H // 20) * (W // 20)} tokens, each pixel once")

fig, ax = plt.subplots(figsize=(7.5, 4))
plots.show_counts(
    cover, ax=ax, title=f"windows covering each pixel (k = {k}, s = {s}, p = {p})", label="windows"
)
plt.show()

# %% [markdown]
# Look at the edges: the count drops from 4 inside to 2 in a band along each edge, and to 1 in the corners.
# Why: windows start every $s = k/2$ pixels, so each row lies in two windows, except the first and the last
# $s - p = 5$ rows of the picture, which only one window reaches. Columns work the same way. A window pairs one
# span of rows with one span of columns, so a pixel's count is its row's count times its column's: 1, 2 or 4,
# never 3.
#
# This is the price of overlap: ViT stores each pixel once, in 15 tokens; the soft split stores most pixels four
# times, in 60 tokens.

# %% [markdown]
# ## 4. The first token: where the padding shows (9 min)
#
# The first window starts in the padding, so some of its entries are zeros. The cell counts them, finds where the
# rows of the dithered band land in each token, and draws the first window beside the token matrix, one row per
# token. Inside a window, rows and columns count from 0 at its top-left corner. The matrix's positions 0 to 199
# are the upper panel, 200 to 399 the lower one. A green tint marks padding; black lines separate the rows of the
# token grid, 10 tokens each.

# %% mystnb={"image": {"alt": "Left, the first window as a 20 by 20 square whose top five rows and left five columns are padding zeros; right, the token matrix of 60 tokens by 400 values in two halves"}}
toks = tokens.soft_split(image, k, s, p)  # (1, N, C*k*k)
first = toks[0, 0].reshape(k, k)  # the first window as a k x k square
top, left = corners[0]
inside = torch.zeros(k, k, dtype=torch.bool)
inside[-top:, -left:] = True  # pixels of the first window that lie in the picture
print(f"tokens: {tuple(toks.shape)}; the first window starts at ({top}, {left})")
print(
    f"padding rows and columns of the first window: 0-{-top - 1}; {int((~inside).sum())} of {k * k} entries"
)
assert torch.all(first[~inside] == 0)
assert torch.equal(first[inside].reshape(k + top, k + left), image[0, 0, : k + top, : k + left])
differs = picture[:, 1:] != picture[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
band = (differs.mean(axis=1) > 0.5).nonzero()[0].tolist()  # rows of the dithered band, as in notebook 01
print(f"picture rows in which most pixels differ from their right-hand neighbour (the dithered band): {band}")
band_tokens = [n for n, (r0, _) in enumerate(corners.tolist()) if any(r0 <= b < r0 + k for b in band)]
print(f"tokens whose windows hold some of these rows: {band_tokens[0]} to {band_tokens[-1]}")
assert band_tokens[0] % grid.cols == 0 and len(band_tokens) % grid.cols == 0  # whole rows of the token grid
for n in band_tokens[:: grid.cols]:  # the first token of each such row
    r0 = int(corners[n][0])
    in_window = [b - r0 for b in band if r0 <= b < r0 + k]  # the band's rows, counted inside the window
    print(
        f"tokens {n} to {n + grid.cols - 1}: band in window rows {in_window[0]} to {in_window[-1]}, "
        f"positions {k * in_window[0]} to {k * in_window[-1] + k - 1}"
    )

# Every matrix entry gets exactly 3 x 3 screen pixels, so that the picture's one-pixel pattern is not resampled
# into stripes that are not in the data. The 400 positions are drawn in two halves of 200.
fig = plots.show_first_window_and_matrix(toks[0], first, pad=-top, px=3)
from_padding = tokens.soft_split(torch.ones_like(image), k, s, p)[0] == 0  # (N, k*k): True in the padding
half = k * k // 2
green = torch.tensor([0.1, 0.85, 0.3, 0.6])  # RGBA of the padding tint
for i, ax in enumerate(fig.axes[1:3]):  # the two halves of the matrix
    tint = torch.zeros(len(corners), half, 4)  # (N, half, RGBA): transparent outside the padding
    tint[from_padding[:, i * half : (i + 1) * half]] = green
    ax.imshow(tint, extent=ax.images[0].get_extent(), interpolation="nearest", aspect="auto")
    for row_end in range(grid.cols, len(corners), grid.cols):  # borders between rows of the token grid
        ax.axhline(row_end - 0.5, color="black", lw=1)
win_tint = torch.zeros(k, k, 4)  # (k, k, RGBA): the first window's padding, tinted as in the matrix
win_tint[~inside] = green
fig.axes[0].imshow(win_tint, extent=fig.axes[0].images[0].get_extent(), interpolation="nearest")
keys = [Rectangle((0, 0), 1, 1, fc=green.tolist()), plt.Line2D([], [], color="black", lw=1)]
fig.legend(keys, ["padding", "next row of the token grid"], loc="lower left", bbox_to_anchor=(0.02, 0.03))
extent = fig.axes[1].get_window_extent()  # the first half of the matrix, in screen pixels
assert (round(extent.width), round(extent.height)) == (3 * toks.shape[2] // 2, 3 * toks.shape[1])
plt.show()

# %% [markdown]
# The dithered band shows in the matrix as fine vertical hatching, at the positions printed above, except where
# the pale mountain covers it. One row of the token grid down (past a black line), the window starts $s$ rows
# lower, so the same picture rows sit $s \cdot k$ positions further left: the lower panel for tokens 10 to 19,
# mostly the upper one for tokens 20 to 29. Dark runs without a green tint are dark pixels of the picture; tinted ones
# are padding ([padding entries per token](#Evidence:-padding-entries-per-token)).

# %% [markdown]
# ### Exercise 3 (predict)
#
# Take pixel (30, 47) of the picture: row 30, column 47, counted from 0. Split it with
# $k = 20$, $s = 10$, $p = 5$.
#
# - (a) Which tokens hold the pixel? Set `answer_tokens` to a set of tokens, counted from 0.
# - (b) Of these, take the token with the smallest number. At which position of that token does the pixel lie,
#   counted from 0? Set `answer_position` to one number from 0 to 399, numbered as in the token matrix above.
#
# After you answer, [the Evidence](#Evidence:-one-pixel-in-every-token-that-holds-it) follows the pixel.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "pixel_in_tokens-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_tokens = None  # replace None with your answer to (a): a set of tokens
answer_position = None  # (b)
### BEGIN SOLUTION
# (a) Rows: the windows start at -5, 5, 15, 25, 35, 45; row 30 lies in those at 15 and 25, token rows 2 and 3.
# Columns: starts -5, 5, ..., 85; column 47 lies in those at 35 and 45, token columns 4 and 5.
# Token = 10 * token row + token column.
answer_tokens = {24, 25, 34, 35}
# (b) the smallest, token 24: its window starts at row 15, column 35, so the pixel is at its row 15, column 12
answer_position = 15 * 20 + 12
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "pixel_in_tokens-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.pixel_in_tokens(answer_tokens)
check.pixel_position_entry(answer_position)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "pixel_in_tokens-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.pixel_in_tokens, answer_tokens)
check.require(check.pixel_position_entry, answer_position)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. A soft split by hand (5 min)
#
# `Tensor.unfold(dim, size, step)` slides a window along one axis: axis `dim` then counts the windows, and a new
# last axis of length `size` holds the pixels inside one window. A soft split is three steps: pad; cut both
# spatial axes into windows; put the two window axes first and flatten. That gives `nn.Unfold`'s order. The first
# cell traces the steps on a 6 × 6 image of the numbers 1 to 36 ($k = 4$, $s = 2$, $p = 1$), so that no pixel looks
# like a padding zero; the second checks them against `nn.Unfold` on the picture and on three channels.

# %%
tiny = torch.arange(1.0, 37.0).reshape(
    1, 1, 6, 6
)  # (B, C, 6, 6): each value is 1 + its place in reading order
step0 = F.pad(tiny, (1, 1, 1, 1))  # (1, 1, 8, 8): one ring of zeros
step1 = step0.unfold(2, 4, 2)  # (1, 1, 3, 8, 4): window row, padded column, row inside the window
# (1, 1, 3, 3, 4, 4): window row, window column, row and column inside the window
step2 = step1.unfold(3, 4, 2)
for name, t in (("pad", step0), ("unfold rows", step1), ("unfold columns", step2)):
    print(f"{name:15s} {tuple(t.shape)}")
print(f"window (row 0, column 1), token 1, as a 4 x 4 square:\n{step2[0, 0, 0, 1].long()}")
tiny_tokens = step2.permute(0, 2, 3, 1, 4, 5).reshape(1, 9, 16)  # (B, N, C*k*k)
print(f"token 1: {tiny_tokens[0, 1].long().tolist()}")
assert torch.equal(tiny_tokens, F.unfold(tiny, 4, stride=2, padding=1).transpose(1, 2))


# %%
def by_hand(images: torch.Tensor, k: int, s: int, p: int) -> torch.Tensor:
    """A soft split from F.pad and Tensor.unfold: (B, C, H, W) -> (B, N, C*k*k) in nn.Unfold's order."""
    x = F.pad(images, (p, p, p, p))  # (B, C, H + 2p, W + 2p)
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, window rows, window cols, k, k)
    b, c, rows, cols = x.shape[:4]
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, window rows, window cols, C, k, k)
    return x.reshape(b, rows * cols, c * k * k)  # (B, N, C*k*k)


print(f"by hand: {tuple(by_hand(image, k, s, p).shape)}; equal to nn.Unfold: ", end="")
print(torch.equal(by_hand(image, k, s, p), unfolded.transpose(1, 2)))
assert torch.equal(by_hand(image, k, s, p), unfolded.transpose(1, 2))
rgb = torch.randn(2, 3, 9, 11)  # (B, C, H, W) with three channels: each token holds channel 0, then 1, then 2
print(f"three channels: {tuple(by_hand(rgb, 4, 2, 1).shape)}, equal to nn.Unfold: ", end="")
print(torch.equal(by_hand(rgb, 4, 2, 1), F.unfold(rgb, 4, stride=2, padding=1).transpose(1, 2)))
assert torch.equal(by_hand(rgb, 4, 2, 1), F.unfold(rgb, 4, stride=2, padding=1).transpose(1, 2))

# %% [markdown]
# ## 6. Back in place (11 min)
#
# A token holds pixel values, not where they came from. Its index says where: with $k$, $s$, $p$ it fixes the
# token's window. So `F.fold`, given the same settings, puts each token back and *adds* the copies where windows
# overlap. Write $x(i, j)$ for pixel $(i, j)$, $t$ for the tokens, and $c(i, j)$ for the number of windows that
# cover the pixel (section 3's heat map). Then
#
# $$\operatorname{fold}(t)(i, j) = c(i, j)\, x(i, j), \qquad
# \operatorname{unsplit}(t)(i, j) = \frac{\operatorname{fold}(t)(i, j)}{c(i, j)} = x(i, j).$$
#
# So `vitcourse.tokens.unsplit` divides by the coverage. That needs every pixel covered, true here but not for
# every size. With $s \le k$ and $p < k$, the last window along a side of $w$ stops $r = (w + 2p - k) \bmod s$
# pixels before the end of the padded side. When $r > p$, the last $r - p$ rows or columns lie in no window, and
# `unsplit` returns 0 there
# ([four square sizes](#Evidence:-when-every-pixel-is-covered)).


# %%
summed = F.fold(toks.transpose(1, 2), output_size=(H, W), kernel_size=k, stride=s, padding=p)  # (1, C, H, W)
print(f"fold: {tuple(toks.shape)} -> {tuple(summed.shape)}")
ones = torch.ones_like(image)  # unfold, then fold, a picture of ones: each pixel's coverage count
coverage = F.fold(F.unfold(ones, k, stride=s, padding=p), (H, W), k, stride=s, padding=p)  # (1, 1, H, W)
assert torch.allclose(summed, image * coverage, atol=1e-6)
back = tokens.unsplit(toks, H, W, k, s, p)  # (1, C, H, W)
gap = (back - image).abs().max().item()
print(
    f"fold = picture x coverage count (asserted); unsplit differs from the picture by at most 1e-6: {gap < 1e-6}"
)
assert gap < 1e-6

# %% [markdown]
# ### Exercise 4 (design)
#
# Design a split of the 60 × 100 picture with overlap $k - s = 2$ (the paper's $S = 2$), $p < k$, a grid of
# 10 × 17 tokens, and every pixel in some window, so that `unsplit` gives the picture back. Set `answer_split` to
# its `(k, s, p)`. Test your split with this section's rule before you run the check.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "split_design-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_split = None  # replace None with your answer: (k, s, p)
### BEGIN SOLUTION
# s = k - 2. 10 rows: 9 steps of s fit in 60 + 2p - k, a 10th does not; 17 columns: 16 steps in 100 + 2p - k.
# k = 8, s = 6: 54 <= 52 + 2p < 60 gives p = 1, 2 or 3; 96 <= 92 + 2p < 102 gives p = 2, 3 or 4. Both sides
# hold for p = 2 and 3. Coverage: r = (60 + 2p - 8) mod 6 is 2 for p = 2 (<= p, covered) and 4 for p = 3
# (> p: the last row lies in no window). So (8, 6, 2).
answer_split = (8, 6, 2)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "split_design-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.split_design(answer_split)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "split_design-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.split_design, answer_split)
### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# - A sliding window makes $\lfloor (w + 2p - k)/s \rfloor + 1$ tokens along each side. With $k = 20$,
#   $s = 10$, $p = 5$ the picture makes 6 × 10 = 60 overlapping tokens of length 400.
# - The T2T paper gives the overlap, not the stride: the stride is $k$ minus the overlap.
# - With $k = 2s$, as here, most pixels lie in four windows, the edges in fewer.
# - A soft split is padding plus strided windows, flattened in the order $(C, k, k)$.
# - Fold, then divide by the coverage, puts the tokens back in place, provided every pixel is covered: for
#   $s \le k$ and $p < k$, when $(w + 2p - k) \bmod s \le p$ for the height and for the width.
#
# Other settings: [the explorer](#Evidence-and-play:-the-explorer).
#
# **Next:** [03 Position embeddings](03_position_embeddings.ipynb): how a token says where it came from. The soft
# split returns in [notebook 08](08_t2t_soft_split.ipynb).

# %% [markdown]
# ## Evidence: the largest square kept whole
#
# Overlap does not stop every cut. Along one side, a window of side $k$ can hold a shape of length $L$ at
# $k - L + 1$ offsets, and windows start every $s$ pixels. So some window catches the shape wherever it sits
# exactly when $k - L + 1 \ge s$, that is $L \le k - s + 1$, provided the windows reach both ends of the side.
# The largest square that stays whole wherever it lies is then $(k - s + 1) \times (k - s + 1)$; notebook 08
# compares this with ViT's patches.
#
# The first cell takes the 10 × 10 square under the summit of the pale mountain (`vitcourse.data.summit_square`),
# counts the pieces ViT's 20 × 20 patches cut it into, and draws the first window that holds it whole. The square
# is dotted black; the thin grey lines are ViT's patch borders. They cross the square, but the orange window
# holds all of it. The second cell checks the rule by brute force. For every size $L$ up to $k$, it tries every
# place of an $L \times L$ square on the picture. It does so for this split and for T2T's two settings.

# %% mystnb={"image": {"alt": "The padded picture with the first window that holds the 10 by 10 square under the summit whole tinted orange, the square dotted black, and ViT's 20 by 20 patch borders in grey crossing it"}}
peak = summit_square(picture, side=10)  # (top, left, height, width): the square under the summit
top, left, side, _ = peak
# ViT's 20 x 20 patches (numbered from 0, row by row) that hold part of it
cut = {(r // 20) * (W // 20) + c // 20 for r in range(top, top + side) for c in range(left, left + side)}
print(
    f"square under the summit: rows {top}-{top + side - 1}, columns {left}-{left + side - 1}; ViT's patches"
)
print(f"cut it into {len(cut)} pieces: patches {sorted(cut)}")
holds = [
    n
    for n, (r0, c0) in enumerate(corners.tolist())
    if r0 <= top < top + side <= r0 + k and c0 <= left < left + side <= c0 + k
]
print(f"windows that hold it whole: {holds}")
still = holds[0]  # the first window that holds the square under the summit whole
top, left = corners[still]
title = f"window {still}, rows {top} to {top + k - 1}, columns {left} to {left + k - 1}; square dotted; ViT's patches grey"
show_windows(still, [], title, square=peak)  # peak: the square under the summit, found at the top


# %%
def largest_whole_square(h: int, w: int, kk: int, ss: int, pp: int) -> tuple[int, dict[int, tuple[int, int]]]:
    """Brute force over every size L up to the kernel (a larger square fits in no window) and every placement
    of an L x L square on an h x w picture: the largest L whose every placement lies whole in some window of
    the split (kk, ss, pp), and for each L the number of placements no window holds, of how many."""
    wc = torch.as_tensor(tokens.window_corners(h, w, kk, ss, pp))  # (N, 2) top-left (row, col)
    tops, lefts = wc[:, :1], wc[:, 1:]  # (N, 1) each
    missed = {}
    for size in range(1, min(h, w, kk) + 1):
        r, c = torch.arange(h - size + 1), torch.arange(w - size + 1)  # every top row and left column
        rows_fit = (tops <= r) & (r + size <= tops + kk)  # (N, placements down): window n holds those rows
        cols_fit = (lefts <= c) & (c + size <= lefts + kk)  # (N, placements across)
        caught = (rows_fit[:, :, None] & cols_fit[:, None, :]).any(dim=0)  # (down, across)
        missed[size] = (int((~caught).sum()), caught.numel())
    return max(size for size, (n, _) in missed.items() if n == 0), missed


for kk, ss, pp in ((k, s, p), (7, 4, 2), (3, 2, 1)):
    largest, missed = largest_whole_square(H, W, kk, ss, pp)
    n_missed, n_placed = missed[largest + 1]
    print(
        f"(k, s, p) = ({kk}, {ss}, {pp}): the largest square whole wherever it lies is {largest} x {largest} "
        f"(k - s + 1 = {kk - ss + 1}); a {largest + 1} x {largest + 1} square is cut at {n_missed} of its "
        f"{n_placed} places"
    )
    assert largest == kk - ss + 1 and all(n > 0 for size, (n, _) in missed.items() if size > largest)

# %% [markdown]
# ## Evidence: one pixel in every token that holds it
#
# Exercise 3's pixel, followed. The cell splits an image that is 1 at pixel (30, 47) and 0 elsewhere. The 1 shows up once in every token that
# holds the pixel, at the pixel's place in that window, which differs with the window's corner.

# %%
marked = torch.zeros_like(image)
marked[0, 0, 30, 47] = 1.0
hits = (tokens.soft_split(marked, k, s, p)[0] == 1).nonzero().tolist()  # [token, position] pairs
for n, pos in hits:
    print(
        f"token {n}: window corner {tuple(int(v) for v in corners[n])}, position {pos} = row {pos // k}, "
        f"column {pos % k} of the window"
    )
assert len(hits) == len(tokens.windows_holding((30, 47, 1, 1), H, W, k, s, p))  # one per window over it

# %% [markdown]
# ## Evidence: padding entries per token
#
# Section 4 tints the padding green. The tint comes from splitting an image of ones, where only the padding
# gives zeros. The cell prints each token's padding entries on the token grid: the top row of windows begins
# with $p = 5$ padding rows, 100 entries; the left column begins each window row with 5 padding columns.

# %%
per_token = from_padding.sum(dim=1).reshape(grid.rows, grid.cols)  # (rows, cols)
print(f"padding entries per token, on the {grid.rows} x {grid.cols} token grid:\n{per_token}")
print(f"token 0 starts with {int(from_padding[0, :100].sum())} of 100 padding entries")
print(f"token 59 ends with {int(from_padding[59, -100:].sum())} of 100 padding entries")
print(
    f"token 20, the first row of its window (entries 0-19): padding at "
    f"{from_padding[20, :20].nonzero().flatten().tolist()}"
)

# %% [markdown]
# ## Evidence: when every pixel is covered
#
# Section 6 says that for $s \le k$ and $p < k$, the last $r - p$ rows or columns of a side lie in no window when
# $r = (w + 2p - k) \bmod s$ is larger than $p$. The cell folds the split of an all-ones square back for four
# sides, with the rule's stride and padding, and counts the pixels no window covers.

# %%
for side, kk in ((60, 20), (100, 20), (62, 7), (58, 20)):
    ss, pp = tokens.t2t_stride_padding(kk)
    ones = torch.ones(1, 1, side, side)  # a square picture of this side
    cover_sq = F.fold(F.unfold(ones, kk, stride=ss, padding=pp), (side, side), kk, stride=ss, padding=pp)
    r = (side + 2 * pp - kk) % ss
    missed = int((cover_sq == 0).sum())
    print(
        f"side {side:3d}, (k, s, p) = ({kk}, {ss}, {pp}): r = {r}, r > p: {r > pp}; uncovered pixels: {missed}"
    )
    assert (missed > 0) == (r > pp)

# %% [markdown]
# Exercise 4's splits. The cell lists every split with overlap 2, $p < k$ and a 10 × 17 grid, and the pixels each leaves uncovered.

# %%
for kk in range(3, 40):
    for pp in range(kk):
        if tuple(tokens.count_tokens(H, W, kk, kk - 2, pp))[:2] == (10, 17):
            ones = torch.ones(1, 1, H, W)
            cover_kk = F.fold(
                F.unfold(ones, kk, stride=kk - 2, padding=pp), (H, W), kk, stride=kk - 2, padding=pp
            )
            r = (H + 2 * pp - kk) % (kk - 2)
            print(
                f"(k, s, p) = ({kk}, {kk - 2}, {pp}): r = {r} down, uncovered pixels: {int((cover_kk == 0).sum())}"
            )

# %% [markdown]
# ## Evidence: the paper's first split
#
# Exercise 1's bug on T2T-ViT's first split of a 224 × 224 image: `paper_count` moves the windows by the paper's
# $S = 3$, `nn.Unfold` by the stride $7 - 3 = 4$.

# %%
buggy = paper_count(224, 224, 7, 3, 2)
fixed = tokens.count_tokens(224, 224, 7, 7 - 3, 2)  # stride = kernel - overlap
assert nn.Unfold(kernel_size=7, stride=4, padding=2)(torch.zeros(1, 1, 224, 224)).shape[-1] == fixed.total
print(f"paper_count{(224, 224, 7, 3, 2)} = {buggy}: {buggy[0] * buggy[1]:,} tokens")
print(f"nn.Unfold, stride 7 - 3 = 4: {(fixed.rows, fixed.cols)}: {fixed.total:,} tokens")
print(f"the picture's split: stride s = {s}, overlap k - s = {k - s}; paper_count's step = S = {paper_s}")
assert paper_s == k - s == s  # the one case where moving by the overlap is moving by the stride

# %% [markdown]
# ## Evidence: windows with dilation
#
# `nn.Unfold` can also spread a window's pixels apart, taking every $d$-th pixel. This is *dilation*. The window
# then spans $d(k-1) + 1$ pixels, and that length replaces $k$ in the formula of section 1. T2T does not use
# dilation. The cell checks the formula against `nn.Unfold` for three dilations on the picture.

# %%
for d in (1, 2, 3):
    formula = [math.floor((side + 2 * p - d * (k - 1) - 1) / s + 1) for side in (H, W)]
    out = nn.Unfold(kernel_size=k, stride=s, padding=p, dilation=d)(image).shape[-1]
    print(f"dilation {d}: formula {formula[0]} x {formula[1]} = {formula[0] * formula[1]}, nn.Unfold {out}")
    assert formula[0] * formula[1] == out

# %% [markdown]
# ## Evidence: the frames of the animation
#
# Section 2 says the animation shows one frame per token, two frames per second, and loops. The cell reads these
# settings back from the GIF's bytes, and the span of the last window.

# %%
meta = iio.immeta(gif, extension=".gif")
n_frames = iio.improps(gif, extension=".gif", index=None).shape[0]
print(f"{n_frames} frames (one per token), {meta['duration']} ms each, loop={meta['loop']} (0 = forever)")
assert n_frames == len(corners) and meta["duration"] == 500 and meta["loop"] == 0
last_top, last_left = corners[-1]  # the span the last frame's caption names
print(f"last window: rows {last_top} to {last_top + k - 1}, columns {last_left} to {last_left + k - 1}")


# %% [markdown]
# ## Evidence and play: the explorer
#
# Move the sliders (in a live Python session) to see three windows, the token grid's size and the token matrix.
# The text line counts the pixels that no window sees. Find a setting with $s \le k$ that loses some, and check
# it against section 6's rule.

# %% mystnb={"image": {"alt": "Sliders for kernel, stride and padding with three windows on the padded picture and the token matrix"}}
display(widgets.soft_split_explorer(picture))

# %% [markdown]
# The sliders print one text line per setting. The cell prints it for this notebook's split, T2T's two official
# settings, ViT's patches, single pixels, a stride larger than the kernel, a split that leaves the last rows
# uncovered, and a kernel larger than the picture, which the explorer refuses.

# %%
for setting in [
    (20, 10, 5),
    (7, 4, 2),
    (3, 2, 1),
    (20, 20, 0),
    (1, 1, 0),
    (10, 15, 0),
    (20, 15, 0),
    (80, 10, 5),
]:
    fig, summary = widgets.soft_split_view(picture, *setting)
    if fig is not None:
        plt.close(fig)
    print(summary)
assert widgets.soft_split_view(picture, 80, 10, 5)[0] is None
