"""Reading a response leaves the cyclic garbage collector as the application set it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import orjson
import pytest

from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._response.answer import Answer
from enterprise_async._response.responses import RawResponse
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import CatalogPage

LIST_CATALOGS = OPERATIONS["catalogs.list"]


def response(body: bytes, content_type: str = "application/json") -> RawResponse:
    return RawResponse(
        status=200,
        reason="OK",
        headers={"Content-Type": content_type},
        body=body,
        method="GET",
        path="/enterprise/v2/enterprise-catalogs/",
    )


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


@pytest.fixture
def collector_off() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_stays_on_while_a_body_is_decoded() -> None:
    """With a low threshold, the young generation is collected while a page of a hundred catalogs is
    decoded: the collector was never switched off for it."""
    page = {
        "count": 100,
        "results": [
            {"uuid": f"c-{number}", "title": "T", "enterprise_customer": "e"} for number in range(100)
        ],
    }
    answer = Answer(LIST_CATALOGS, response(orjson.dumps(page)), CONVERSION)
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    threshold = gc.get_threshold()
    gc.callbacks.append(count)
    gc.set_threshold(10)
    try:
        decoded = answer.result()
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(count)

    assert isinstance(decoded, CatalogPage)
    assert len(decoded.results) == 100
    assert collections  # none would run had the decode switched the collector off
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_on_after_a_decode_that_fails() -> None:
    with pytest.raises(ResponseDecodeError):
        Answer(LIST_CATALOGS, response(b'{"results": '), CONVERSION).result()
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_off")
def test_a_collector_the_application_turned_off_stays_off() -> None:
    Answer(LIST_CATALOGS, response(orjson.dumps({"count": 0, "results": []})), CONVERSION).result()
    assert not gc.isenabled()
