"""A Jupyter kernel for tes: each cell goes to a `tes --serve` child process (docs/jupyter.md)."""

__version__ = "0.1.0"
