"""``{{ code|in_words }}``: the pipeline's reason and category codes
(``no_tag``, ``missing_item``) as a reviewer reads them on the review pages."""

from __future__ import annotations

import re

from django import template

register = template.Library()

# Codes whose plain reading needs more than spaces for underscores.
WORDS = {
    "no_tag": "no GOAL tag",
    "tag_too_long": "GOAL tag too long",
    "empty_inner": "empty GOAL tag",
    "no_goal": "no goal",
}
CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")


@register.filter(name="in_words")
def in_words(code: object) -> str:
    """The code in words: a known one as ``WORDS`` says, any other code
    (lower case words joined by underscores) with spaces for underscores;
    any other text (an error message) as it is."""
    text = str(code) if code is not None else ""
    if text in WORDS:
        return WORDS[text]
    return text.replace("_", " ") if CODE.fullmatch(text) else text
