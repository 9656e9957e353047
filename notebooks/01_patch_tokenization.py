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
# # 01 · Patch tokenization
#
# A transformer works on a *sequence of tokens*. A Vision Transformer (ViT) makes that sequence from an image in
# the simplest way there is: it cuts the image into square patches, flattens each patch into a vector, and
# projects every vector to the model's token length.
#
# **Learning goals.** After this notebook you can
# 1. compute how many patches an image makes and how long each token is,
# 2. cut the picture into patches and flatten them by hand, in the same order as `nn.Unfold`,
# 3. explain why "Unfold + Linear" and a strided `Conv2d` are the same operation,
# 4. use `vitcourse.tokens.PatchTokenizer` and read its shapes.

# %%
import matplotlib.pyplot as plt
import torch
from IPython.display import display
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
B, C, H, W = image.shape
print(f"image batch: B={B}, C={C}, H={H}, W={W}")

# %% [markdown]
# ## How many patches?
#
# An image $x \in \mathbb{R}^{H \times W \times C}$ cut into patches of $P \times P$ pixels gives
#
# $$N = \frac{H\,W}{P^2}$$
#
# patches, provided $P$ divides both $H$ and $W$. Each patch flattens into a token of length $P^2 C$, so the image
# becomes a matrix $x_p \in \mathbb{R}^{N \times (P^2 C)}$.

# %%
P = 20
rows, cols = H // P, W // P
N = H * W // P**2
print(f"P = {P} divides H = {H} and W = {W}: {H % P == 0 and W % P == 0}")
print(f"{rows} rows x {cols} columns = N = {N} patches, each a token of length P^2 * C = {P * P * C}")

# %%
fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"The picture cut into {N} patches of {P} x {P}")
plots.draw_patch_grid(ax, H, W, P)
plt.show()

# %% [markdown]
# Patches are numbered row by row, from 1 in the top-left corner to 15 in the bottom-right. Patch 12 is in the
# third row, second column: rows 40–60 and columns 20–40 of the picture. We follow it into a token.
#
# ## One patch, one token, by hand

# %%
number = 12
r, c = divmod(number - 1, cols)  # patch row and column, counted from 0
patch = image[0, 0, r * P : (r + 1) * P, c * P : (c + 1) * P]  # (P, P)
token = patch.reshape(-1)  # (P*P,): row after row of the patch
print(
    f"patch {number}: rows {r * P}-{(r + 1) * P}, columns {c * P}-{(c + 1) * P}, shape {tuple(patch.shape)}"
)
print(f"its token: shape {tuple(token.shape)}, {len(token.unique())} different values")

# %%
fig = plt.figure(figsize=(10, 3.2))
ax_patch = fig.add_axes([0.05, 0.3, 0.22, 0.62])
plots.show_picture(patch, ax=ax_patch, title=f"patch {number}", colorbar=False)
ax_patch.set_xticks(range(0, P + 1, 5))
ax_patch.set_yticks(range(0, P + 1, 5))
ax_strip = fig.add_axes([0.35, 0.45, 0.6, 0.25])
plots.show_token_strip(
    token, ax=ax_strip, title=f"patch {number} flattened: a token of length {token.numel()}"
)
for k in range(1, P):
    ax_strip.axvline(k * P - 0.5, color="w", lw=0.4)  # where one row of the patch ends
plt.show()

# %% [markdown]
# The white lines in the strip mark where one row of the patch ends and the next begins: the token is the patch
# read like a book, 20 pixels at a time.
#
# ## All fifteen tokens
#
# Cutting every patch the same way gives the token matrix, one row per patch. With tensors this is one reshape
# and one permute: split each side into (patches, pixels in the patch), bring the two patch axes to the front,
# and flatten.

# %%
x = image.reshape(B, C, rows, P, cols, P)  # (B, C, rows, P, cols, P)
x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, P, P)
by_hand = x.reshape(B, rows * cols, C * P * P)  # (B, N, C*P*P)
print(f"tokens by hand: {tuple(by_hand.shape)}")

with_unfold = tokens.patchify(image, P)  # nn.Unfold inside
print(
    f"vitcourse.tokens.patchify: {tuple(with_unfold.shape)}, equal to ours: {torch.equal(by_hand, with_unfold)}"
)
assert torch.equal(by_hand, with_unfold)
assert torch.equal(by_hand[0, number - 1], token)

# %%
fig, ax = plt.subplots(figsize=(10, 3.5))
plots.show_matrix(
    by_hand[0],
    ax=ax,
    title=f"The token matrix: {N} tokens x {P * P * C} values",
    xlabel="position in the token",
    ylabel="token index (patch number - 1)",
    vmin=0,
    vmax=1,
)
plt.show()

# %% [markdown]
# ## Projecting the tokens
#
# A token of 400 raw pixels is not yet what a transformer uses. A learned linear map
# $E \in \mathbb{R}^{(P^2 C) \times D}$ (plus a bias) projects every token to the model's length $D$; ViT-Base
# uses $D = 768$. `vitcourse.tokens.PatchTokenizer` does both steps, split then project; here they are one at a
# time.

# %%
D = 768
tokenizer = tokens.PatchTokenizer((H, W), patch_size=P, in_chans=C, embed_dim=D).to(device)
print(tokenizer)
img = image.to(device)
split = tokenizer.split(img)  # (B, N, C*P*P)
projected = tokenizer.proj(split)  # (B, N, D)
print(f"step 1, split:   {tuple(img.shape)} -> {tuple(split.shape)}")
print(f"step 2, project: {tuple(split.shape)} -> {tuple(projected.shape)}")
assert torch.equal(tokenizer(img), projected)
print(f"learned weights: {P * P * C} x {D} + {D} = {sum(p.numel() for p in tokenizer.parameters()):,}")

# %% [markdown]
# ## Unfold + Linear is a strided convolution
#
# A `Conv2d` with `kernel_size = stride = P` looks at each patch exactly once and computes, for each of its $D$
# filters, a weighted sum of the patch's pixels plus a bias: the same dot products as the linear map above. With
# the convolution's weights set to the linear weights reshaped to (D, C, P, P) the two give the same tokens.
# This is how most libraries (and the lecture slides) write the patch embedding.

# %%
conv = nn.Conv2d(C, D, kernel_size=P, stride=P).to(device)
with torch.no_grad():
    conv.weight.copy_(tokenizer.proj.weight.reshape(D, C, P, P))
    conv.bias.copy_(tokenizer.proj.bias)
    feature_map = conv(img)  # (B, D, rows, cols)
    from_conv = feature_map.flatten(2).transpose(1, 2)  # (B, N, D)
    same = torch.allclose(from_conv, tokenizer(img), atol=1e-5)
print(f"conv output {tuple(feature_map.shape)} -> flatten -> {tuple(from_conv.shape)}")
print(f"equal to Unfold + Linear (within 1e-5): {same}")
assert same

# %% [markdown]
# The lecture-slide example: a 224 × 224 RGB image and 16 × 16 patches give a 768 × 14 × 14 feature map, which
# flattens into 196 tokens of length 768.

# %%
rgb = torch.rand(1, 3, 224, 224, device=device)
slides_conv = nn.Conv2d(3, 768, kernel_size=16, stride=16).to(device)
with torch.no_grad():
    fmap = slides_conv(rgb)
print(
    f"{tuple(rgb.shape[1:])} -> Conv2d -> {list(fmap.shape[1:])} -> flatten -> {list(fmap.flatten(2).transpose(1, 2).shape[1:])}"
)
print(f"count_tokens: {tokens.count_tokens(224, 224, 16, 16, 0)}")

# %% [markdown]
# ## Play: choose the patch size
#
# Only patch sizes that divide both 60 and 100 are allowed; the list below is computed, not typed. Pick one in
# the drop-down (it needs a running kernel) and watch the grid, the token count and the token matrix change.
# Small patches make many short tokens, large patches few long ones.

# %%
sizes = widgets.valid_patch_sizes(H, W)
print(f"patch sizes that divide {H} and {W}: {sizes}")

# %%
# NBVAL_IGNORE_OUTPUT
# (the widget's picture and text live in the widget; the next cell checks every setting it offers)
display(widgets.patch_explorer(picture))

# %%
for size in sizes:
    fig, summary = widgets.patch_view(picture, size)
    plt.close(fig)
    count = tokens.count_tokens(H, W, size, size, 0)
    assert summary.startswith(f"P = {size}: {count.rows} x {count.cols} = {count.total} tokens")
    print(summary)
print(widgets.patch_view(picture, 7)[1])

# %% [markdown]
# ## Exercises
#
# Each exercise has a solution cell (collapsed: click the three dots to open it) and a check that prints ✓ or a
# hint. Write your own answer in place of the solution first.
#
# **Exercise 1 (easy).** How many tokens does the picture make with 10 × 10 patches?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_patches = None  # replace None with your answer
### BEGIN SOLUTION
answer_patches = (60 // 10) * (100 // 10)
### END SOLUTION

# %%
check.patch_count(answer_patches)

# %% [markdown]
# **Exercise 2 (easy).** ViT-Base cuts 224 × 224 RGB images into 16 × 16 patches. How long is one token before
# the projection?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_length = None  # replace None with your answer
### BEGIN SOLUTION
answer_length = 3 * 16 * 16
### END SOLUTION

# %%
check.token_length(answer_length)

# %% [markdown]
# **Exercise 3 (medium).** With $P = 20$, which patch number holds the pixel at row 45, column 30?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_number = None  # replace None with your answer
### BEGIN SOLUTION
answer_number = (45 // 20) * (100 // 20) + 30 // 20 + 1
### END SOLUTION

# %%
check.patch_number(answer_number)


# %% [markdown]
# **Exercise 4 (coding).** Write `my_patchify(images, p)` that turns a (B, C, H, W) batch into (B, N, C·p·p)
# tokens *with reshape and permute only* (no `nn.Unfold`), in the same order as `vitcourse.tokens.patchify`. The
# check tries it on four shapes, with one and three channels.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_patchify(images: torch.Tensor, p: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p)  # (B, C, rows, p, cols, p)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, p, p)
    return x.reshape(b, (h // p) * (w // p), c * p * p)  # (B, N, C*p*p)
    ### END SOLUTION


print(f"my_patchify(image, 20): {tuple(my_patchify(image, 20).shape)}")

# %%
check.patchify_function(my_patchify)

# %% [markdown]
# ## Summary
#
# - A ViT cuts an $H \times W$ image into $N = HW/P^2$ patches; each flattens into a token of length $P^2C$.
# - On the picture, $P = 20$ gives 15 tokens of length 400, projected to (1, 15, 768).
# - `nn.Unfold` + `nn.Linear` and `nn.Conv2d(kernel_size=P, stride=P)` compute the same tokens.
# - Patches do not overlap: a pixel belongs to exactly one token, and an edge between two patches is cut in two.
#
# **Next:** [02 Soft split](02_soft_split.ipynb) lets the windows overlap, the first idea of Tokens-to-Token.
