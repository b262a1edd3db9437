"""site-builder: multilingual static report sites from Markdown articles and benchmark results."""

__version__ = "0.1.0"
