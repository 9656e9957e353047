import os

import pytest
import torch

# The unit tests use the shipped picture whatever the learner's environment says.
os.environ.pop("VITCOURSE_IMAGE", None)


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)
