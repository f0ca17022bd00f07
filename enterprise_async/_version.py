"""The SDK's version (read by the build backend and sent in the User-Agent)."""

__version__ = "0.1.0"
