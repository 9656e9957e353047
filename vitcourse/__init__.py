"""vitcourse: the small library that the course's notebooks build, one module per concept.

What the notebooks build, in course order:

* :mod:`vitcourse.data` - the Mountain-at-Dusk picture (``HEIGHT`` x ``WIDTH`` = 60 x 100), drawn and loaded
* :mod:`vitcourse.tokens` - patches, soft split, counting tokens, T2T's stage grids, rebuilding images
* :mod:`vitcourse.position` - sinusoidal and learned position embeddings
* :mod:`vitcourse.attention` - multi-head attention, step by step or fused
* :mod:`vitcourse.blocks` - MLP, encoder block, token transformer
* :mod:`vitcourse.models` - ViT, Tokens-to-Token, T2T-ViT and their presets
* :mod:`vitcourse.scenes` - random scenes of the picture's world: the training data
* :mod:`vitcourse.train` - training small ViTs and T2T-ViTs from scratch
* :mod:`vitcourse.probes` - measures of what a trained model learned
* :mod:`vitcourse.rollout` - attention rollout: the prediction token's attention followed through every block

Around them:

* :mod:`vitcourse.plots` - every figure the course draws
* :mod:`vitcourse.diagrams` - the architecture diagrams, drawn by code
* :mod:`vitcourse.widgets` - the notebooks' interactive explorers (ipywidgets)
* :mod:`vitcourse.check` - the exercise checkers: machinery in ``check._core``, one module per notebook
* :mod:`vitcourse.cost` - multiply-adds counted during a forward pass
* :mod:`vitcourse.checkpoints` - loading timm and official T2T-ViT checkpoints
* :mod:`vitcourse.device` - the one place that picks the device (:func:`get_device`)
* :mod:`vitcourse.bench` - speed and memory benchmarks (``python -m vitcourse.bench``)
* :mod:`vitcourse.classroom` - student copies without solutions (``python -m vitcourse.classroom``)
* :mod:`vitcourse.preview` - writes the shipped picture and its preview (``python -m vitcourse.preview``)
* ``vitcourse._validate`` - the argument checks every module shares (internal)
"""

from .data import HEIGHT, WIDTH, load_mountains, to_tensor
from .device import get_device
from .models import T2TViT, TokensToToken, VisionTransformer, count_parameters, create_model
from .tokens import count_tokens

__version__ = "0.1.0"

__all__ = [
    "HEIGHT",
    "WIDTH",
    "load_mountains",
    "to_tensor",
    "count_tokens",
    "VisionTransformer",
    "TokensToToken",
    "T2TViT",
    "create_model",
    "count_parameters",
    "get_device",
    "__version__",
]
