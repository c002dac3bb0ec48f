"""The limits of one posted thought, shared by the API's serializer and its
schema.

``ThoughtInputSerializer`` is the one check of a posted thought. A second,
hand-made check of the plain bodies beside it bought 1.04-1.22x thoughts/s
through POST /thoughts (``bench/fastpaths.py``), under the 1.5x a second
implementation must earn.
"""

from __future__ import annotations

from typing import Final

CONTENT_MAX_CHARS: Final = 20_000
TYPE_PATTERN: Final = r"^[a-z][a-z0-9_\-]{0,63}$"
DEFAULT_TYPE: Final = "reflection"
