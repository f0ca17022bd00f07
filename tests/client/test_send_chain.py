"""The send chain reads in one sitting: from a resource method to ``session.request``, four of the
SDK's frames, one step each (prepare, authenticate, retry, send).

The frames are read where aiohttp starts the request (a ``TraceConfig``'s ``on_request_start``,
called from within ``session.request``), walking back to the resource method the test called.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any

import aiohttp

from enterprise_async import APIStatusError
from enterprise_async.testing import Sandbox

PACKAGE = Path(__file__).resolve().parents[2] / "enterprise_async"
GENERATED = PACKAGE / "_generated"
TOKEN_PATH = "/oauth2/v1/access_token"


def sdk_frames_below_the_resource_method(frame: FrameType | None) -> list[str] | None:
    """The names of the SDK's hand-written frames between ``frame`` and the resource method that
    led to it, innermost first; None when no resource method led to it (the token request)."""
    names: list[str] = []
    while frame is not None:
        path = Path(frame.f_code.co_filename).resolve()
        if path.is_relative_to(GENERATED):
            return names
        if path.is_relative_to(PACKAGE):
            names.append(qualified_name(frame))
        frame = frame.f_back
    return None


def qualified_name(frame: FrameType) -> str:
    """``Class.method`` of a frame: its code's ``co_qualname`` (Python 3.11+), else the class of
    ``self`` whose own dictionary holds the function running (Python 3.10)."""
    code = frame.f_code
    if hasattr(code, "co_qualname"):
        return str(code.co_qualname)
    owner = frame.f_locals.get("self")
    for cls in type(owner).__mro__ if owner is not None else ():
        if getattr(cls.__dict__.get(code.co_name), "__code__", None) is code:
            return f"{cls.__name__}.{code.co_name}"
    return code.co_name


async def chains_of_a_lookup() -> list[list[str]]:
    """The SDK frames of every API request one ``client.catalogs.course`` sends."""
    seen: list[list[str]] = []

    async def on_request_start(session: Any, context: SimpleNamespace, params: Any) -> None:
        names = sdk_frames_below_the_resource_method(sys._getframe())
        if names is not None and params.url.path != TOKEN_PATH:  # the token request is not the call's
            seen.append(names)

    tracing = aiohttp.TraceConfig()
    tracing.on_request_start.append(on_request_start)
    async with Sandbox(seed=0) as sandbox, aiohttp.ClientSession(trace_configs=[tracing]) as session:
        client = sandbox.client(session=session)
        async with client:
            with contextlib.suppress(APIStatusError):  # answered or refused, the request went the same way
                await client.catalogs.course(str(uuid.uuid4()), "edX+DemoX")
    return seen


async def test_a_call_reaches_the_wire_through_four_frames_one_step_each() -> None:
    (chain,) = await chains_of_a_lookup()
    assert list(reversed(chain)) == [
        "BaseClient.call",  # prepare
        "Transport.send",  # authenticate
        "Transport._retrying",  # retry
        "Wire.send",  # send
    ]
