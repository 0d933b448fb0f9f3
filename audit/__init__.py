"""agy-audit: format audit and contract verification for Antigravity session stores."""

__version__ = "0.1.0"
