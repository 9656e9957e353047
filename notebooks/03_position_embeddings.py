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
# # 03 · Position embeddings
#
# After patch tokenization the picture is a list of 15 tokens. Attention, the heart of a transformer, compares
# every token with every other, but it has no notion of *where* a token came from: shuffle the tokens and it
# computes the same things in shuffled order. A **position embedding**, one vector per token slot added to the
# tokens, gives the model the missing information.
#
# **Learning goals.** After this notebook you can
# 1. show that attention is permutation-equivariant, and what that means for a model's prediction,
# 2. compute the sinusoidal position table from its formula, by hand and vectorised,
# 3. explain what a learned position embedding is and how it starts out,
# 4. say what the ViT and T2T papers found about the kinds of position embedding.

# %%
import math

import matplotlib.pyplot as plt
import torch

import vitcourse
from vitcourse import check, load_mountains, plots, position, tokens
from vitcourse.attention import Attention
from vitcourse.models import VisionTransformer

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
P = 20
grid = tokens.count_tokens(H, W, P, P, 0)
print(f"picture {H} x {W}, patches of {P}: {grid.rows} x {grid.cols} = {grid.total} tokens")

# %% [markdown]
# ## The picture with its patches scrambled
#
# Take the 15 patch tokens, shuffle their order with a fixed seed, and put them back on the grid in the new order.
# To a person the result is obviously broken. The labels show which original patch landed where.

# %%
patches = tokens.patchify(image, P)  # (1, N, P*P)
perm = torch.randperm(grid.total, generator=torch.Generator().manual_seed(3))
scrambled = tokens.unsplit(patches[:, perm], H, W, P, P, 0)  # (1, 1, H, W): token i of it is patch perm[i]
print("original patch now in each place:", (perm + 1).tolist())

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 3.6))
plots.show_picture(picture, ax=ax1, title="original", colorbar=False)
plots.draw_patch_grid(ax1, H, W, P)
plots.show_picture(scrambled[0, 0], ax=ax2, title="patches scrambled (seed 3)")
plots.draw_patch_grid(ax2, H, W, P, numbers=(perm + 1).tolist())
plt.show()

# %% [markdown]
# ## Attention does not see order
#
# Single-head attention without learned weights, on 4 tokens of length 9 (random integers from 1 to 19) used as
# queries, keys and values: $\text{out} = \text{softmax}(QK^\top / \sqrt{9})\,V$. Swap tokens 0 and 2 and
# compare. With whole numbers the score matrix $QK^\top$ is exact, so the swap can be seen entry by entry.

# %%
x = torch.randint(1, 20, (4, 9), generator=torch.Generator().manual_seed(1)).float()  # (tokens, length)
swap = [2, 1, 0, 3]  # tokens 0 and 2 trade places
x_swapped = x[swap]

scores = x @ x.T  # (4, 4) = Q K^T with Q = K = x
scores_swapped = x_swapped @ x_swapped.T
print("tokens:\n", x.int())
print("QK^T:\n", scores.int())
print("QK^T after swapping tokens 0 and 2:\n", scores_swapped.int())
assert torch.equal(scores_swapped, scores[swap][:, swap])
print("= QK^T with rows 0 and 2 swapped and columns 0 and 2 swapped")

# %%
out = torch.softmax(scores / math.sqrt(9), dim=-1) @ x  # (4, 9)
out_swapped = torch.softmax(scores_swapped / math.sqrt(9), dim=-1) @ x_swapped
print("output rows, rounded:\n", out.round(decimals=2))
print("after the swap:\n", out_swapped.round(decimals=2))
assert torch.allclose(out_swapped, out[swap])
print("= the same rows, with rows 0 and 2 swapped: attention is permutation-equivariant")

# %% [markdown]
# The same holds for the package's attention with random learned weights and four heads (checked, not printed):

# %%
attention = Attention(9, 12, num_heads=4).eval()
with torch.no_grad():
    y = attention(x[None])  # (1, 4, 12)
    y_swapped = attention(x_swapped[None])
assert torch.allclose(y_swapped, y[:, swap], atol=1e-5)
print(
    f"vitcourse Attention(9 -> 12, 4 heads): output rows follow the tokens: {torch.allclose(y_swapped, y[:, swap], atol=1e-5)}"
)

# %% [markdown]
# ### What it means for a whole model
#
# A ViT reads its prediction from an extra *prediction token* that attends to all patch tokens. Every other step
# (layer norm, MLP) acts on each token alone. So without a position embedding, shuffling the patches shuffles the
# patch tokens' outputs but leaves the prediction token's output exactly as it was: the model gives **the same
# prediction for the picture and for its scrambled version**. Here is a small `vitcourse` ViT with random
# weights, without and then with a learned position embedding (all other weights the same):

# %%
torch.manual_seed(0)
settings = dict(img_size=(H, W), patch_size=P, in_chans=C, num_classes=1, embed_dim=64, depth=2, num_heads=4)
blind = VisionTransformer(pos_embed="none", **settings).to(device).eval()
seeing = VisionTransformer(pos_embed="learned", **settings).to(device).eval()
seeing.load_state_dict(blind.state_dict(), strict=False)  # same weights; only pos_embed is new
with torch.no_grad():
    both = torch.cat([image, scrambled]).to(device)  # (2, 1, H, W)
    blind_out = blind(both).cpu()  # (2, 1)
    seeing_out = seeing(both).cpu()
blind_same = torch.allclose(blind_out[0], blind_out[1], rtol=0, atol=1e-6)
seeing_same = torch.allclose(seeing_out[0], seeing_out[1], rtol=0, atol=1e-6)
print(f"no position embedding:      same prediction for both pictures: {blind_same}")
print(f"learned position embedding: same prediction for both pictures: {seeing_same}")
assert blind_same and not seeing_same


# %% [markdown]
# ## The sinusoidal table
#
# The original Transformer, and T2T-ViT after it, use a fixed table. For token slot $i$ and entry $j$ of a token
# of length $d$:
#
# $$PE_{i, j} = \begin{cases} \sin\left(i \,/\, 10000^{2\lfloor j/2 \rfloor / d}\right) & j \text{ even} \\
# \cos\left(i \,/\, 10000^{2\lfloor j/2 \rfloor / d}\right) & j \text{ odd} \end{cases}$$
#
# Each pair of columns is a sine and a cosine of the same frequency; frequencies fall from 1 (the first pair)
# towards $1/10000$ (the last). Every value lies in $[-1, 1]$. First by hand, one entry at a time:


# %%
def table_by_hand(n: int, d: int) -> torch.Tensor:
    pe = torch.zeros(n, d)
    for i in range(n):
        for j in range(d):
            angle = i / 10000 ** (2 * (j // 2) / d)
            pe[i, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


small = table_by_hand(grid.total, P * P)  # (15, 400): one row per patch token
vectorised = position.sinusoidal_table(grid.total, P * P)
print(
    f"by hand {tuple(small.shape)}, vitcourse {tuple(vectorised.shape)}, equal within 1e-6: {torch.allclose(small, vectorised, atol=1e-6)}"
)
assert torch.allclose(small, vectorised, atol=1e-6)

# %% [markdown]
# The package computes the table without a loop: one column of positions times one row of frequencies, then
# sine on even columns and cosine on odd ones. For a ViT-Base-sized model with 175 patches plus the prediction
# token the table is 176 × 768. A diverging colormap centred on 0 shows the signs; the zoom on the first 300
# columns shows the fast waves.

# %%
table = position.sinusoidal_table(176, 768)
print(f"table {tuple(table.shape)}, values from {table.min():.3f} to {table.max():.3f}")
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4))
plots.show_matrix(
    table,
    ax=ax1,
    title="sinusoidal table 176 x 768",
    xlabel="entry j of the token",
    ylabel="token slot i",
    cmap="RdBu_r",
    vmin=-1,
    vmax=1,
)
plots.show_matrix(
    table[:, :300],
    ax=ax2,
    title="zoom: first 300 entries",
    xlabel="entry j of the token",
    ylabel="token slot i",
    cmap="RdBu_r",
    vmin=-1,
    vmax=1,
)
fig.tight_layout()
plt.show()
assert table.min() >= -1 and table.max() <= 1

# %% [markdown]
# ### Adding the table to the picture's tokens
#
# The position embedding is *added*, entry by entry, to the tokens: token $i$ becomes token $i$ + row $i$ of the
# table. Here the 15 × 400 table goes onto the picture's raw tokens (in a model it goes onto the projected
# tokens of length $D$, plus a row for the prediction token).

# %%
raw = patches[0]  # (15, 400)
with_position = raw + vectorised  # (15, 400)
print(f"tokens {tuple(raw.shape)} + table {tuple(vectorised.shape)} -> {tuple(with_position.shape)}")
low, high = float(with_position.min()), float(with_position.max())
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 3.4))
plots.show_matrix(
    raw,
    ax=ax1,
    title="patch tokens",
    xlabel="position in the token",
    ylabel="token index",
    vmin=-1,
    vmax=2,
    cmap="RdBu_r",
)
plots.show_matrix(
    with_position,
    ax=ax2,
    title="patch tokens + sinusoidal table",
    xlabel="position in the token",
    ylabel="token index",
    vmin=-1,
    vmax=2,
    cmap="RdBu_r",
)
fig.tight_layout()
plt.show()
print(
    f"after adding, values run from {low:.2f} to {high:.2f}: every token now carries its slot's wave pattern"
)

# %% [markdown]
# ## Learned position embeddings
#
# ViT does not fix the table: it makes it a parameter of shape (1, N + 1, D) and learns it with everything else.
# It starts as small random numbers, drawn from a normal distribution with standard deviation 0.02 and truncated
# at two standard deviations. Before training, the vectors of different slots point in unrelated directions: their
# cosine similarities are close to 0, except each slot with itself (1). Each small map below is one patch's
# similarity with every patch, drawn in that patch's place on the grid.

# %%
torch.manual_seed(0)
learned = position.learned_position_embedding(grid.total + 1, 768)  # (1, 16, 768)
print(
    f"learned embedding {tuple(learned.shape)}, std {learned.std().item():.4f}, largest |value| {learned.abs().max().item():.4f}"
)
sims = position.cosine_similarity_grid(learned, grid.rows, grid.cols)  # (3, 5, 3, 5)
off_diagonal = sims.reshape(grid.total, grid.total)[~torch.eye(grid.total, dtype=torch.bool)]
print(
    f"cosine similarity between different slots: mean {off_diagonal.mean():.3f}, largest |value| {off_diagonal.abs().max():.3f}"
)
assert off_diagonal.abs().max() < 0.2
plots.show_similarity_grid(
    sims, title="learned position embedding before training: cosine similarity of each patch with all"
)
plt.show()

# %% [markdown]
# After training, the same grid shows structure: patches in the same row or column end up with similar vectors,
# the model has learned the 2-D layout from data. Notebook 07 trains a small ViT and draws this grid again.
#
# ## What the papers found
#
# - The **ViT paper** compared no position embedding with 1-D learned, 2-D learned and relative embeddings.
#   Any of them was far better than none, and the differences between the kinds were small: at the patch
#   resolution ViT works at, it is easy to learn where a patch sits whichever way the position is given.
# - **T2T-ViT** uses the fixed sinusoidal table (stored but not trained), so the table costs no learned
#   parameters.
# - Trained ViTs' learned embeddings show row and column structure in their cosine-similarity grid: the model
#   discovers the 2-D grid from 1-D slots.
#
# ## Exercises
#
# **Exercise 1 (easy).** Compute $PE_{3, 5}$ of the sinusoidal table for $d = 400$ with `math`, by the formula.

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_entry = None  # replace None with your number
### BEGIN SOLUTION
answer_entry = math.cos(3 / 10000 ** (2 * (5 // 2) / 400))
### END SOLUTION

# %%
check.sinusoidal_entry(answer_entry)


# %% [markdown]
# **Exercise 2 (coding).** Write `my_table(n, d)`, the sinusoidal table, *without* a Python loop over entries
# (use `torch.arange` and broadcasting). The check compares it with the package on five sizes, odd $d$ included.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_table(n: int, d: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d)  # (d,)
    angle = i / 10000 ** (2 * (j // 2) / d)  # (n, d)
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()
    ### END SOLUTION


print(f"my_table(15, 400): {tuple(my_table(15, 400).shape)}")

# %%
check.sinusoidal_function(my_table)

# %% [markdown]
# **Exercise 3 (thinking).** In the 4-token demo above, tokens 0 and 2 were swapped. Row $r$ of the new output
# equals row `answer[r]` of the old output. Give `answer` as a list of four row numbers.

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_rows = None  # replace None with a list of 4 row numbers
### BEGIN SOLUTION
answer_rows = [2, 1, 0, 3]
### END SOLUTION

# %%
check.scrambled_rows(answer_rows)

# %% [markdown]
# ## Summary
#
# - Attention is permutation-equivariant: swapping tokens swaps rows and columns of $QK^\top$ and rows of the
#   output. A model that reads a prediction token is then blind to the order of the patches.
# - A position embedding, added to the tokens, fixes that: sinusoidal (fixed, T2T-ViT) or learned (ViT,
#   truncated normal with std 0.02 at the start).
# - Which kind matters little; having one matters a lot.
#
# **Next:** [04 Attention](04_attention.ipynb) builds single-head and multi-head attention step by step.
