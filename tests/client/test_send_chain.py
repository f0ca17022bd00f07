"""The send chain reads in one sitting: from a resource method to ``session.request``, a few of the
SDK's frames, and each module of the runtime entered once on the way down (none left and entered
again).

The frames are read where aiohttp starts the request (a ``TraceConfig``'s ``on_request_start``,
called from within ``session.request``), walking back to the resource method the test called.
Only their files are compared, not their names: the test holds the shape of the path, not how its
functions are called.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any

import aiohttp

from enterprise_async import APIStatusError, EnterpriseClient
from enterprise_async.testing import Sandbox

PACKAGE = Path(__file__).resolve().parents[2] / "enterprise_async"
GENERATED = PACKAGE / "_generated"
TOKEN_PATH = "/oauth2/v1/access_token"
MOST_FRAMES = 6
"""Prepare, answer (send, then map the status), authenticate, retry, admit, send: the steps between a
resource method and the wire."""


def sdk_frames_below_the_resource_method(frame: FrameType | None) -> list[Path] | None:
    """The files of the SDK's hand-written frames between ``frame`` and the resource method that
    led to it, innermost first; None when no resource method led to it (the token request)."""
    files: list[Path] = []
    while frame is not None:
        path = Path(frame.f_code.co_filename).resolve()
        if path.is_relative_to(GENERATED):
            return files
        if path.is_relative_to(PACKAGE):
            files.append(path)
        frame = frame.f_back
    return None


async def chains_of_a_lookup() -> list[list[Path]]:
    """The SDK frames' files of every API request one ``client.catalogs.course`` sends."""
    seen: list[list[Path]] = []

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


async def test_a_call_reaches_the_wire_in_a_few_frames_entering_each_module_once() -> None:
    (chain,) = await chains_of_a_lookup()
    assert 3 <= len(chain) <= MOST_FRAMES
    entered = [path for number, path in enumerate(chain) if number == 0 or chain[number - 1] != path]
    assert len(entered) == len(set(entered)), [path.relative_to(PACKAGE) for path in reversed(chain)]


REQUEST_LAYER = PACKAGE / "_request"
ASSIGNMENT_CONFIGURATION = "00000000-0000-4000-8000-000000000001"


def request_layer_modules_entered_while_a_listing_is_prepared() -> list[Path]:
    """The request layer's modules, in the order the preparation of a listing's call enters them
    (a module entered again straight after itself is one entry). A listing's call checks its
    arguments and writes its query at once, before anything is sent: that is all it runs."""
    client = EnterpriseClient(client_id="id", client_secret="secret", base_url="http://127.0.0.1:9")
    entered: list[Path] = []

    def profile(frame: FrameType, event: str, _: Any) -> None:
        path = Path(frame.f_code.co_filename).resolve()
        if event == "call" and path.is_relative_to(REQUEST_LAYER) and (not entered or entered[-1] != path):
            entered.append(path)

    sys.setprofile(profile)
    try:
        client.assignments.list(
            ASSIGNMENT_CONFIGURATION,
            learner_email__in=["al@example.com", "bo@example.com"],
            lms_user_id__in=[1, 2],
            learner_state__in=["waiting"],
        )
    finally:
        sys.setprofile(None)
    return entered


def test_a_call_is_checked_and_written_in_one_pass_down_the_request_layer() -> None:
    """Once the request is being made, the arguments go down to their checks and their written
    form and come back: no module of the layer is entered twice on the way."""
    entered = request_layer_modules_entered_while_a_listing_is_prepared()
    making = entered.index(REQUEST_LAYER / "request.py")
    below = [path for path in entered[making:] if path != entered[making]]
    assert below
    assert len(below) == len(set(below)), [path.relative_to(PACKAGE) for path in entered]
