"""The installed version, read from the package metadata (written once, in pyproject.toml)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("evalframe")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
