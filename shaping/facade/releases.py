"""What every adapter's version check raises: one error type, whatever the trainer."""

from __future__ import annotations


class UnsupportedRelease(ImportError):
    """The trainer an adapter plugs into is missing, or a release outside the adapter's range: the message names
    the supported releases and what to install (an ``ImportError``, so ``importorskip`` and plugin loaders that
    skip unimportable plugins treat it as the missing dependency it is)."""
