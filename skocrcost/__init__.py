"""skocrcost: learn what each OCR character error costs, as a scikit-learn string metric."""

from ._costs import CostTables
from ._counting import EditCounts
from ._kernels import get_kernel_config, kernel_config
from .correction import (
    OCRCorrector,
    OCRCorrectorCV,
    character_error_rate,
    word_error_rate,
)
from .datasets import pretrained
from .edit_distance import WeightedEditDistance
from .estimator import EditCostEstimator
from .lm import KatzBackoffLM
from .metrics import EditOperation, WeightedLevenshtein
from .neighbors import EditDistanceNeighbors
from .plotting import plot_costs

__version__ = "0.1.0"

__all__ = [
    "CostTables",
    "EditCostEstimator",
    "EditDistanceNeighbors",
    "EditCounts",
    "EditOperation",
    "KatzBackoffLM",
    "OCRCorrector",
    "OCRCorrectorCV",
    "WeightedEditDistance",
    "WeightedLevenshtein",
    "character_error_rate",
    "get_kernel_config",
    "kernel_config",
    "plot_costs",
    "pretrained",
    "word_error_rate",
    "__version__",
]
