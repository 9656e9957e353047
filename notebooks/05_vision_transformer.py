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
# # 05 · The Vision Transformer
#
# We have tokens (01), positions (03) and attention (04). A Vision Transformer puts them together in three parts:
#
# 1. **token processing**: prepend a learned *prediction token*, add the position embedding;
# 2. **encoder blocks**: attention and an MLP, each with a layer norm before and a residual connection after;
# 3. **prediction processing**: a final norm, then a linear head on the prediction token alone.
#
# **Learning goals.** After this notebook you can
# 1. follow the shapes through token processing, an encoder block and the head,
# 2. build the whole `vitcourse` ViT and run it on the picture,
# 3. count the parameters of ViT-Base, -Large and -Huge and compare them with the paper,
# 4. map the lecture slides' version of ViT onto ours.

# %%
import matplotlib.pyplot as plt
import torch
from torch import nn

import vitcourse
from vitcourse import check, load_mountains
from vitcourse.blocks import EncoderBlock
from vitcourse.models import VisionTransformer, count_parameters, create_model
from vitcourse.position import sinusoidal_table

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## 1. Token processing
#
# The walk-through uses the sizes of the article series: a batch of 13 items, each 175 tokens of length 768
# (what T2T makes from a 400 × 100 image, notebook 06). The prediction token is one learned vector of length
# 768, stored with shape (1, 1, 768) and *expanded* over the batch: it belongs to the model, not to a batch.

# %%
batch, n_tokens, D = 13, 175, 768
x = torch.rand(batch, n_tokens, D, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, D)
cls_token = nn.Parameter(torch.zeros(1, 1, D, device=device))  # (1, 1, D): one per model
nn.init.trunc_normal_(cls_token, std=0.02)
with torch.no_grad():
    with_cls = torch.cat([cls_token.expand(batch, -1, -1), x], dim=1)  # (B, N + 1, D)
    pos = sinusoidal_table(n_tokens + 1, D)[None].to(device)  # (1, N + 1, D)
    tokens_in = with_cls + pos  # (B, N + 1, D)
print(f"tokens {tuple(x.shape)} + prediction token {tuple(cls_token.shape)} -> {tuple(with_cls.shape)}")
print(
    f"+ position embedding {tuple(pos.shape)} -> {tuple(tokens_in.shape)}: {n_tokens} + 1 = {tokens_in.shape[1]} tokens"
)

# %% [markdown]
# ## 2. The encoder block
#
# $$x \leftarrow x + \text{Attention}(\text{LN}_1(x)), \qquad x \leftarrow x + \text{MLP}(\text{LN}_2(x))$$
#
# The layer norms come *before* each part (pre-norm), the residual adds the part's input back after it. The
# MLP widens each token to $4D$ = 3072, applies GELU, and narrows it back to $D$. Nothing changes shape.

# %%
block = EncoderBlock(D, num_heads=12, mlp_ratio=4.0).to(device).eval()
print(block)

# %%
with torch.no_grad():
    h = block.norm1(tokens_in)  # (B, N+1, D)
    print(f"norm1:        {tuple(h.shape)}")
    h = block.attn(h)  # (B, N+1, D)
    print(f"attention:    {tuple(h.shape)}  (12 heads of {D // 12})")
    y = tokens_in + h
    print(f"+ residual:   {tuple(y.shape)}")
    h = block.norm2(y)
    h = block.mlp.fc1(h)  # (B, N+1, 4D)
    print(f"norm2, fc1:   {tuple(h.shape)}")
    h = block.mlp.fc2(block.mlp.act(h))  # (B, N+1, D)
    print(f"GELU, fc2:    {tuple(h.shape)}")
    y = y + h
    print(f"+ residual:   {tuple(y.shape)}")
    same = torch.allclose(y, block(tokens_in), atol=1e-5)
print(f"equals EncoderBlock.forward: {same}")
assert same and y.shape == tokens_in.shape

# %% [markdown]
# ## 3. Prediction processing
#
# After the last block, a final layer norm, then only token 0 (the prediction token) goes to the head. The article
# series predicts a single number (a regression head of one output); an ImageNet classifier has 1000 outputs.

# %%
norm = nn.LayerNorm(D, eps=1e-6).to(device)
with torch.no_grad():
    features = norm(y)  # (B, N+1, D)
    pred_token = features[:, 0]  # (B, D)
    single = nn.Linear(D, 1).to(device)(pred_token)  # (B, 1)
    classes = nn.Linear(D, 1000).to(device)(pred_token)  # (B, 1000)
print(
    f"norm {tuple(features.shape)} -> token 0 {tuple(pred_token.shape)} -> head: {tuple(single.shape)} (one value) or {tuple(classes.shape)} (1000 classes)"
)

# %% [markdown]
# ## The whole ViT on the picture
#
# `vitcourse.models.VisionTransformer` is these three parts with the patch tokenizer of notebook 01 in front. Its
# defaults suit the picture: 60 × 100, one channel, patches of 20, ViT-Base's width and depth ($D$ = 768,
# 12 blocks, 12 heads), a learned position embedding and a single output.

# %%
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)
torch.manual_seed(0)
vit = VisionTransformer().to(device).eval()
with torch.no_grad():
    tokens_ = vit.tokenize(image)
    embedded = vit.embed(image)
    feats = vit.forward_features(image)
    prediction = vit(image)
print(
    f"picture {tuple(image.shape)} -> patch tokens {tuple(tokens_.shape)} -> with prediction token and positions {tuple(embedded.shape)}"
)
print(f"-> {len(vit.blocks)} blocks and norm {tuple(feats.shape)} -> head {tuple(prediction.shape)}")
total, trainable = count_parameters(vit)
print(f"parameters: {total:,} (all trainable: {total == trainable})")

# %%
# NBVAL_IGNORE_OUTPUT
print(f"prediction of the untrained model: {prediction.item():.4f}")

# %%
assert prediction.shape == (1, 1) and torch.isfinite(prediction).all()
print("the untrained ViT gives one finite number for the picture")

# %% [markdown]
# ## ViT-Base, -Large and -Huge
#
# The paper's three sizes, built at 224 × 224 with 16 × 16 patches and 1000 classes. Building them *on the meta
# device* creates parameter shapes without memory, so even the 632M-parameter model costs nothing to count.

# %%
paper = {"vit_base_patch16_224": 86, "vit_large_patch16_224": 307, "vit_huge_patch16_224": 632}
rows = []
with torch.device("meta"):
    for name, millions in paper.items():
        model = create_model(name)
        blk = model.blocks[0]
        rows.append(
            (
                name,
                len(model.blocks),
                model.embed_dim,
                blk.mlp.fc1.out_features,
                blk.attn.num_heads,
                count_parameters(model)[0],
                millions,
            )
        )
    huge14 = create_model("vit_huge_patch16_224", patch_size=14)
    rows.append(("vit_huge_patch14_224", 32, 1280, 5120, 16, count_parameters(huge14)[0], 632))
print(f"{'model':24s} {'layers':>6s} {'D':>5s} {'MLP':>5s} {'heads':>5s} {'parameters':>13s} {'paper':>6s}")
for name, layers, d, mlp, heads_, count, millions in rows:
    print(f"{name:24s} {layers:6d} {d:5d} {mlp:5d} {heads_:5d} {count:13,d} {millions:5d}M")
assert rows[0][5] == 86_567_656

# %%
names = [r[0].replace("_224", "") for r in rows]
fig, ax = plt.subplots(figsize=(8, 3.4))
ax.bar(names, [r[5] / 1e6 for r in rows], color="tab:purple", label="vitcourse (counted)")
ax.scatter(names, [r[6] for r in rows], color="k", marker="_", s=900, zorder=3, label="paper (rounded)")
ax.set_ylabel("parameters (millions)")
ax.set_xlabel("model")
ax.set_title("ViT sizes: counted parameters and the paper's figures")
ax.legend()
plt.show()

# %% [markdown]
# How the counts compare with the paper's:
#
# - **Base** rounds to the paper's 86M, and equals the reference implementation (timm) exactly, 86,567,656.
# - **Huge**: the paper's ViT-H uses 14 × 14 patches; both patch sizes round to 632M, because the patch size only
#   changes the patch projection ($P^2 \cdot 3 \cdot D$) and the number of position rows, a few hundred thousand
#   parameters out of 632 million.
# - **Large** comes out at 304M against the paper's 307M, about 1% apart. Our count equals the reference
#   implementation's (timm's `vit_large_patch16_224`, 304,326,632) for the layers, width, MLP size and heads the
#   paper lists. We could not rebuild the paper's 307M from that layout alone; the paper does not give its
#   counting rules, and parts that depend on the training set-up (the size of the head, an extra pre-logit
#   layer) are where such differences usually come from.
#
# ## Real weights, where you have them
#
# `vitcourse.checkpoints` loads timm's ViT checkpoints into our `VisionTransformer` through a documented key map
# (the names are the same; only the patch embedding is stored as a convolution there and as a linear layer here).
# The next cell runs only where the `timm` package and its pretrained ViT-B/16 weights are already on your
# computer: it never downloads anything, and otherwise says why it skipped. Where it runs, it classifies the
# picture (stretched to 224 × 224, grey copied to three channels) with our model and with timm's, and checks
# that the two agree.

# %%
# NBVAL_IGNORE_OUTPUT
# (what this cell prints depends on whether timm and its weights are on this computer; the next cell checks it)
import importlib.util
import os

import torch.nn.functional as F

from vitcourse import checkpoints

pretrained = None
if importlib.util.find_spec("timm") is None:
    print("Skipped: the timm package is not installed, so there is no pretrained checkpoint to load.")
else:
    import timm

    os.environ["HF_HUB_OFFLINE"] = "1"  # use weights already on this computer, never download
    try:
        reference = timm.create_model("vit_base_patch16_224", pretrained=True).eval()
    except Exception as err:  # no cached weights: skip with a sentence
        print(f"Skipped: no pretrained vit_base_patch16_224 weights on this computer ({type(err).__name__}).")
    else:
        ours = checkpoints.load_pretrained(
            create_model("vit_base_patch16_224"), reference.state_dict(), "timm"
        ).eval()
        rgb = F.interpolate(vitcourse.to_tensor(picture), size=(224, 224), mode="bilinear").repeat(1, 3, 1, 1)
        rgb = (rgb - 0.5) / 0.5  # the normalisation timm's ViT-B/16 was trained with
        with torch.no_grad():
            ours_logits, ref_logits = ours(rgb), reference(rgb)
        top = ours_logits.softmax(-1).topk(5)
        print(
            "top-5 ImageNet classes for the picture:",
            [(int(i), round(float(p), 3)) for p, i in zip(top.values[0], top.indices[0], strict=True)],
        )
        pretrained = {"max_difference": (ours_logits - ref_logits).abs().max().item()}

# %%
assert pretrained is None or pretrained["max_difference"] < 1e-3
print("pretrained weights: skipped or loaded, and where loaded our model agrees with timm's")

# %% [markdown]
# ## The lecture slides' pieces and ours
#
# | lecture slides | vitcourse |
# |---|---|
# | `nn.Conv2d(3, 768, kernel_size=16, stride=16)`, then flatten | `PatchTokenizer`: `nn.Unfold` + `nn.Linear`, the same numbers (notebook 01) |
# | `nn.MultiheadAttention` | `Attention`, equal with copied weights (notebook 04) |
# | class token `torch.ones(batch_size, 1, 768)` | `cls_token`, a learned parameter of shape (1, 1, 768), expanded per batch |
#
# The slides' class token has two problems: it depends on the batch size, so a model trained with batches of 32
# cannot run on one image, and it is a constant, so it cannot learn. Ours is one learned vector that every item of
# any batch shares:

# %%
with torch.no_grad():
    for b in (1, 13):
        expanded = vit.cls_token.expand(b, -1, -1)
        print(
            f"batch {b:2d}: cls_token {tuple(vit.cls_token.shape)} -> expanded {tuple(expanded.shape)}, shares memory: {expanded.data_ptr() == vit.cls_token.data_ptr()}"
        )
print(f"cls_token is learned (requires_grad): {vit.cls_token.requires_grad}")

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** ViT-Base cuts a 224 × 224 image into 16 × 16 patches. How many tokens enter its first encoder
# block?

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_tokens = None  # replace None with a number
### BEGIN SOLUTION
answer_tokens = (224 // 16) ** 2 + 1
### END SOLUTION

# %%
check.vit_token_count(answer_tokens)

# %% [markdown]
# **Exercise 2.** How many parameters does one ViT-Base encoder block have? Work it out from the layer sizes
# (two layer norms, qkv with bias, proj, fc1, fc2); do not count them with code.

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_block = None  # replace None with a number
### BEGIN SOLUTION
d = 768
answer_block = 2 * (2 * d) + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d)
### END SOLUTION

# %%
check.block_parameter_count(answer_block)


# %% [markdown]
# **Exercise 3 (coding).** Write `my_prepend(tokens, cls_token)` that puts a (1, 1, D) prediction token in front of
# every item of a (B, N, D) batch, giving (B, N + 1, D), without copying the token per item in a loop.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_prepend(tokens: torch.Tensor, cls_token: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    return torch.cat([cls_token.expand(tokens.shape[0], -1, -1), tokens], dim=1)  # (B, N + 1, D)
    ### END SOLUTION


print(f"my_prepend(x, cls_token): {tuple(my_prepend(x, cls_token).shape)}")

# %%
check.prepend_function(my_prepend)

# %% [markdown]
# ## Summary
#
# - Token processing: prepend the prediction token ((1, 1, D), expanded), add the position embedding: 175 → 176.
# - An encoder block is norm → attention → residual, norm → MLP (4D) → residual; the shape never changes.
# - Prediction processing: final norm, token 0, a linear head (one value, or 1000 classes).
# - ViT-Base has 86,567,656 parameters; Large 304M at 16 × 16 patches; Huge 632M.
#
# **Next:** [06 Tokens-to-Token](06_tokens_to_token.ipynb) replaces the patch tokenizer with overlapping soft splits
# and small token transformers.
