"""Reading a response leaves the cyclic garbage collector as the application set it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import orjson
import pytest

from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._response import model_reading
from enterprise_async._response.model_reading import read_result
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
def test_the_collector_stays_on_while_a_body_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    decode_body = model_reading.decode_body

    def watched(response: RawResponse) -> object:
        seen.append(gc.isenabled())
        return decode_body(response)

    monkeypatch.setattr(model_reading, "decode_body", watched)
    page = read_result(LIST_CATALOGS, response(orjson.dumps({"count": 0, "results": []})), CONVERSION)

    assert isinstance(page, CatalogPage)
    assert seen == [True]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_on_after_a_decode_that_fails() -> None:
    with pytest.raises(ResponseDecodeError):
        read_result(LIST_CATALOGS, response(b'{"results": '), CONVERSION)
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_off")
def test_a_collector_the_application_turned_off_stays_off() -> None:
    read_result(LIST_CATALOGS, response(orjson.dumps({"count": 0, "results": []})), CONVERSION)
    assert not gc.isenabled()
