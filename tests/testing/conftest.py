"""Fixtures of the sandbox's tests: a running sandbox, and a raw HTTP client that speaks to it
the way any tool would (aiohttp, a token fetched by hand, JSON or XML as asked)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import orjson
import pytest
from attrs import frozen
from multidict import CIMultiDictProxy

from enterprise_async._utils.xml import parse_drf_xml
from enterprise_async.testing import Sandbox

TOKEN_PATH = "/oauth2/v1/access_token"


@frozen
class Answer:
    """A raw response: status, headers, body bytes, and the body decoded from JSON or XML."""

    status: int
    headers: CIMultiDictProxy[str]
    raw: bytes

    @property
    def data(self) -> Any:
        if not self.raw:
            return None
        kind = self.headers.get("Content-Type", "")
        if kind.startswith("application/json"):
            return orjson.loads(self.raw)
        if kind.startswith("application/xml"):
            return parse_drf_xml(self.raw)
        return self.raw.decode()


class RawAPI:
    """Plain HTTP to a sandbox, with a token fetched through the form grant."""

    def __init__(self, sandbox: Sandbox, session: aiohttp.ClientSession) -> None:
        self.sandbox = sandbox
        self.session = session
        self.token: str | None = None

    async def grant(self, **overrides: str) -> Answer:
        form = {
            "grant_type": "client_credentials",
            "client_id": self.sandbox.client_id,
            "client_secret": self.sandbox.client_secret,
            "token_type": "jwt",
            **overrides,
        }
        return await self.request("POST", TOKEN_PATH, data=form, authenticated=False)

    async def fresh_token(self) -> str:
        answer = await self.grant()
        assert answer.status == 200, answer.raw
        token = str(answer.data["access_token"])
        self.token = token
        return token

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        data: Any = None,
        accept: str | None = "application/json",
        authenticated: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        sent: dict[str, str] = dict(headers or {})
        if accept is not None:
            sent.setdefault("Accept", accept)
        if authenticated:
            token = self.token or await self.fresh_token()
            sent.setdefault("Authorization", f"JWT {token}")
        url = path if path.startswith("http") else self.sandbox.base_url + path
        async with self.session.request(
            method, url, params=params, json=json, data=data, headers=sent
        ) as response:
            return Answer(response.status, response.headers, await response.read())

    async def get(self, path: str, **kwargs: Any) -> Answer:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Answer:
        return await self.request("POST", path, **kwargs)


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    """The sandbox under its reference profile: these tests check the API as the reference
    documents it (XML, every customer's data reachable); test_as_the_services.py checks the
    default profile, the services as they answer."""
    async with Sandbox(seed=0, profile="reference") as running:
        yield running


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


@pytest.fixture
async def api(sandbox: Sandbox, session: aiohttp.ClientSession) -> RawAPI:
    return RawAPI(sandbox, session)
