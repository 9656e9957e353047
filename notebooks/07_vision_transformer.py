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
# # 07 · The whole Vision Transformer
#
# **Time:** about 60 minutes
#
# **Before this:** [notebook 06](06_encoder_block.ipynb), which builds the tokens and the encoder block.
#
# Notebook 06 built the first two of ViT's three steps: token processing and the encoder blocks. This notebook
# adds the third, prediction processing, runs the whole model on the picture, and counts what it costs.
#
# By the end you can
# 1. turn the last block's tokens into a prediction, with the prediction token or with mean pooling, and find
#    the bug in someone else's pooling,
# 2. run the whole ViT on the picture, follow the shape at every step, and read from a figure what each step
#    does to the tokens,
# 3. say how a fresh ViT's weights start, and predict what a fresh block's attention does with a prediction
#    token whose entries are all equal,
# 4. count what one encoder block costs, and say when attention's $N^2$ products outweigh its linear layers.

# %%
import copy

import matplotlib.pyplot as plt
import torch
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots
from vitcourse.blocks import EncoderBlock
from vitcourse.cost import count_macs
from vitcourse.models import VisionTransformer, count_parameters, create_model

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)
# notebook 06's picture model: D = 64, 2 blocks of 4 heads, MLP ratio 4, 15 patches of 20 x 20, one output
vit = VisionTransformer(embed_dim=64, depth=2, num_heads=4).to(device).eval()

# %% [markdown]
# ## 1. Prediction processing (14 min)
#
# After the last block come a final layer norm, equation (4), and an output layer on token 0 only. The paper
# calls that layer the *head* (not an attention head). The code normalises every token, the paper only
# $\mathbf z_L^0$; LayerNorm works on each token alone, so the two agree on token 0. The output layer has one
# output per thing to predict: one number for the article series, 1000 for a classifier of 1000 classes.
#
# This section keeps notebook 06's walk-through sizes: N = 175 patches, so 176 tokens of length D = 768. Random
# numbers stand in for the tokens, row 0 for the prediction token; one block of 12 heads; a batch of 2.

# %%
batch, n_patches, D = 2, 175, 768
tokens_in = torch.randn(batch, n_patches + 1, D, generator=torch.Generator().manual_seed(1)).to(device)
block = EncoderBlock(D, num_heads=12, mlp_ratio=4.0).to(device).eval()
norm = nn.LayerNorm(D, eps=1e-6).to(device)
with torch.no_grad():
    z_out = block(tokens_in)  # (B, N + 1, D): the last block's output
    features = norm(z_out)  # (B, N + 1, D)
    pred_token = features[:, 0]  # (2, D): y of equation (4)
    single = nn.Linear(D, 1).to(device)(pred_token)  # (2, 1)
    classes = nn.Linear(D, 1000).to(device)(pred_token)  # (2, 1000)
print(f"norm {tuple(features.shape)} -> token 0 {tuple(pred_token.shape)}")
print(f"-> output layer: {tuple(single.shape)} (one value) or {tuple(classes.shape)} (1000 classes)")

# %% [markdown]
# The ViT paper's head sometimes has a hidden layer ([the paper's two heads](#Evidence:-the-paper's-two-heads)).
#
# The other common readout is **mean pooling**: the output layer reads the average of the patch tokens instead
# of token 0. Here the average skips the prediction token; the paper's mean-pooling models have none. Its
# Appendix D.3 found both ways about equally good once each was trained with its own step size (notebook 10).

# %% [markdown]
# ### Exercise 1 (find the bug)
#
# This mean pooling takes the final features (B, N + 1, D), laid out as above, and returns (B, D). It runs and
# gives the right shape, but its numbers are wrong. Find the bug, change as little as you can, and save the
# corrected version as `my_mean_pool`. Then, for section 1's `features` (N = 175): by what factor is every
# number of the buggy result off, buggy divided by right? Set `answer_pool_factor` to it, exactly.
#
# ```python
# def buggy_mean_pool(features: torch.Tensor) -> torch.Tensor:
#     return features[:, 1:].sum(dim=1) / features.shape[1]  # (B, D)
# ```


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "mean_pool_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_mean_pool(features: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    # The bug: the sum runs over the N patch tokens, but it is divided by N + 1, the count with token 0.
    return features[:, 1:].mean(dim=1)  # (B, D): the patch tokens only, averaged over the tokens
    ### END SOLUTION


answer_pool_factor = None  # replace None with a number
### BEGIN SOLUTION
# buggy / right = (sum / (N + 1)) / (sum / N) = N / (N + 1) = 175 / 176, whatever the features hold.
answer_pool_factor = 175 / 176
### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "mean_pool_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.mean_pool_function(my_mean_pool)
check.mean_pool_factor(answer_pool_factor)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "mean_pool_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.mean_pool_function, my_mean_pool)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "mean_pool_factor-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.mean_pool_factor, answer_pool_factor)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The given function sums the N patch tokens but divides by `features.shape[1]`, which is N + 1: it counts
# token 0 too. So every number is off by the same factor, N / (N + 1), whatever the features hold.

# %% [markdown]
# ## 2. The whole ViT on the picture (18 min)
#
# `vit`, notebook 06's picture model, computes equations (1) to (4) and then the head. The cell runs it on the
# picture one step at a time:
#
# | method | what it returns |
# |---|---|
# | `vit.patch_embed.split(image)` | the $N$ flattened patches $\mathbf x_p$ |
# | `vit.tokenize(image)` | the patch tokens $\mathbf x_p \mathbf E$ |
# | `vit.embed(image)` | $\mathbf z_0$ of equation (1): the prediction token in front, positions added |
# | `vit.forward_features(image)` | the blocks, equations (2) and (3), then the final norm of (4) on every token |
# | `vit(image)` | the output layer on token 0 of those: the prediction |

# %%
with torch.no_grad():
    patches = vit.patch_embed.split(image)  # (1, N, P*P*C)
    patch_tokens = vit.tokenize(image)  # (1, N, D)
    embedded = vit.embed(image)  # (1, N + 1, D): equation (1)
    feats = vit.forward_features(image)  # (1, N + 1, D): the blocks, then the final norm on every token
    prediction = vit(image)  # (1, 1)
print(f"picture {tuple(image.shape)} -> patches {tuple(patches.shape)} -> tokens {tuple(patch_tokens.shape)}")
print(f"-> with prediction token and positions {tuple(embedded.shape)}")
print(
    f"-> {len(vit.blocks)} blocks and the final norm {tuple(feats.shape)} -> output {tuple(prediction.shape)}"
)
total, trainable = count_parameters(vit)
print(f"parameters: {total:,} (all trainable: {total == trainable})")
assert prediction.shape == (1, 1) and torch.isfinite(prediction).all()

# %% [markdown]
# The figure draws each step's tensor: one row per patch or token, one column per entry. Row $i$ of the
# patches panel is patch $i$, its 400 pixels read row by row: entries 0 to 19 are its top pixel row, 20 to 39
# the next, and so on. Row 2 shows it: the moon's white blocks repeat every 20 entries. The token panels use a
# red-blue scale centred at 0, each on its own range: compare rows within a panel, not across panels. From
# equation (1) on, row 0 is the prediction token and row $i$ holds patch $i - 1$.

# %% mystnb={"image": {"alt": "Two rows of panels. Top: the picture with its 3 by 5 patch grid drawn on it, patches numbered 0 to 14, and its 15 patches as a 15 by 400 matrix of pixel values in the picture's purple scale. Bottom: the 15 tokens of length 64, the 16 tokens with the prediction token and the positions, and the 16 tokens after the two blocks and the final norm, each on a red-blue scale centred at 0 and titled with its shape"}}
token_steps = {  # name -> (tokens, what a row is)
    "tokens": (patch_tokens[0], "patch"),
    "+ prediction token and positions: eq. (1)": (embedded[0], "token"),
    "after the blocks and the final norm": (feats[0], "token"),
}
title = "One picture through the untrained picture model, step by step"
plots.show_token_steps(picture, patches[0], token_steps, vit.patch_embed.patch_size, title=title)
plt.show()

# %% [markdown]
# ### Exercise 2 (read a figure)
#
# A token's **size** is $\lVert \mathbf z \rVert$, the square root of the sum of its squared entries (its
# *length* is still its number of entries, $D$). Within one panel, a vivid row is a large token. Answer from
# the figure and from what each step computes.
#
# - (a) Which patch gives the largest patch token $\mathbf x_p \mathbf E$? Give its number as the picture
#   panel labels it, and be ready to say why: no pixel is negative. Set `answer_largest_patch`.
# - (b) Row 0, the prediction token, is faint in the middle panel and vivid in the right one. What is its size
#   there, after the blocks and a fresh final norm (scale 1, shift 0; D = 64)? Set `answer_final_size`.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "largest_token_patch-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_largest_patch = None  # replace None with a whole number
answer_final_size = None  # replace None with a number
### BEGIN SOLUTION
# (a) No pixel is negative, so every token x_p E holds the patch's mean brightness times one shared vector (the
# sum of E's rows), plus a smaller part that differs. The brightest patch, the pale mountain face, gives the
# largest token: patch 5.
answer_largest_patch = 5
# (b) The final norm gives every token entries of mean 0 and spread 1 (scale 1, shift 0), so the sum of the
# squared entries is D = 64 and the size is its square root, 8, whatever the token was before.
answer_final_size = 64**0.5
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "largest_token_patch-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.largest_token_patch(answer_largest_patch)
check.final_norm_token_size(answer_final_size)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "largest_token_patch-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.largest_token_patch, answer_largest_patch)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "final_norm_token_size-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.final_norm_token_size, answer_final_size)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2


# %%
with torch.no_grad():
    own_mean_removed = patches[0] - patches[0].mean(dim=-1, keepdim=True)  # (N, P*P*C): each patch's own mean
    centred_tokens = vit.patch_embed.proj(own_mean_removed)  # (N, D)
    leaving = embedded
    for blk in vit.blocks:
        leaving = blk(leaving)  # (1, N + 1, D): what leaves the last block, before the final norm
cosine = nn.functional.cosine_similarity
different = ~torch.eye(vit.num_patches, dtype=torch.bool)  # (N, N): the pairs of two different tokens
for name, t in (("the raw pixels", patch_tokens[0]), ("each patch's own mean removed", centred_tokens)):
    pairs = cosine(t[:, None], t[None], dim=-1)  # (N, N)
    print(f"mean cosine between two different patch tokens, {name}: {pairs[different].mean():.2f}")
kept = cosine(leaving[0], embedded[0], dim=-1)  # (N + 1,): each token's direction, in against out
moved = (leaving[0] - embedded[0]).norm(dim=-1) / embedded[0].norm(dim=-1)  # (N + 1,)
rows = {
    "token": range(embedded.shape[1]),
    "patch (token - 1)": ["-", *range(vit.num_patches)],
    "patch mean brightness": ["-", *patches[0].mean(dim=-1).tolist()],
    "size entering block 0": embedded[0].norm(dim=-1).tolist(),
    "blocks: change / size": moved.tolist(),
    "blocks: cosine in, out": kept.tolist(),
    "size after final norm": feats[0].norm(dim=-1).tolist(),
}
for label, cells in rows.items():
    print(f"{label:23s}" + "".join(f"{x:5.2f}" if isinstance(x, float) else f"{x:>5}" for x in cells))
print(f"sqrt(D) = {vit.embed_dim**0.5:.0f}")
assert kept[1:].min() > 0.79 and moved[0] > 1 > moved[1:].max()  # what point 3 says

# %% [markdown]
# Three things to see.
#
# **1. The patch tokens point in nearly the same direction.** The bottom-left panel shows vertical stripes, and
# the mean cosine between two different tokens is high. The reason: no pixel is negative. So every patch has a
# large positive mean, and every token $\mathbf x_p \mathbf E$ holds that mean times one shared vector, the sum
# of $\mathbf E$'s rows. Remove each patch's own mean first, and the mean cosine falls near 0.
#
# **2. Their sizes follow the patches' brightness, roughly.** In the table token $i$ holds patch $i - 1$.
# Patch 5, the brightest, gives the largest token; patch 14, the darkest, the smallest. The prediction token
# starts from small random values, so row 0 of the middle panel is faint.
#
# **3. The blocks rebuild token 0; the final norm evens the sizes.** Two fresh blocks keep each patch token's
# direction (cosine with its start 0.8 or more). Token 0 changes by more than its own size: attention adds to it
# a mix of the patch tokens' values. That is how the picture reaches the token the head reads. Then the final
# norm, with scale 1 and shift 0, gives every token entries of mean 0 and spread 1, so every size becomes
# $\sqrt D$. In the last panel row 0 is as vivid as the others, and the stripes are still there.
#
# The prediction, `vit(image)`'s one number, comes from fresh weights: it means nothing yet. Training
# (notebook 10) gives the weights their meaning.

# %% [markdown]
# ## 3. How a fresh ViT starts (13 min)
#
# A fresh `VisionTransformer` starts every linear layer's weights from a normal distribution with standard
# deviation 0.02, cut at ±0.04 (the cut leaves a std of about 0.0176, as notebook 03 measures), and every bias
# at 0. Every LayerNorm starts with scale 1 and shift 0: it still normalises, and only its scale-and-shift part
# does nothing yet. The prediction token and the position embedding start from the same cut normal. Why 0.02:
# [how the weights start](#Evidence:-how-the-weights-start).

# %% [markdown]
# ### Exercise 3 (predict)
#
# Take a fresh picture model with D = 64 and 4 heads, and set every entry of its prediction token to 1. Build
# it with `pos_embed="none"`, so that no position embedding is added: token 0 then enters block 0 as exactly
# 64 ones. Work it out from the starting values above, step by step through block 0, before you run anything:
# in block 0, head 0, what attention weight does the prediction token's query give to token 12, which holds
# patch 11? Set `answer_constant_token`, and be ready to say what each step made of token 0.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "constant_token_attention-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_constant_token = None  # replace None with a number
### BEGIN SOLUTION
# LayerNorm subtracts the token's mean, 1, which leaves all zeros; the output is the shift beta = 0. With zero
# qkv biases the query is 0, so every score is 0 and the softmax spreads the weight evenly over all N + 1 = 16
# keys, the prediction token's own included.
answer_constant_token = 1 / (15 + 1)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "constant_token_attention-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.constant_token_attention(answer_constant_token)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "constant_token_attention-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.constant_token_attention, answer_constant_token)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# A token whose entries are all equal loses everything to its mean: minus the mean it is all zeros, its variance
# is 0, the $\epsilon$ inside LayerNorm's square root, `eps=1e-6`, keeps the division finite, and the output is
# the shift, 0. Here is Exercise 3's experiment, run on the picture and read along token 0's row.
# `vit.attention_weights(image, block=b)` returns block $b$'s attention weights, of shape (B, heads, N + 1, N + 1):

# %%
torch.manual_seed(0)
no_position = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").to(device).eval()
with torch.no_grad():
    no_position.cls_token.fill_(1.0)
    entering = no_position.embed(image)  # (1, N + 1, D): no position embedding is added
    normed = no_position.blocks[0].norm1(entering)  # (1, N + 1, D)
    q_k_v = no_position.blocks[0].attn.qkv(normed)  # (1, N + 1, 3D): q, k and v of every token
    row0 = no_position.attention_weights(image, block=0)[0, :, 0]  # (heads, N + 1): token 0's weights
    _, steps0 = no_position.blocks[0].attn.steps(normed)  # every intermediate of block 0's attention
    values = steps0.v.transpose(1, 2).reshape(normed.shape)  # (1, N + 1, D): the values, heads merged
    factor = steps0.merged[0, 0] / values[0, 1:].mean(dim=0)  # (D,): token 0's output over the patches' mean
print(f"token 0 entering block 0 is all ones: {bool((entering[0, 0] == 1).all())}")
print(f"after norm1 (its shift, 0): all zeros: {bool((normed[0, 0] == 0).all())}")
print(f"its q, k and v (the qkv bias, 0): all zeros: {bool((q_k_v[0, 0] == 0).all())}")
print(f"token 0's weights, head 0, tokens 0 to {row0.shape[1] - 1}:", [round(w, 4) for w in row0[0].tolist()])
print(f"the same in every head: {bool(torch.allclose(row0, row0[:1].expand_as(row0)))}")
print(f"token 0's output before proj / the patch tokens' mean value: {factor.mean():.4f} in every entry")
assert torch.allclose(factor, torch.full_like(factor, 15 / 16), rtol=1e-4)

# %% [markdown]
# A zero query scores 0 against every key, so the softmax spreads its weight evenly over the 16 keys. Token 0's
# own value is zero too, so its output is 1/16 of the 15 patch values' sum: 15/16 of their mean. A token of
# zeros would give the same; ViT's official code starts its class token at zero, and such a token still
# receives a gradient: [how the weights start](#Evidence:-how-the-weights-start).

# %% [markdown]
# ## 4. What a block costs (13 min)
#
# Notebook 05 counted the multiply-adds of one attention layer. An encoder block adds the MLP, with ViT's ratio
# of 4. **In this section $N$ counts the tokens a block sees, the prediction token included**, as notebook 05's
# count does: $N = 16$ for the picture's 15 patches, $N = 197$ for ViT-B/16's 196. Elsewhere in this notebook
# $N$ counts the patches. G stands for $10^9$.

# %% [markdown]
# ### Exercise 4 (predict: the share of attention's products)
#
# Attention is known for its $N^2$ cost: its two products, the scores $QK^\top$ and the weights times $V$, grow
# with the square of the number of tokens. ViT-B/16 on 224 × 224 images has N = 197 tokens, D = 768 and 12
# blocks at MLP ratio 4; its published cost is **17.6 G** multiply-adds (the T2T-ViT paper's comparison table).
#
# First write down a guess: do the two products take more than half of that, about a tenth, or less? Then list
# on paper each step of one block, with its multiply-adds on $N$ tokens of length $D$, as notebook 05 did for
# attention. A linear layer from length $a$ to length $b$ costs $a \cdot b$ per token.
#
# - (a) What share of one block's multiply-adds do the two products take, in per cent? Set `answer_share` (for
#   12.5 %, `12.5`). The patch embedding and the head add little, so the share of the 17.6 G is about the same.
# - (b) At how many tokens N would one block spend as much on the two products as on all its linear layers?
#   Set `answer_tie_tokens` to a whole number.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_share_percent-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_share = None  # replace None with a number, in per cent
answer_tie_tokens = None  # replace None with a whole number
### BEGIN SOLUTION
# (b) The linear layers cost 3ND² (qkv) + ND² (proj) + 8ND² (the MLP, D to 4D and back) = 12ND²; the two
# products cost 2N²D. They are equal when 2N²D = 12ND², that is N = 6D = 4608.
answer_tie_tokens = 6 * 768
# (a) The share of the products in a block is 2N²D / (12ND² + 2N²D) = 2N / (12D + 2N). With N = 197 and
# D = 768 that is 394 / 9610, 4.1 %: N is far below the tie of (b). The patch embedding and the head add a
# little, so the share of the whole model is about 4.1 % too.
answer_share = 100 * 2 * 197 / (12 * 768 + 2 * 197)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "attention_share_percent-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_share_percent(answer_share)
check.block_cost_tie_tokens(answer_tie_tokens)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_share_percent-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_share_percent, answer_share)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "block_cost_tie_tokens-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.block_cost_tie_tokens, answer_tie_tokens)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 4

# %% [markdown]
# One block's multiply-adds, or MACs, on $N$ tokens of length $D$:
#
# | step | multiply-adds |
# |---|---|
# | qkv: $D \to 3D$ for every token | $3ND^2$ |
# | scores $QK^\top$: every pair of tokens, a dot product of length $D$, all heads together | $N^2 D$ |
# | weights $\times V$: every token mixes $N$ values of length $D$ | $N^2 D$ |
# | proj: $D \to D$ | $ND^2$ |
# | MLP at ratio 4: $D \to 4D \to D$ | $8ND^2$ |
# | **one block, ratio 4** | $\mathbf{12ND^2 + 2N^2D}$ |
#
# So the products' share is $2N^2D / (12ND^2 + 2N^2D) = 2N / (12D + 2N)$, about 4 % at N = 197. They cost
# more than the linear layers once $2N^2D > 12ND^2$, that is once $N > 6D$: 4,608 tokens for ViT-B, far above
# its 197. With MLP ratio $r$ the MLP costs $2rND^2$: $8ND^2 + 2N^2D$ per block for the models trained from
# notebook 10 on ($r = 2$). Norms, GELU and softmax cost a few operations per entry and are left out.
# [Counting a block's cost](#Evidence:-counting-a-block's-cost) checks all this with the package's counter.

# %% [markdown]
# ## Summary
#
# - Prediction processing is a final LayerNorm and a linear head on token 0, or on the patch tokens' mean.
# - The whole ViT takes the picture (1, 1, 60, 100) to 15 patches, 16 tokens of length 64, two blocks that keep
#   that shape, and one output. The patch tokens share one direction, since no pixel is negative; the blocks
#   build token 0 from the patch tokens; the final norm gives every token the size $\sqrt D$.
# - A fresh ViT starts its linear weights at std 0.02 (before the cut), its biases at 0 and its LayerNorms at
#   scale 1, shift 0, so a fresh block's first steps can be worked out by hand.
# - One block costs $12ND^2 + 2N^2D$ multiply-adds at MLP ratio 4. At ViT-B/16's size the linear layers, the
#   MLP's included, cost far more than attention's two $N^2$ products.
#
# **Next:** [08 T2T's soft split](08_t2t_soft_split.ipynb) replaces the patch cut with overlapping soft splits
# and small token transformers. The sections below hold the evidence behind the findings above.

# %% [markdown]
# ## Evidence: the paper's two heads
#
# The name *class token* comes from the [CLS] token that the language model BERT puts in front of every input
# sequence (Devlin et al., 2019).
#
# The ViT paper trains in two stages (notebook 10 teaches training). **Pre-training** is a long training on a
# large, general data set; **fine-tuning** continues the training on the task one cares about, with a new head.
#
# The ViT paper (Section 3.1) attaches a head to $\mathbf{z}_L^0$ in both phases, but not the same one: during
# pre-training an MLP with one hidden layer, during fine-tuning a single linear layer. The article series says
# so too, then uses a single linear layer, as T2T-ViT does. Chi Yeong Heo's lab report ("Lab 5-1: Vision
# Transformer final-report") builds no head of its own: it studies timm's pre-trained ViT-B/16, whose head it
# calls an "MLP head" but describes as one linear layer from 768 to 1000. The lecture slides name a
# "Classification Head" and reproduce the paper's Figure 1 ("MLP Head") without saying which head each phase
# uses.
#
# The paper's sentence leaves the hidden layer's non-linearity out. The official code has it: a linear layer
# named `pre_logits`, of width `representation_size`, followed by $\tanh$ (`vit_jax/models_vit.py`). Older
# timm versions kept that layer for their weights trained on ImageNet-21k, the larger open data set the ViT paper
# also pre-trains on. Current timm's ViT has no such layer, and its
# weight loader notes that the latest ImageNet-21k and ImageNet-1k weights do not use it.
#
# For fine-tuning, the paper removes the pre-trained head and attaches a zero-initialised $D \times K$ layer,
# $K$ being the new task's number of classes (Section 3.2). A zero head gives every class the same score, so
# fine-tuning starts from a uniform prediction. The cell builds both heads at $D$ = 768 for 1000 classes, with
# the hidden width equal to $D$, and applies them to the two prediction tokens of section 1.

# %%
n_classes = 1000
pretrain_head = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, n_classes)).to(device)  # hidden layer
finetune_head = nn.Linear(D, n_classes).to(device)  # D x K
nn.init.zeros_(finetune_head.weight)  # the paper's zero-initialised fine-tuning head
nn.init.zeros_(finetune_head.bias)
with torch.no_grad():
    hidden = pretrain_head[1](pretrain_head[0](pred_token))  # (2, D): tanh keeps every entry in (-1, 1)
    pre_out = pretrain_head[2](hidden)  # (2, K)
    fine_scores = finetune_head(pred_token)  # (2, K)
for name, head in (("pre-training", pretrain_head), ("fine-tuning", finetune_head)):
    print(f"{name} head: {sum(p.numel() for p in head.parameters()):>9,} parameters")
print(
    f"pre-training: token {tuple(pred_token.shape)} -> hidden {tuple(hidden.shape)} -> {tuple(pre_out.shape)}"
)
print(f"  hidden entries within (-1, 1): {bool((hidden.abs() < 1).all())}")
print(f"fine-tuning:  token {tuple(pred_token.shape)} -> {tuple(fine_scores.shape)}")
probabilities = fine_scores.softmax(-1)  # (2, K)
uniform = bool(torch.allclose(probabilities, torch.full_like(probabilities, 1 / n_classes)))
print(f"  zero head: every score is 0: {bool((fine_scores == 0).all())}")
print(f"  every class gets probability 1/{n_classes}: {uniform}")

# %% [markdown]
# ## Evidence: how the weights start
#
# **Where 0.02 comes from.** It is a convention, not a number derived from the layer sizes. BERT's code draws
# every weight matrix from a normal with std 0.02 cut at 2 std (`initializer_range` 0.02). ViT's official code
# draws its position embedding from $\mathcal N(0, 0.02^2)$, with a comment that the value comes from BERT.
# Its attention and MLP layers start *Xavier-uniform* (Glorot and Bengio, 2010): uniform weights with std
# $\sqrt{2/(\text{fan}_\text{in} + \text{fan}_\text{out})}$, where the fan-in and fan-out are the layer's input
# and output lengths. Its class token and its head start at zero. timm (`init_weights_vit_timm`) and the
# official T2T-ViT code draw linear weights with `trunc_normal_(std=.02)`, biases at 0. That function's cut sits
# at ±2 in absolute terms, 100 std, so in practice their draws are not truncated (notebook 03 measures it). The
# cut at ±2 std is this package's choice, the same as BERT's. It drops the rare large draws and leaves a
# slightly smaller std.
#
# **What a fixed std does.** A linear layer from $D$ to $D$ with weights of std $\sigma$, applied to a
# LayerNorm'd token, gives outputs of std about $\sigma\sqrt{D}$. With a fixed $\sigma$, the wider the model,
# the larger each layer's output. Xavier's std is $1/\sqrt{D}$ for a $D \to D$ layer, which keeps the output's
# std near 1 at any width. The cell compares both at the picture model's width and at ViT-Base's. It also
# measures how much one fresh block changes its input, $\lVert \text{block}(\mathbf z) - \mathbf z \rVert /
# \lVert \mathbf z \rVert$ (section 2's size ratio), on random normal tokens and on the picture's.

# %%
qkv_weight = vit.blocks[0].attn.qkv.weight.detach().cpu()  # (3D, D), notebook 06's picture model
print(
    f"picture model, qkv weights {tuple(qkv_weight.shape)}: "
    f"mean {round(qkv_weight.mean().item(), 4) + 0.0:.4f}, std {qkv_weight.std().item():.4f}, "
    f"min {qkv_weight.min().item():+.4f}, max {qkv_weight.max().item():+.4f}"
)
linears = [m for m in vit.modules() if isinstance(m, nn.Linear)]
norms = [m for m in vit.modules() if isinstance(m, nn.LayerNorm)]
print(
    f"all {len(linears)} linear biases are 0: {all(bool((m.bias == 0).all()) for m in linears)}; "
    f"all {len(norms)} LayerNorms start at scale 1, shift 0: "
    f"{all(bool((m.weight == 1).all() and (m.bias == 0).all()) for m in norms)}"
)
columns = ("D", "weight std", "output std", "std·√D", "Xavier std", "Xavier output std", "block change")
widths = (5, 10, 10, 8, 10, 17, 12)
print(" ".join(f"{name:>{w}s}" for name, w in zip(columns, widths, strict=True)))
changes, randn_sizes = {}, {}
for width, n_heads_w in ((vit.embed_dim, 4), (768, 12)):
    with torch.random.fork_rng(devices=[]):  # the draws do not disturb the notebook's random stream
        torch.manual_seed(width)
        fresh = VisionTransformer(embed_dim=width, depth=1, num_heads=n_heads_w).blocks[0].eval()
        z = torch.randn(1, 197, width)  # (1, 197 tokens, D)
    layer = fresh.attn.proj  # a D -> D linear layer, as VisionTransformer starts it
    with torch.no_grad():
        sigma = layer.weight.std().item()
        out_std = layer(nn.functional.layer_norm(z, (width,))).std().item()  # on LayerNorm'd tokens
        change = ((fresh(z) - z).norm() / z.norm()).item()  # (B, N, D) in and out
        xavier_layer = copy.deepcopy(layer)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(width)
            nn.init.xavier_uniform_(xavier_layer.weight)  # std sqrt(2 / (fan_in + fan_out))
        xavier_out = xavier_layer(nn.functional.layer_norm(z, (width,))).std().item()
    xavier = (2 / (width + width)) ** 0.5  # Xavier's std for D -> D
    changes[width] = change
    randn_sizes[width] = z.norm(dim=-1).mean().item()  # a random normal token's size, about sqrt(D)
    print(
        f"{width:5d} {sigma:10.4f} {out_std:10.3f} {sigma * width**0.5:8.3f} {xavier:10.4f} {xavier_out:17.3f} "
        f"{change:12.1%}"
    )
assert changes[vit.embed_dim] < 0.05 < 0.2 < changes[768]  # what the text below says
with torch.no_grad():
    step = vit.blocks[0](embedded) - embedded  # (1, N + 1, D): what block 0 adds to the picture's tokens
    on_picture = step[0].norm(dim=-1) / embedded[0].norm(dim=-1)  # (N + 1,)
    overall = (step.norm() / embedded.norm()).item()
sizes = embedded[0].norm(dim=-1)  # (N + 1,)
print(
    f"picture model's block 0 on the picture's tokens (sizes {sizes.min():.2f} to {sizes.max():.2f}; a random "
    f"normal token's at D = 64: {randn_sizes[vit.embed_dim]:.1f}): change {overall:.0%} overall, {on_picture[0]:.0%} for token 0"
)
assert overall > 0.1 and on_picture[0] > 0.5  # far more than on random normal tokens

# %% [markdown]
# With the package's fixed std, a layer's output std is about $\sigma\sqrt{D}$: the columns "output std" and
# "std·√D" agree. For this draw of weights and random normal tokens, one fresh block changes its input by
# about 2 % at D = 64 but by about 27 % at D = 768 (the assertion checks both sides). From 64 to 768 one layer's
# $\sigma\sqrt D$ grows about 3.5-fold; the block change grows more, roughly with its square, because each branch
# passes through two linear layers (v then proj in attention, the MLP's two).
#
# On the picture's own tokens the picture model's block 0 changes them far more: the last line. A pre-norm
# branch reads a LayerNorm'd input, so what it adds has about the same size whatever the input's size. The
# picture's tokens are much smaller than random normal ones, so the same addition changes them more, and
# token 0, the smallest, most. So section 2's blocks do reshape token 0, the token the head reads.
#
# Xavier-uniform weights keep the same layer's output std near 1 at both widths, larger than the package's. The
# cell measures only proj, but the same holds for every layer by arithmetic: Xavier's std
# $\sqrt{2/(\text{fan}_\text{in} + \text{fan}_\text{out})}$ is above 0.02 for each of them, even for ViT-Base's
# widest, the MLP's 768 → 3072 ($\sqrt{2/3840} \approx 0.023$).
#
# **The prediction token's start.** ViT's official code starts the class token at zero; timm at
# $\mathcal N(0, (10^{-6})^2)$, as good as zero; the official T2T-ViT code and the article series' ViT code like
# the other weights; the article series' walk-through prepends a token of zeros. With a position embedding, a
# zero token enters block 0 as row 0 of $\mathbf E_\text{pos}$, not as zeros. With or without one, the token
# receives a gradient: a gradient measures how the output changes when the token moves, and a token of zeros
# can move like any other. A nonzero gradient only means the token can change; the course does not test how
# well a zero start trains. The cell checks both on a copy of the picture model, and the gradient also on a
# model without a position embedding, as in Exercise 3.

# %%
zero_start = copy.deepcopy(vit)
with torch.no_grad():
    zero_start.cls_token.zero_()  # (1, 1, D) of zeros
    first_input = zero_start.embed(image)  # (1, N + 1, D): what enters block 0
print(
    "token 0 entering block 0 equals row 0 of the position embedding: "
    f"{torch.equal(first_input[0, 0], zero_start.pos_embed[0, 0])}"
)
zero_start(image).sum().backward()  # any loss will do
torch.manual_seed(0)  # Exercise 3's model, built again, with a zero prediction token
no_position = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").to(device).eval()
with torch.no_grad():
    no_position.cls_token.zero_()
no_position(image).sum().backward()
print(
    "size of the gradient reaching the zero prediction token: "
    f"with positions {zero_start.cls_token.grad.norm():.2f}, without {no_position.cls_token.grad.norm():.2f}"
)


# %% [markdown]
# ## Evidence: counting a block's cost
#
# `vitcourse.cost.count_macs` counts a model's multiply-adds by running it; on the `meta` device tensors have
# shapes but no numbers, so even ViT-B/16 costs nothing to count. The cell counts ViT-B/16 part by part, with
# the answers to Exercise 4.


# %%
def macs_formula(n: int, d: int, mlp_ratio: float = 4.0) -> int:
    """Multiply-adds of one encoder block on n tokens of length d: (4 + 2 r) n d² + 2 n² d."""
    return int((4 + 2 * mlp_ratio) * n * d**2) + 2 * n**2 * d


with torch.device("meta"):
    vit_b = create_model("vit_base_patch16_224")
    macs_b = count_macs(vit_b, torch.empty(1, 3, 224, 224), depth=1)  # {"patch_embed": ..., "blocks": ...}
n_b, d_b = vit_b.num_patches + 1, vit_b.embed_dim
total_b = sum(macs_b.values())
print(f"ViT-B/16 at 224 x 224: N = {n_b} tokens, D = {d_b}, {len(vit_b.blocks)} blocks")
for name, macs in macs_b.items():
    print(f"  {name:12s} {macs / 1e9:7.3f} G MACs ({macs / total_b:6.1%})")
print(
    f"  total        {total_b / 1e9:7.3f} G MACs, rounds to {total_b / 1e9:.1f} G (published in the T2T-ViT paper: 17.6 G)"
)
assert macs_b["blocks"] == len(vit_b.blocks) * macs_formula(n_b, d_b) and round(total_b / 1e9, 1) == 17.6
share = 2 * n_b**2 * d_b / macs_formula(n_b, d_b)
products_b = len(vit_b.blocks) * 2 * n_b**2 * d_b  # the two attention products of all 12 blocks
print(f"the N²D terms are {share:.1%} of a block here, {products_b / total_b:.1%} of the whole model")
print(f"one block's products equal its linear layers at N = 6D = {6 * d_b:,} tokens")
assert 0.02 < products_b / total_b < 0.06  # about 4 %, the answer of Exercise 4 (a)
assert macs_formula(6 * d_b, d_b) == 2 * (2 * (6 * d_b) ** 2 * d_b)  # (b): the products are half the block


# %% [markdown]
# The next cell checks section 4's formula against `count_macs` on three more models. `count_macs` counts every
# linear layer by running it and adds both products from the same $2N^2D$, so the check tests the linear part,
# $12ND^2$. The models: the picture model; the same layout at MLP ratio 2, that of the models trained from
# notebook 10 on; and a smaller ViT, DeiT-S (Touvron et al., 2021), with D = 384, 6 heads and 16 × 16 patches.
# For DeiT-S, $6D$ = 2,304 tokens takes a square image of 768 pixels a side or more (48 × 48 patches). The cell
# counts it on either side of that crossing, at 752 and 768 pixels a side.

# %%
# depth says how finely count_macs groups its counts by module name (2: "blocks.0"), not how many blocks run
counted = count_macs(vit, image, depth=2)  # {"patch_embed.proj": ..., "blocks.0": ..., ...}
n_picture = vit.num_patches + 1
print(
    f"picture model (ratio 4): formula {macs_formula(n_picture, vit.embed_dim):,}, counted {counted['blocks.0']:,}"
)
assert all(counted[f"blocks.{i}"] == macs_formula(n_picture, vit.embed_dim) for i in range(len(vit.blocks)))
with torch.device("meta"):  # the layout of the models trained from notebook 10 on
    ratio_2 = VisionTransformer(embed_dim=64, depth=2, num_heads=4, mlp_ratio=2.0)
    counted_ratio_2 = count_macs(ratio_2, torch.empty(1, 1, 60, 100), depth=2)["blocks.0"]
print(f"fresh model, ratio 2: formula {macs_formula(n_picture, 64, 2.0):,}, counted {counted_ratio_2:,}")
assert counted_ratio_2 == macs_formula(n_picture, 64, 2.0)
for side in (752, 768):  # 47 x 47 and 48 x 48 patches of 16 pixels
    with torch.device("meta"):
        deit_s = VisionTransformer(
            img_size=side, patch_size=16, in_chans=3, embed_dim=384, depth=1, num_heads=6
        )
        macs = count_macs(deit_s, torch.empty(1, 3, side, side), depth=2)
    n = deit_s.num_patches + 1
    products = 2 * n * n * 384
    print(
        f"side {side}: N = {n}, attention products {products / 1e9:.3f} G, linear layers "
        f"{(macs['blocks.0'] - products) / 1e9:.3f} G"
    )
    assert (products > macs["blocks.0"] - products) == (n > 6 * 384)  # the products win once N > 6D
print(f"DeiT-S: 6D = {6 * 384:,} tokens; 48 x 48 patches + 1 = {48 * 48 + 1:,}")


# %% [markdown]
# The figure draws the two parts of one ViT-B block against the number of tokens, from the formula the cell
# above checked against `count_macs`: the linear layers grow like $N$, the two products like $N^2$. Both axes are
# logarithmic, so a power $N^k$ draws a straight line whose slope is $k$: 1 for the linear layers, 2 for the
# products. Look at the dotted line: at ViT-B/16's 197 tokens the two lines lie far apart, a factor $6D/N$ that
# the cell prints.

# %% mystnb={"image": {"alt": "Log-log plot of one ViT-B block's multiply-adds against the number of tokens: the linear layers as a straight line of slope 1, the two attention products as a line of slope 2, crossing far to the right; a dotted line marks ViT-B/16's 197 tokens at 224 by 224, far left of the crossing"}}
n_range = torch.logspace(1, 5, 200)  # 10 to 100,000 tokens
linear_part = 12 * n_range * d_b**2  # qkv, proj and the MLP at ratio 4
products_part = 2 * n_range**2 * d_b  # the scores and the weights times V
fig, ax = plt.subplots(figsize=(7.5, 4.2))
ax.loglog(n_range, linear_part, label="linear layers: $12ND^2$")
ax.loglog(n_range, products_part, label="the two attention products: $2N^2D$")
ax.axvline(n_b, color="0.4", ls=":", label=f"ViT-B/16 at 224 x 224: N = {n_b}")
ax.axvline(6 * d_b, color="k", ls="--", label=f"N = 6D = {6 * d_b:,}: equal")
ax.set_xlabel("tokens N (prediction token included)")
ax.set_ylabel("multiply-adds of one block")
ax.set_title(f"One ViT-B block (D = {d_b}, MLP ratio 4): where the multiply-adds go")
ax.legend(fontsize=9)
plt.show()
print(f"at N = {n_b}: linear layers / products = 6D / N = {6 * d_b / n_b:.1f}")
tie = int(6 * d_b)
assert abs(12 * tie * d_b**2 - 2 * tie**2 * d_b) == 0  # the lines cross at N = 6D
