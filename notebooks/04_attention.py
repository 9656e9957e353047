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
# # 04 · Attention, step by step
#
# Attention lets every token look at every other token and take a weighted mix of what it finds. The weights
# come from comparing a *query* of each token with a *key* of every token; what is mixed are the *values*.
#
# $$\text{Attention}(Q, K, V) = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$
#
# **Learning goals.** After this notebook you can
# 1. compute single-head attention by hand and name the shape after every step,
# 2. explain why the scores are divided by $\sqrt{d_k}$,
# 3. cut Q, K, V into heads and glue them back,
# 4. check the package's attention against `nn.MultiheadAttention` and `F.scaled_dot_product_attention`, and
#    count its weights.

# %%
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens
from vitcourse.attention import Attention

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## The walk-through sizes
#
# We follow the sizes of T2T's first token transformer: a batch of 13 items, each 100 tokens of length 49 (a
# 7 × 7 window of a one-channel image), mapped to `chan` = 64 channels.

# %%
batch, n_tokens, dim, chan = 13, 100, 49, 64
x = torch.rand(batch, n_tokens, dim, generator=torch.Generator().manual_seed(42)).to(device)  # (B, N, dim)
print(f"x: {tuple(x.shape)}  (batch, tokens, token length)")

# %% [markdown]
# ### 1. Queries, keys and values
#
# One linear layer (no bias here, as in T2T) maps each token to $3 \times$ `chan` numbers, which are split into
# q, k and v. We keep a head axis of size 1 so that the same code works for several heads later.

# %%
qkv = nn.Linear(dim, chan * 3, bias=False).to(device)
nn.init.normal_(qkv.weight, std=0.3)  # larger than usual at the start of training, so the patterns below show
proj = nn.Linear(chan, chan).to(device)
heads = 1
head_dim = chan // heads
with torch.no_grad():
    mixed = qkv(x)  # (B, N, 3 * chan)
    q, k, v = mixed.reshape(batch, n_tokens, 3, heads, head_dim).permute(
        2, 0, 3, 1, 4
    )  # each (B, heads, N, head_dim)
print(f"qkv(x): {tuple(mixed.shape)} -> Q, K, V each {tuple(q.shape)}  (batch, heads, tokens, channels)")

# %% [markdown]
# ### 2. Scores, scaling and softmax
#
# Each query is compared with every key by a dot product: $QK^\top$ has one row per query token and one
# column per key token. The scores are multiplied by $d_k^{-1/2}$ (here $64^{-1/2} = 1/8$) and a softmax over
# each row turns them into weights that are positive and sum to 1.

# %%
scale = head_dim**-0.5
with torch.no_grad():
    scores = q @ k.transpose(-2, -1)  # (B, heads, N, N)
    scaled = scores * scale
    weights = scaled.softmax(dim=-1)  # (B, heads, N, N)
print(f"QK^T: {tuple(scores.shape)}, scale = {head_dim}^-0.5 = {scale}")
print(
    f"softmax weights: {tuple(weights.shape)}, every row sums to 1: {torch.allclose(weights.sum(-1), torch.ones(1, device=device))}"
)

# %% [markdown]
# ### 3. Mixing the values, projecting, and the skip through v
#
# Each token's output is its weights times the values. The heads are glued back side by side and a last linear
# layer (`proj`) mixes the channels. In a transformer block the input is then added back (a residual
# connection), but here the token length changes from 49 to 64, so $x$ cannot be added. T2T adds $v$ instead:
# the *skip through v*.

# %%
with torch.no_grad():
    mixed_values = weights @ v  # (B, heads, N, head_dim)
    merged = mixed_values.transpose(1, 2).reshape(batch, n_tokens, chan)  # (B, N, chan)
    out = proj(merged)  # (B, N, chan)
    out_skip = out + v.transpose(1, 2).reshape(batch, n_tokens, chan)  # (B, N, chan): the skip through v
print(
    f"weights @ V: {tuple(mixed_values.shape)} -> heads merged {tuple(merged.shape)} -> proj {tuple(out.shape)}"
)
print(f"with the skip through v: {tuple(out_skip.shape)}")

# %% [markdown]
# The matrix products for the first batch item, as heatmaps. Only the first 20 tokens are shown so each cell
# can be seen; the products are computed on all 100.

# %%
show = 20
item = {name: t[0, 0, :show].cpu() for name, t in [("Q", q), ("K", k), ("V", v), ("out", mixed_values)]}
w0 = weights[0, 0, :show, :show].cpu()
fig, axes = plt.subplots(1, 5, figsize=(17, 3.6), gridspec_kw={"width_ratios": [2.2, 2.2, 1.4, 2.2, 2.2]})
plots.show_matrix(
    item["Q"], ax=axes[0], title="Q (20 tokens x 64)", xlabel="channel", ylabel="query token", cmap="viridis"
)
plots.show_matrix(
    item["K"].T,
    ax=axes[1],
    title="K^T (64 x 20 tokens)",
    xlabel="key token",
    ylabel="channel",
    cmap="viridis",
)
plots.show_matrix(
    w0, ax=axes[2], title="softmax(QK^T / 8)", xlabel="key token", ylabel="query token", cmap="magma"
)
plots.show_matrix(
    item["V"], ax=axes[3], title="V (20 tokens x 64)", xlabel="channel", ylabel="key token", cmap="viridis"
)
plots.show_matrix(
    item["out"], ax=axes[4], title="weights @ V", xlabel="channel", ylabel="query token", cmap="viridis"
)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Why divide by $\sqrt{d_k}$?
#
# If the entries of $q$ and $k$ are independent with mean 0 and variance 1, then $q \cdot k$ is a sum of $d_k$
# products, each of variance 1, so its variance is $d_k$. Large scores push the softmax towards a one-hot vector:
# one token gets almost all the weight and the gradients through the others vanish. Dividing by $\sqrt{d_k}$
# brings the variance back to 1 whatever the head size. Measured on 20,000 random pairs:

# %%
gen = torch.Generator().manual_seed(0)
print(" d_k   var(q.k)   var(q.k)/d_k   var(q.k/sqrt(d_k))")
for d_k in (4, 16, 64, 256, 1024):
    qs, ks = torch.randn(20000, d_k, generator=gen), torch.randn(20000, d_k, generator=gen)
    dots = (qs * ks).sum(-1)
    print(f"{d_k:4d} {dots.var():10.1f} {dots.var() / d_k:14.2f} {(dots / math.sqrt(d_k)).var():20.2f}")
    assert abs(dots.var() / d_k - 1) < 0.1

# %%
d_k = 256
qrow, keys = torch.randn(1, d_k, generator=gen), torch.randn(100, d_k, generator=gen)
raw = (qrow @ keys.T)[0]  # (100,) scores of one query over 100 keys
unscaled, scaled_w = raw.softmax(-1), (raw / math.sqrt(d_k)).softmax(-1)
print(f"d_k = {d_k}: largest weight without scaling {unscaled.max():.3f}, with scaling {scaled_w.max():.3f}")
fig, ax = plt.subplots(figsize=(9, 3))
ax.bar(range(100), unscaled, color="tab:red", label="softmax(q.k): saturated")
ax.bar(range(100), scaled_w, color="tab:blue", alpha=0.7, label="softmax(q.k / sqrt(d_k))")
ax.set_xlabel("key token")
ax.set_ylabel("attention weight")
ax.set_title(f"One query over 100 keys, d_k = {d_k}")
ax.legend()
plt.show()

# %% [markdown]
# ## Several heads
#
# With 4 heads the 64 channels are cut into 4 groups of 16. Each head has its own attention pattern over the
# same tokens; afterwards the 4 outputs are placed side by side again. The cost in weights is the same as for one
# head: only the reshape changes.

# %%
heads = 4
head_dim = chan // heads
with torch.no_grad():
    q4, k4, v4 = (
        qkv(x).reshape(batch, n_tokens, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
    )  # each (B, 4, N, 16)
    w4 = (q4 @ k4.transpose(-2, -1) * head_dim**-0.5).softmax(-1)  # (B, 4, N, N)
    o4 = w4 @ v4  # (B, 4, N, 16)
    glued = o4.transpose(1, 2).reshape(batch, n_tokens, chan)  # (B, N, 64)
    out4 = proj(glued)  # (B, N, 64)
print(f"Q per head: {tuple(q4.shape)}, weights {tuple(w4.shape)}, per-head output {tuple(o4.shape)}")
print(f"glued back: {tuple(glued.shape)}, projected: {tuple(out4.shape)}")

# %% [markdown]
# ## The package's attention, checked three ways
#
# `vitcourse.attention.Attention` has a step-by-step path (which can return every intermediate, as above) and
# a fused path through `F.scaled_dot_product_attention`, which never stores the N × N matrix. Copy our weights in
# and compare with what we built by hand, with `nn.MultiheadAttention`, and the fused path with the step path.

# %%
att = Attention(dim, chan, num_heads=4, qkv_bias=False).to(device)
with torch.no_grad():
    att.qkv.weight.copy_(qkv.weight)
    att.proj.load_state_dict(proj.state_dict())
    step_out, steps = att.steps(x)
    fused_out = att(x)
    sdpa_heads = F.scaled_dot_product_attention(steps.q, steps.k, steps.v)  # (B, heads, N, head_dim)
print(f"step path equals our hand-built 4 heads: {torch.allclose(step_out, out4, atol=1e-5)}")
print(f"fused path equals the step path:         {torch.allclose(fused_out, step_out, atol=1e-5)}")
print(
    f"F.scaled_dot_product_attention on our q, k, v equals weights @ v: {torch.allclose(sdpa_heads, steps.heads, atol=1e-5)}"
)
assert torch.allclose(step_out, out4, atol=1e-5) and torch.allclose(fused_out, step_out, atol=1e-5)
assert torch.allclose(sdpa_heads, steps.heads, atol=1e-5)

# %%
# nn.MultiheadAttention needs dim == chan, so compare at 64 -> 64 with biases
square = Attention(64, 64, num_heads=4, qkv_bias=True).to(device)
mha = nn.MultiheadAttention(64, 4, bias=True, batch_first=True).to(device)
with torch.no_grad():
    mha.in_proj_weight.copy_(square.qkv.weight)
    mha.in_proj_bias.copy_(square.qkv.bias)
    mha.out_proj.weight.copy_(square.proj.weight)
    mha.out_proj.bias.copy_(square.proj.bias)
    x64 = torch.randn(batch, n_tokens, 64, generator=torch.Generator().manual_seed(1)).to(device)
    ref, ref_weights = mha(x64, x64, x64, average_attn_weights=False)
    ours, ours_steps = square.steps(x64)
print(
    f"equals nn.MultiheadAttention: outputs {torch.allclose(ours, ref, atol=1e-5)}, weights {torch.allclose(ours_steps.weights, ref_weights, atol=1e-5)}"
)
assert torch.allclose(ours, ref, atol=1e-5) and torch.allclose(ours_steps.weights, ref_weights, atol=1e-5)

# %%
n_qkv = att.qkv.weight.numel()
n_proj = sum(p.numel() for p in att.proj.parameters())
print(f"qkv: dim x chan x 3 = {dim} x {chan} x 3 = {dim * chan * 3} -> counted {n_qkv}")
print(f"proj: chan^2 + chan = {chan**2} + {chan} = {chan**2 + chan} -> counted {n_proj}")
assert n_qkv == dim * chan * 3 and n_proj == chan**2 + chan

# %% [markdown]
# ## Attention on the picture
#
# Now the picture's 15 patch tokens, projected to 64 channels, go through a 4-head attention with random weights.
# For one query patch (outlined), each panel lays that head's 15 weights back onto the patch grid. Each head has
# its own pattern, but with random weights the patterns mean nothing yet; notebook 07 draws the same maps for a
# trained model.

# %%
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)
torch.manual_seed(0)
embed = tokens.PatchTokenizer(picture.shape, 20, 1, 64).to(device)
att_pic = Attention(64, 64, num_heads=4).to(device)
torch.nn.init.normal_(
    att_pic.qkv.weight, std=0.5
)  # sharper than a fresh model's, so each head shows a pattern
query = 7  # patch 8, the middle of the picture
with torch.no_grad():
    _, pic_steps = att_pic.steps(embed(image))
pic_weights = pic_steps.weights[0, :, query].cpu()  # (heads, 15)
print(
    f"weights of patch {query + 1} over the 15 patches: {tuple(pic_weights.shape)}, each head sums to 1: {torch.allclose(pic_weights.sum(-1), torch.ones(4))}"
)
plots.show_attention_on_picture(
    picture, pic_weights, 20, query, title=f"Random 4-head attention of patch {query + 1} (outlined)"
)
plt.show()

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** With 4 heads, batch 13, 100 tokens and 64 channels, what is the shape of $QK^\top$?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_shape = None  # replace None with a tuple
### BEGIN SOLUTION
answer_shape = (13, 4, 100, 100)
### END SOLUTION

# %%
check.scores_shape(answer_shape)

# %% [markdown]
# **Exercise 2.** How many weights does the qkv layer of T2T's first token transformer have (tokens of length
# 49 to 64 channels, no bias)?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_weights = None  # replace None with a number
### BEGIN SOLUTION
answer_weights = 49 * 64 * 3
### END SOLUTION

# %%
check.qkv_weight_count(answer_weights)


# %% [markdown]
# **Exercise 3 (coding).** Write `my_attention(q, k, v)` for tensors of shape (B, heads, N, d):
# $\text{softmax}(QK^\top / \sqrt{d})\,V$. The check compares it with `F.scaled_dot_product_attention`.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, heads, N, N)
    return scores.softmax(dim=-1) @ v  # (B, heads, N, d)
    ### END SOLUTION


print(f"my_attention on the 4-head q, k, v: {tuple(my_attention(q4, k4, v4).shape)}")

# %%
check.attention_function(my_attention)

# %% [markdown]
# ## Summary
#
# - Q, K, V come from one linear layer; $QK^\top$ compares every query with every key; the softmax of the scaled
#   scores weights the values.
# - The scale $d_k^{-1/2}$ keeps the score variance at 1 and the softmax away from saturation.
# - Heads cut the channels into groups that attend separately; they are glued back before the projection.
# - T2T's token transformers change the token length, so their residual goes through $v$.
#
# **Next:** [05 Vision Transformer](05_vision_transformer.ipynb) stacks attention and an MLP into encoder blocks and
# builds the whole ViT.
