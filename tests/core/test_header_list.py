"""Header lists (``Name=value,Name2=value2``): parsed in order, values
percent-decoded, and a bad entry named by position without its value."""

from __future__ import annotations

import pytest

from core.header_list import HeaderListInvalid, parse_header_list


def test_pairs_in_order_with_percent_decoded_values_and_blank_entries_skipped() -> None:
    assert parse_header_list("A=1, b = x%20y ,,C=a=b", setting="S") == (
        ("A", "1"),
        ("b", "x y"),
        ("C", "a=b"),
    )
    assert parse_header_list("", setting="S") == ()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("A=1,secret", "S: entry 2 has no '=' (write Name=value)"),
        ("bad name=1", "S: entry 1 has no valid header name"),
        ("=1", "S: entry 1 has no valid header name"),
        ("A=x%0Dy", "S: entry 1 has a line break in its value"),
    ],
)
def test_a_bad_entry_is_named_by_position_never_by_value(
    text: str, reason: str
) -> None:
    with pytest.raises(HeaderListInvalid) as refused:
        parse_header_list(text, setting="S")
    assert str(refused.value) == reason
    assert "secret" not in str(refused.value)
