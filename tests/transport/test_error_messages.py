"""An error names what the user called, and the page of a listing (``catalogs.contents page 2``),
and says why no answer came in words built from the request's URL (never aiohttp's connection
key, which says ``ssl:default`` of a plain http connection)."""

from __future__ import annotations

import socket

import pytest

from enterprise_async import APIConnectionError, EnterpriseClient, IncompleteListingError, ServerError
from enterprise_async.testing import Fault, Sandbox

CONTENTS = "/enterprise/v2/enterprise-catalogs/{}"


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_refused_connection_names_the_operation_the_page_and_the_address() -> None:
    async with Sandbox(seed=0) as sandbox:
        port = closed_port()
        client = EnterpriseClient(
            client_id=sandbox.client_id,
            client_secret=sandbox.client_secret,
            base_url=f"http://127.0.0.1:{port}",
            auth_url=sandbox.auth_url,
            max_retries=0,
        )
        async with client:
            with pytest.raises(APIConnectionError) as caught:
                await client.catalogs.list().to_list()
    message = str(caught.value)
    assert message.startswith(f"catalogs.list page 1: GET http://127.0.0.1:{port}/enterprise/v2/")
    assert f"failed: cannot connect to 127.0.0.1:{port} (Connection refused) (request id " in message
    assert "ssl" not in message


async def test_a_later_page_that_fails_is_named_by_operation_and_page() -> None:
    async with Sandbox(seed=0) as sandbox:
        catalog = sandbox.data.catalogs[0].uuid
        sandbox.faults.inject(CONTENTS.format(catalog), Fault.server_error(500), times=None, skip=1)
        async with sandbox.client(max_retries=0) as client:
            with pytest.raises(IncompleteListingError) as caught:
                await client.catalogs.contents(catalog, limit=5).to_list()
    message = str(caught.value)
    assert message.startswith("catalogs.contents page 2 failed after 5 items of ")
    assert f": ServerError: GET {sandbox.base_url}/" in message
    assert message.count("catalogs.contents") == 1  # the page's own error is not named twice
    assert isinstance(caught.value.__cause__, ServerError)
    assert str(caught.value.__cause__).startswith(f"catalogs.contents page 2: GET {sandbox.base_url}/")


async def test_a_dropped_connection_says_the_server_closed_it() -> None:
    async with Sandbox(seed=0) as sandbox:
        catalog = sandbox.data.catalogs[0].uuid
        sandbox.faults.inject(CONTENTS.format(catalog), Fault.drop(), times=None)
        async with sandbox.client(max_retries=0) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.catalogs.contents(catalog).to_list()
    port = sandbox.base_url.rsplit(":", 1)[1].rstrip("/")
    assert str(caught.value).startswith(f"catalogs.contents page 1: GET {sandbox.base_url.rstrip('/')}/")
    closed = f"failed: 127.0.0.1:{port} closed the connection without answering (request id "
    assert closed in str(caught.value)
