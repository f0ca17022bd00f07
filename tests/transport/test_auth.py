"""Tokens: one request serves every concurrent caller, reused until shortly before expiry,
refreshed once per stale token, shareable among workers through a TokenCache."""

from __future__ import annotations

import asyncio

import pytest

from enterprise_async import CachedToken, InMemoryTokenCache
from enterprise_async._transport.auth import TokenProvider, token_cache_key


class Issuer:
    """A token endpoint double: counts requests and can be slow."""

    def __init__(self, lifetime: float = 3600.0, delay: float = 0.0) -> None:
        self.lifetime = lifetime
        self.delay = delay
        self.issued = 0

    async def __call__(self) -> tuple[str, float]:
        self.issued += 1
        number = self.issued
        await asyncio.sleep(self.delay)
        return f"token-{number}", self.lifetime


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def provider(issuer: Issuer, clock: Clock, cache: InMemoryTokenCache | None = None) -> TokenProvider:
    return TokenProvider(issuer, cache=cache or InMemoryTokenCache(), key="k", clock=clock)


async def test_one_token_request_serves_a_thousand_concurrent_callers() -> None:
    issuer = Issuer(delay=0.01)
    tokens = provider(issuer, Clock())
    values = await asyncio.gather(*(tokens.token() for _ in range(1000)))
    assert set(values) == {"token-1"}
    assert issuer.issued == 1


async def test_token_is_reused_until_shortly_before_expiry() -> None:
    issuer, clock = Issuer(lifetime=3600), Clock()
    tokens = provider(issuer, clock)
    await tokens.token()
    clock.now += 3600 - 61
    assert await tokens.token() == "token-1"
    clock.now += 2
    assert await tokens.token() == "token-2"


async def test_a_two_second_token_is_reused_for_most_of_its_life() -> None:
    issuer, clock = Issuer(lifetime=2), Clock()
    tokens = provider(issuer, clock)
    await tokens.token()
    clock.now += 1.7
    assert await tokens.token() == "token-1"
    clock.now += 0.2
    assert await tokens.token() == "token-2"


async def test_refresh_after_401_is_shared_by_every_call_that_saw_the_stale_token() -> None:
    issuer = Issuer(delay=0.01)
    tokens = provider(issuer, Clock())
    stale = await tokens.token()
    refreshed = await asyncio.gather(*(tokens.refresh(stale) for _ in range(50)))
    assert {outcome.value for outcome in refreshed} == {"token-2"}
    assert [outcome.fetched for outcome in refreshed].count(True) == 1
    assert issuer.issued == 2


async def test_refresh_with_an_already_replaced_token_fetches_nothing() -> None:
    issuer = Issuer()
    tokens = provider(issuer, Clock())
    assert (await tokens.refresh("token-0")).fetched
    assert issuer.issued == 1
    again = await tokens.refresh("something-older")
    assert (again.value, again.fetched) == ("token-1", False)
    assert issuer.issued == 1


async def test_workers_sharing_a_cache_share_the_token() -> None:
    cache, clock = InMemoryTokenCache(), Clock()
    first_issuer, second_issuer = Issuer(), Issuer()
    first = provider(first_issuer, clock, cache)
    second = provider(second_issuer, clock, cache)
    assert await first.token() == await second.token()
    assert (first_issuer.issued, second_issuer.issued) == (1, 0)


def test_cached_token_repr_never_shows_the_token() -> None:
    token = CachedToken.issued("eyJ.secret.token", 60, now=0)
    assert "eyJ" not in repr(token)


@pytest.mark.parametrize(("lifetime", "reused_for"), [(2, 1.8), (60, 54), (3600, 3540), (86400, 86340)])
def test_safety_margin_scales_with_the_lifetime(lifetime: float, reused_for: float) -> None:
    token = CachedToken.issued("t", lifetime, now=0)
    assert token.refresh_at == pytest.approx(reused_for)


def test_cache_key_names_issuer_and_client_but_not_the_secret() -> None:
    key = token_cache_key("https://auth.example.org", "client-1")
    assert key != token_cache_key("https://auth.example.org", "client-2")
    assert "client-1" not in key
