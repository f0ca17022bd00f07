"""A request the sandbox cannot parse (a NUL in a header, as schemathesis sends) is answered 400
and noted in one DEBUG line, not logged as an error with aiohttp's traceback."""

from __future__ import annotations

import asyncio
import logging

import pytest

from enterprise_async.testing import Sandbox


async def test_a_malformed_request_is_answered_400_and_noted_in_one_debug_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="enterprise_async.testing.server")
    async with Sandbox(seed=0) as sandbox:
        host, port = sandbox.base_url.removeprefix("http://").rstrip("/").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET /enterprise/v2/enterprise-catalogs HTTP/1.1\r\nHost: x\r\nX-Probe: \x00\r\n\r\n")
        await writer.drain()
        status_line = await reader.readline()
        writer.close()
        await writer.wait_closed()
    assert status_line.split()[1] == b"400"
    (record,) = [record for record in caplog.records if record.name == "enterprise_async.testing.server"]
    assert record.levelno == logging.DEBUG
    assert record.exc_info is None
    assert "answered 400" in record.getMessage()
    assert "\n" not in record.getMessage()
