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
# ViT's patches never overlap, so whatever crosses a patch edge (the slope of a ridge, the rim of the moon) is cut
# in two. The Tokens-to-Token (T2T) model starts instead with a **soft split**: windows that overlap their
# neighbours, on a picture padded with zeros so the windows at the border fit.
#
# **Learning goals.** After this notebook you can
# 1. derive and use the formula for the number of tokens a sliding window makes,
# 2. apply T2T's rule for stride and padding,
# 3. see where the padding lands inside a token,
# 4. rebuild a picture from tokens in two ways: back in place, and T2T's way, one pixel per token.

# %%
import math
import time

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import Image, display
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
print(f"picture: H={H}, W={W}, C={C}")

# %% [markdown]
# ## Counting the tokens
#
# Along one side of length $w$, pad with $p$ zeros at each end: the padded side has $w + 2p$ pixels. A window of
# $k$ pixels starts at $0, s, 2s, \dots$ and must end inside, so its start is at most $w + 2p - k$. The number of
# starts is
#
# $$n = \left\lfloor \frac{w + 2p - (k - 1) - 1}{s} + 1 \right\rfloor ,$$
#
# which is the formula in the `nn.Unfold` documentation (with dilation 1). The tokens form an $n_{rows} \times
# n_{cols}$ grid, counted on each side separately.
#
# T2T's rule sets the stride and padding from the kernel: $s = \lceil k/2 \rceil$, $p = \lceil k/4 \rceil$.
# With $k = 20$ on the picture:

# %%
k = 20
s, p = math.ceil(k / 2), math.ceil(k / 4)
n_rows = math.floor((H + 2 * p - (k - 1) - 1) / s + 1)
n_cols = math.floor((W + 2 * p - (k - 1) - 1) / s + 1)
print(f"kernel {k}: stride {s}, padding {p}")
print(f"by the formula:          {n_rows} x {n_cols} = {n_rows * n_cols} tokens")
print(f"vitcourse.count_tokens:  {tokens.count_tokens(H, W, k, s, p)}")
unfolded = nn.Unfold(kernel_size=k, stride=s, padding=p)(image)  # (B, C*k*k, N)
print(
    f"nn.Unfold output:        {tuple(unfolded.shape)} -> {unfolded.shape[-1]} tokens of length {unfolded.shape[1]}"
)
assert n_rows * n_cols == unfolded.shape[-1] == tokens.count_tokens(H, W, k, s, p).total

# %% [markdown]
# *An aside on dilation.* `nn.Unfold` can also spread a window's pixels apart (dilation $d$: every $d$-th pixel).
# The window then spans $d(k-1) + 1$ pixels and the formula becomes
# $\lfloor (w + 2p - d(k-1) - 1)/s + 1 \rfloor$. T2T does not use dilation; the check below shows the formula
# holds.

# %%
for d in (1, 2, 3):
    formula = [math.floor((side + 2 * p - d * (k - 1) - 1) / s + 1) for side in (H, W)]
    out = nn.Unfold(kernel_size=k, stride=s, padding=p, dilation=d)(image).shape[-1]
    print(f"dilation {d}: formula {formula[0]} x {formula[1]} = {formula[0] * formula[1]}, nn.Unfold {out}")
    assert formula[0] * formula[1] == out

# %% [markdown]
# ## The padded picture and its 60 windows
#
# Padding adds 5 rows of zeros above and below and 5 columns left and right: 70 × 110. The figure keeps the
# picture's own pixel coordinates, so the padding runs from −5 to 0 and from 60 (or 100) to 65 (or 105).

# %%
padded = F.pad(image, (p, p, p, p))  # (1, 1, H + 2p, W + 2p)
print(f"padded picture: {tuple(padded.shape[-2:])}")
corners = tokens.window_corners(H, W, k, s, p)  # (N, 2) top-left (row, col) of every window
fig, ax = plt.subplots(figsize=(7.5, 4.2))
plots.show_picture(
    padded[0, 0],
    ax=ax,
    title=f"{len(corners)} windows of {k} x {k}, stride {s}, padding {p}",
    extent_offset=-p,
)
plots.draw_windows(ax, corners, k, highlight=0)
plt.show()

# %% [markdown]
# Each window overlaps half of its neighbour on every side, so most pixels belong to four tokens. The animation
# shows the windows in the order the tokens come out: row by row, two windows per second. It is built in memory
# (no files) with `imageio`.

# %%
start = time.perf_counter()
gif = plots.soft_split_animation(picture, k, s, p, frames_per_second=2)
build_seconds = time.perf_counter() - start
display(Image(data=gif, format="gif"))

# %%
# NBVAL_IGNORE_OUTPUT
print(f"animation built in {build_seconds:.2f} s, {len(gif) / 1024:.0f} KiB")

# %%
import imageio.v3 as iio

meta = iio.immeta(gif, extension=".gif")
n_frames = iio.improps(gif, extension=".gif", index=None).shape[0]
print(f"{n_frames} frames, {meta['duration']} ms each, loop={meta['loop']} (0 = forever)")
assert n_frames == n_rows * n_cols and meta["duration"] == 500 and meta["loop"] == 0

# %% [markdown]
# ## The first token: where the padding shows
#
# The first window starts at (−5, −5): its top 5 rows and its left 5 columns lie in the padding. Those entries of
# the token are zeros that carry no picture; the cell below counts them.

# %%
toks = tokens.soft_split(image, k, s, p)  # (1, N, C*k*k)
first = toks[0, 0].reshape(k, k)  # the first window as a k x k square
inside = torch.zeros(k, k, dtype=torch.bool)
inside[p:, p:] = True  # pixels of the first window that lie in the picture
print(f"tokens: {tuple(toks.shape)}; the first token holds {int((~inside).sum())} padding pixels of {k * k}")
assert torch.all(first[~inside] == 0)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5), gridspec_kw={"width_ratios": [1, 2.2]})
plots.show_picture(first, ax=ax1, title="first window\n(padding: rows and columns 0-4)", colorbar=False)
ax1.set_xticks(range(0, k + 1, 5))
ax1.set_yticks(range(0, k + 1, 5))
plots.show_matrix(
    toks[0],
    ax=ax2,
    title=f"token matrix {toks.shape[1]} x {toks.shape[2]}",
    xlabel="position in the token",
    ylabel="token index",
    vmin=0,
    vmax=1,
)
plt.show()

# %% [markdown]
# ## Rebuilding a picture from tokens
#
# **Back in place.** Every window knows where it came from, so the tokens can be put back and the overlaps
# averaged (`torch.nn.functional.fold` does the putting back; `vitcourse.tokens.unsplit` also divides by the
# number of windows over each pixel). With T2T's rule every pixel is covered, and the picture returns exactly.

# %%
back = tokens.unsplit(toks, H, W, k, s, p)  # (1, C, H, W)
print(
    f"unsplit: {tuple(toks.shape)} -> {tuple(back.shape)}, equal to the picture: {torch.allclose(back, image)}"
)
assert torch.allclose(back, image)

# %% [markdown]
# **T2T's way: one pixel per token.** Between its stages T2T does something else. The 60 tokens sit on a 6 × 10
# grid; T2T lays each token on its grid cell as one *pixel* with 400 channels, giving a 400-channel image of
# 6 × 10. Channel $j$ of that image holds pixel $j$ of every window, so each channel is a small, shifted copy of
# the picture. (T2T first passes the tokens through a transformer, so in the model the channels are learned
# features; here we rebuild the raw tokens to see the layout.)

# %%
grid = tokens.count_tokens(H, W, k, s, p)
rebuilt = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (1, C*k*k, rows, cols)
print(f"rebuild_image: {tuple(toks.shape)} -> {tuple(rebuilt.shape)}")
channels = [0, (k // 2) * k + k // 2, k * k - 1]  # first pixel, centre pixel, last pixel of each window
fig, axes = plt.subplots(1, 3, figsize=(12, 2.8))
for ax, ch in zip(axes, channels, strict=True):
    plots.show_picture(
        rebuilt[0, ch],
        ax=ax,
        title=f"channel {ch}:\npixel ({ch // k}, {ch % k}) of each window",
        colorbar=False,
    )
    ax.set_xticks(range(grid.cols + 1))
    ax.set_yticks(range(grid.rows + 1))
    ax.set_xlabel("token column")
    ax.set_ylabel("token row")
plt.show()
centre = channels[1]
assert torch.equal(rebuilt[0, centre], padded[0, 0, k // 2 :: s, k // 2 :: s][: grid.rows, : grid.cols])

# %% [markdown]
# ## Play: kernel, stride, padding
#
# Move the sliders (in a running kernel) to see the windows, the token grid from `count_tokens` (checked against
# `nn.Unfold` at every setting) and the token matrix. A setting where no window fits shows a sentence saying why.

# %%
# NBVAL_IGNORE_OUTPUT
# (the widget's picture and text live in the widget; the next cell checks settings it offers)
display(widgets.soft_split_explorer(picture))

# %%
for setting in [(20, 10, 5), (7, 4, 2), (3, 2, 1), (20, 20, 0), (1, 1, 0), (80, 10, 5)]:
    fig, summary = widgets.soft_split_view(picture, *setting)
    if fig is not None:
        plt.close(fig)
    print(summary)
assert widgets.soft_split_view(picture, 80, 10, 5)[0] is None

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (easy).** T2T's first stage uses $k = 7$, $s = 4$, $p = 2$. How many tokens does it make from the
# picture? Give the pair `(rows, cols)`.

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_grid = None  # replace None with (rows, cols)
### BEGIN SOLUTION
answer_grid = ((60 + 2 * 2 - 7) // 4 + 1, (100 + 2 * 2 - 7) // 4 + 1)
### END SOLUTION

# %%
check.soft_split_count(answer_grid)


# %% [markdown]
# **Exercise 2 (coding).** Write `my_count_tokens(h, w, k, s, p)` returning the pair `(rows, cols)`. The check
# compares it with `nn.Unfold` on seven settings, including non-square ones.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_count_tokens(h: int, w: int, k: int, s: int, p: int) -> tuple[int, int]:
    ### BEGIN SOLUTION
    rows = (h + 2 * p - (k - 1) - 1) // s + 1
    cols = (w + 2 * p - (k - 1) - 1) // s + 1
    return rows, cols
    ### END SOLUTION


print(f"my_count_tokens(60, 100, 20, 10, 5) = {my_count_tokens(60, 100, 20, 10, 5)}")

# %%
check.count_tokens_function(my_count_tokens)


# %% [markdown]
# **Exercise 3 (coding).** Write `my_rebuild(tokens, h, w)` that lays tokens of shape (B, h·w, C) onto an
# (B, C, h, w) image, token $i$ at row $i$ // $w$, column $i$ % $w$, for *any* $h \times w$ (the official T2T code
# uses a square root here and only works for squares).


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_rebuild(toks: torch.Tensor, h: int, w: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, n, c = toks.shape
    return toks.transpose(1, 2).reshape(b, c, h, w)  # (B, C, h, w)
    ### END SOLUTION


print(f"my_rebuild on the soft-split tokens: {tuple(my_rebuild(toks, 6, 10).shape)}")

# %%
check.rebuild_function(my_rebuild)

# %% [markdown]
# ## Summary
#
# - A sliding window makes $\lfloor (w + 2p - (k-1) - 1)/s + 1 \rfloor$ tokens along each side.
# - T2T's rule, $s = \lceil k/2 \rceil$, $p = \lceil k/4 \rceil$, gives the picture 6 × 10 = 60 overlapping
#   tokens of length 400 on a 70 × 110 padded picture.
# - Tokens can go back in place (fold and average), or, T2T's way, onto their token grid as many-channel pixels.
#
# **Next:** [03 Position embeddings](03_position_embeddings.ipynb): attention does not know where a token came
# from. How do we tell it?
