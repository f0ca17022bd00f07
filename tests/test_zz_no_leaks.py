"""Runs last: nothing the whole suite made the SDK say carried a client secret or a token."""

from __future__ import annotations

import pytest

from tests.conftest import CLIENT_SECRET, WATCH


@pytest.mark.last
def test_no_error_message_or_log_record_of_the_suite_carries_a_secret_or_token() -> None:
    assert len(WATCH.said) > 100, "the watch saw too little of the run to mean anything"
    assert WATCH.leaks() == []


def test_the_watch_catches_a_leak() -> None:
    before = len(WATCH.said)
    WATCH.said.append(("probe", f"oops {CLIENT_SECRET}"))
    WATCH.said.append(("probe", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"))
    try:
        assert len(WATCH.leaks()) == 2
    finally:
        del WATCH.said[before:]
