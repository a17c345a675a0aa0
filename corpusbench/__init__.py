"""corpusbench: corpus-specific benchmarks for language models."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("corpusbench")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+unknown"

from corpusbench.assets.paths import export_nltk_data

export_nltk_data()

__all__ = ["__version__"]
