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
# # 06 · Tokens-to-Token
#
# ViT turns an image into tokens in one cut (notebook 01). The Tokens-to-Token (T2T) module does it in stages:
#
# 1. **soft split** the image into overlapping windows (notebook 02),
# 2. pass the tokens through a small **token transformer**, which also shortens them,
# 3. **rebuild** an image from the tokens, one pixel per token (notebook 02),
# 4. repeat, and after the last soft split project the tokens to the model's length $D$.
#
# Each stage halves or quarters the grid, so the tokens that reach the ViT body have seen a growing, overlapping
# neighbourhood of the image.
#
# **Learning goals.** After this notebook you can
# 1. follow a token transformer and the T2T module shape by shape, predicting each shape before it is computed,
# 2. run T2T-ViT end to end and count its parameters against the official ones,
# 3. say where T2T-ViT spends its compute, and why T2T helps when training from scratch.

# %%
import matplotlib.pyplot as plt
import torch

import vitcourse
from vitcourse import check, load_mountains, plots, tokens
from vitcourse.blocks import TokenTransformer
from vitcourse.cost import count_macs
from vitcourse.models import T2T_STAGES, T2TViT, TokensToToken, count_parameters, create_model

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## The token transformer
#
# An encoder block whose attention maps tokens of length 49 (a 7 × 7 window) to 64 channels. Because the length
# changes, the first residual goes through $v$ (notebook 04); the MLP (hidden size 64, as in T2T) keeps 64.

# %%
batch, n_tokens, dim, chan = 13, 100, 49, 64
x = torch.rand(batch, n_tokens, dim, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, 49)
tt = TokenTransformer(dim, chan, num_heads=1, mlp_ratio=1.0).to(device).eval()
with torch.no_grad():
    h = tt.norm1(x)
    print(f"input {tuple(x.shape)} -> norm1 {tuple(h.shape)}")
    h = tt.attn(h)  # attention to 64 channels, plus v
    print(f"attention with the skip through v -> {tuple(h.shape)}")
    out = h + tt.mlp(tt.norm2(h))
    print(f"+ MLP(norm2) -> {tuple(out.shape)}")
    same = torch.allclose(out, tt(x), atol=1e-5)
print(f"equals TokenTransformer.forward: {same}")
assert same and out.shape == (batch, n_tokens, chan)

# %% [markdown]
# ## Rebuilding an image from the tokens
#
# The 100 tokens came from a 10 × 10 grid of windows. Laying each token on its grid cell gives an image of
# 10 × 10 pixels with 64 channels, one per entry of the token. Here are the first 8 channels of the first item
# (with random weights they are just mixtures of the input, but the layout is what T2T uses).

# %%
image_back = tokens.rebuild_image(out, 10, 10)  # (B, 64, 10, 10)
print(f"tokens {tuple(out.shape)} -> image {tuple(image_back.shape)}")
fig, axes = plt.subplots(2, 4, figsize=(11, 5))
for ch, ax in enumerate(axes.flat):
    ch_img = image_back[0, ch].cpu()
    plots.show_matrix(
        ch_img,
        ax=ax,
        title=f"channel {ch}",
        xlabel="token column",
        ylabel="token row",
        cmap="viridis",
        colorbar=False,
        aspect="equal",
    )
fig.suptitle("A rebuilt image: one pixel per token, one channel per token entry")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The T2T module, stage by stage
#
# The article series' walk-through: a batch of 13 one-channel images of 400 × 100, T2T's default stages
# (k, s, p) = (7, 4, 2), (3, 2, 1), (3, 2, 1), token length 64 inside the module and 768 out. Before each step,
# `count_tokens` predicts the grid; the assertion checks the computed shape against the prediction.

# %%
H, W = 400, 100
images = torch.rand(13, 1, H, W, generator=torch.Generator().manual_seed(2)).to(device)
t2t = TokensToToken((H, W), in_chans=1, embed_dim=768, token_dim=64).to(device).eval()
print(f"stages (kernel, stride, padding): {T2T_STAGES}")
img, channels = images, 1
with torch.no_grad():
    for i, (k, s, p) in enumerate(T2T_STAGES):
        grid = tokens.count_tokens(img.shape[2], img.shape[3], k, s, p)
        print(
            f"stage {i}: predicted {grid.rows} x {grid.cols} = {grid.total} tokens of length {channels} x {k} x {k} = {channels * k * k}"
        )
        toks = getattr(t2t, f"soft_split{i}")(img)  # (B, N, C*k*k)
        assert toks.shape == (13, grid.total, channels * k * k)
        print(f"   soft split {tuple(img.shape)} -> {tuple(toks.shape)}")
        if i == len(T2T_STAGES) - 1:
            break
        toks = getattr(t2t, f"attention{i + 1}")(toks)  # (B, N, 64)
        img = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (B, 64, rows, cols)
        channels = 64
        print(f"   token transformer -> {tuple(toks.shape)} -> rebuild {tuple(img.shape)}")
    final = t2t.project(toks)  # (B, N, 768)
    print(f"   project -> {tuple(final.shape)}")
    assert torch.allclose(final, t2t(images), atol=1e-4)
print(f"2500 -> 650 -> {final.shape[1]} tokens; the module's own forward gives the same result")

# %% [markdown]
# ## The same module on the picture
#
# Any H × W works, because the rebuild uses the grid's rows and columns rather than a square root (the official
# code assumes square images). The picture's 60 × 100 becomes 15 × 25, then 8 × 13, then 4 × 7 = 28 tokens.
# The figure shows channel 0 of the images rebuilt after each token transformer.

# %%
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)
torch.manual_seed(0)
t2t_pic = TokensToToken(picture.shape, in_chans=1, embed_dim=256).to(device).eval()
print("grids:", [tuple(g) for g in t2t_pic.grids])
with torch.no_grad():
    stage1 = tokens.rebuild_image(t2t_pic.attention1(t2t_pic.soft_split0(image)), *t2t_pic.grids[0][:2])
    stage2 = tokens.rebuild_image(t2t_pic.attention2(t2t_pic.soft_split1(stage1)), *t2t_pic.grids[1][:2])
    out_pic = t2t_pic(image)
print(
    f"picture {tuple(image.shape)} -> stage 1 image {tuple(stage1.shape)} -> stage 2 image {tuple(stage2.shape)} -> tokens {tuple(out_pic.shape)}"
)
fig, axes = plt.subplots(1, 3, figsize=(13, 3), gridspec_kw={"width_ratios": [1.6, 1.2, 1.0]})
plots.show_picture(picture, ax=axes[0], title="the picture, 60 x 100", colorbar=False)
plots.show_matrix(
    stage1[0, 0].cpu(),
    ax=axes[1],
    title="after stage 1: 15 x 25, channel 0",
    xlabel="token column",
    ylabel="token row",
    cmap="viridis",
    aspect="equal",
)
plots.show_matrix(
    stage2[0, 0].cpu(),
    ax=axes[2],
    title="after stage 2: 8 x 13, channel 0",
    xlabel="token column",
    ylabel="token row",
    cmap="viridis",
    aspect="equal",
)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## T2T-ViT end to end
#
# T2T-ViT is the T2T module followed by the ViT body of notebook 05 (prediction token, fixed sinusoidal position
# table, encoder blocks without qkv bias, norm, head). `vitcourse.models.T2TViT` defaults to T2T-ViT-14's width
# and depth on the picture.

# %%
torch.manual_seed(0)
model = T2TViT().to(device).eval()
with torch.no_grad():
    emb = model.embed(image)
    pred = model(image)
total, trainable = count_parameters(model)
print(
    f"picture {tuple(image.shape)} -> T2T tokens {tuple(model.tokenize(image).shape)} -> with prediction token {tuple(emb.shape)} -> {tuple(pred.shape)}"
)
print(
    f"parameters: {total:,}, of which trainable {trainable:,} (the sinusoidal table is stored, not trained)"
)
assert torch.isfinite(pred).all()

# %% [markdown]
# ### The official sizes
#
# Built on the meta device at 224 × 224 × 3 with 1000 classes, beside the official counts (transformer
# tokens-to-token, sinusoidal table included in "all").

# %%
official = {
    "t2t_vit_7": (4_305_742, 4_255_310),
    "t2t_vit_10": (5_884_750, 5_834_318),
    "t2t_vit_12": (6_937_422, 6_886_990),
    "t2t_vit_14": (21_541_070, 21_465_422),
    "t2t_vit_19": (39_172_942, 39_084_686),
    "t2t_vit_24": (64_101_454, 64_000_590),
}
print(
    f"{'preset':11s} {'D':>4s} {'depth':>5s} {'heads':>5s} {'all':>12s} {'trainable':>12s} {'official all / trainable':>26s}"
)
with torch.device("meta"):
    for name, (ref_all, ref_train) in official.items():
        m = create_model(name)
        n_all, n_train = count_parameters(m)
        print(
            f"{name:11s} {m.embed_dim:4d} {len(m.blocks):5d} {m.blocks[0].attn.num_heads:5d} {n_all:12,d} {n_train:12,d} {ref_all:13,d} / {ref_train:,d}"
        )
        assert (n_all, n_train) == (ref_all, ref_train)
print("every preset matches the official counts")

# %% [markdown]
# ## Where the compute goes
#
# Multiply-adds of one forward pass of T2T-ViT-14 at 224 × 224, counted by hooks on every linear layer and every
# attention product (`vitcourse.cost.count_macs`). The first stage sees 56 × 56 = 3136 tokens, and attention
# costs grow with the *square* of the token count.

# %%
torch.manual_seed(0)
t2t14 = create_model("t2t_vit_14").eval()
macs = count_macs(t2t14, torch.zeros(1, 3, 224, 224))
grids = t2t14.tokens_to_token.grids
stages = [
    ("T2T stage 1 (attention1)", grids[0].total, macs["tokens_to_token.attention1"]),
    ("T2T stage 2 (attention2)", grids[1].total, macs["tokens_to_token.attention2"]),
    ("T2T projection", grids[2].total, macs["tokens_to_token.project"]),
    (
        f"encoder blocks ({len(t2t14.blocks)})",
        grids[2].total + 1,
        sum(v for k, v in macs.items() if k.startswith("blocks.")),
    ),
    ("head", 1, macs["head"]),
]
total_macs = sum(macs.values())
print(f"{'part':26s} {'tokens':>7s} {'G multiply-adds':>16s} {'share':>6s}")
for name, n, cost in stages:
    print(f"{name:26s} {n:7d} {cost / 1e9:16.3f} {cost / total_macs:6.1%}")
print(f"{'total':26s} {'':7s} {total_macs / 1e9:16.2f}")
per_block = macs["blocks.0"]
print(f"stage 1 alone costs {macs['tokens_to_token.attention1'] / per_block:.1f} encoder blocks")
t2t_macs = sum(v for k, v in macs.items() if k.startswith("tokens_to_token"))
t2t_params = sum(p.numel() for p in t2t14.tokens_to_token.parameters())
compute_share, param_share = t2t_macs / total_macs, t2t_params / count_parameters(t2t14)[0]
print(f"the T2T module: {compute_share:.1%} of the multiply-adds, {param_share:.1%} of the parameters")
assert 0.2 < compute_share < 0.3 and param_share < 0.02
assert sum(c for _, _, c in stages) == total_macs

# %%
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.barh([s[0] for s in stages][::-1], [s[2] / 1e9 for s in stages][::-1], color="tab:purple")
ax.set_xlabel("G multiply-adds (one 224 x 224 image)")
ax.set_ylabel("part of T2T-ViT-14")
ax.set_title(f"T2T-ViT-14: {total_macs / 1e9:.2f} G multiply-adds per image")
plt.show()

# %% [markdown]
# The T2T module takes about a quarter of the whole model's compute although it holds under 2% of its parameters,
# and almost all of that is the first token transformer: its attention compares 3136 tokens with 3136 tokens.
# This is why the official code also offers a Performer version of the token transformers (an approximation of
# attention whose cost grows linearly with the number of tokens), and why its token length is kept small (64).
#
# ## Why Tokens-to-Token?
#
# The T2T paper starts from an observation about ViT trained from scratch on ImageNet alone: it trails
# convolutional networks of the same size, and its patch tokens lose local structure such as edges and lines.
# Two things in T2T address that:
#
# - **Overlapping windows.** On the picture, a ridge that crosses the boundary between two of ViT's patches is
#   cut in two (notebook 01). A soft split keeps every 3 × 3 or 7 × 7 neighbourhood whole in
#   at least one token, so such a ridge is seen in one piece.
# - **Token transformers between the splits.** Each stage mixes information among neighbouring tokens before
#   they are merged, so the final 196 tokens summarise structured neighbourhoods rather than raw pixels: a small
#   built-in prior for local structure, which matters most when data is limited.
#
# With these, the paper reports T2T-ViT trained from scratch on ImageNet matching or beating ViT and ResNets of
# similar size. Notebook 07 tries both on our own small task.
#
# ## Exercises
#
# **Exercise 1.** How many tokens does the T2T module make from a 224 × 224 image?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_t2t_tokens = None  # replace None with a number
### BEGIN SOLUTION
side = 224
for k, s, p in T2T_STAGES:
    side = (side + 2 * p - k) // s + 1
answer_t2t_tokens = side * side
### END SOLUTION

# %%
check.t2t_token_count(answer_t2t_tokens)

# %% [markdown]
# **Exercise 2.** How long are the tokens that enter the second token transformer (`attention2`)?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_t2t_length = None  # replace None with a number
### BEGIN SOLUTION
answer_t2t_length = 64 * 3 * 3
### END SOLUTION

# %%
check.t2t_token_length(answer_t2t_length)


# %% [markdown]
# **Exercise 3 (coding).** Write `my_t2t_grids(h, w)` returning the list of `(rows, cols)` token grids after each of
# T2T's three soft splits, for any h × w. The check tries square and non-square images.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_t2t_grids(h: int, w: int) -> list[tuple[int, int]]:
    ### BEGIN SOLUTION
    grids = []
    for k, s, p in T2T_STAGES:
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        grids.append((h, w))
    return grids
    ### END SOLUTION


print(f"my_t2t_grids(60, 100) = {my_t2t_grids(60, 100)}")

# %%
check.t2t_grids_function(my_t2t_grids)

# %% [markdown]
# ## Summary
#
# - A token transformer is an encoder block that changes the token length, with its residual through $v$.
# - The T2T module alternates soft split → token transformer → rebuild; on (13, 1, 400, 100) it goes
#   2500 → 650 → 175 tokens, on the picture 375 → 104 → 28.
# - T2T-ViT's parameter counts match the official ones exactly; its first T2T stage is where the compute goes.
#
# **Next:** [07 Training from scratch](07_training_from_scratch.ipynb) trains small ViTs and T2T-ViTs on scenes
# drawn like the picture and looks at what they learn.
