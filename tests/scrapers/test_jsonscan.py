"""scrapers.jsonscan: the same answer as json.loads, for any text, decoded row by row."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapers import jsonscan

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=30,
)


@given(JSON, st.sampled_from([None, 0, 2]), st.sampled_from([(",", ":"), (", ", ": ")]))
def test_same_value_as_json_loads(value: Any, indent: int | None, separators: tuple[str, str]):
    text = json.dumps(value, indent=indent, separators=separators)
    assert jsonscan.loads(text) == json.loads(text)
    assert jsonscan.loads(text.encode()) == json.loads(text.encode())


@given(st.text(alphabet='[]{}",: \\n0123456789aetruflsn-.', max_size=40))
def test_fails_exactly_where_json_loads_fails(text: str):
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):  # noqa: PT011 - json.loads raises bare ValueErrors too
            jsonscan.loads(text)
    else:
        assert jsonscan.loads(text) == expected


def test_a_bom_and_bad_utf8():
    assert jsonscan.loads(b'\xef\xbb\xbf{"a": [1]}') == {"a": [1]}
    with pytest.raises(ValueError):  # noqa: PT011
        jsonscan.loads(b'{"a": "\xff"}')
