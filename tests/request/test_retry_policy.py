"""Tunable retries: a ``RetryPolicy`` (initial and maximum delay, jitter, the statuses it retries)
set per client, per ``with_options`` view or per call; a POST stays safe whatever the policy."""

from __future__ import annotations

import pytest
from aiohttp import web

from enterprise_async import APIStatusError, ClientValidationError, RetryPolicy, ServerError
from tests.conftest import Backoffs, ScriptedAPI

CATALOG = "5b0b3e9c-58d6-4d6b-a63b-8c2ef5e0e5a1"
COURSE = f"/enterprise/v2/enterprise-catalogs/{CATALOG}/courses/edX+DemoX"
POLICY = "7a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
ALLOCATE = f"/enterprise/v1/policy-allocation/{POLICY}/allocate/"
EXACT = RetryPolicy(initial_delay=1.0, max_delay=3.0, jitter=0)


def always(api: ScriptedAPI, method: str, path: str, status: int, **headers: str) -> None:
    api.json(method, path, {"detail": "try again"}, status=status, **headers)


async def course(client: object, **keywords: object) -> object:
    return await client.catalogs.course(CATALOG, "edX+DemoX", **keywords)  # type: ignore[attr-defined]


async def test_delays_double_from_the_initial_delay_up_to_the_maximum(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    always(api, "GET", COURSE, 503)
    async with api.client(retry=no_sleep.of(EXACT), max_retries=4) as client:
        with pytest.raises(ServerError):
            await course(client)
    assert no_sleep == [1.0, 2.0, 3.0, 3.0]


async def test_jitter_draws_each_delay_within_its_share(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    always(api, "GET", COURSE, 503)
    policy = RetryPolicy(initial_delay=2.0, max_delay=2.0, jitter=0.25)
    async with api.client(retry=no_sleep.of(policy), max_retries=20) as client:
        with pytest.raises(ServerError):
            await course(client)
    assert len(no_sleep) == 20
    assert all(1.5 <= delay <= 2.0 for delay in no_sleep)
    assert len(set(no_sleep)) > 1


async def test_the_policys_statuses_decide_what_a_get_retries(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    always(api, "GET", COURSE, 409)
    async with api.client(retry=no_sleep.of(RetryPolicy(retry_statuses={409})), max_retries=2) as client:
        with pytest.raises(APIStatusError):
            await course(client)
    assert len(api.calls("GET", COURSE)) == 3


async def test_a_status_left_out_of_the_policy_is_not_retried(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    always(api, "GET", COURSE, 503)
    async with api.client(retry=no_sleep.of(RetryPolicy(retry_statuses={502}))) as client:
        with pytest.raises(ServerError):
            await course(client)
    assert len(api.calls("GET", COURSE)) == 1


async def test_a_post_is_not_retried_on_a_policy_status(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    always(api, "POST", ALLOCATE, 500)
    async with api.client(retry=no_sleep.of(RetryPolicy(retry_statuses={500}))) as client:
        with pytest.raises(ServerError):
            await client.policies.allocate(
                POLICY, learner_emails=["al@example.com"], content_key="k", content_price_cents=1
            )
    assert len(api.calls("POST", ALLOCATE)) == 1


async def test_a_post_is_still_retried_when_the_server_said_try_later(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    always(api, "POST", ALLOCATE, 429)
    async with api.client(retry=no_sleep.of(RetryPolicy(retry_statuses={503})), max_retries=1) as client:
        with pytest.raises(APIStatusError):
            await client.policies.allocate(
                POLICY, learner_emails=["al@example.com"], content_key="k", content_price_cents=1
            )
    assert len(api.calls("POST", ALLOCATE)) == 2


async def test_retry_after_replaces_the_backoff_up_to_the_policys_cap(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    always(api, "GET", COURSE, 503, **{"Retry-After": "30"})
    async with api.client(retry=no_sleep.of(EXACT.replace(max_retry_after=5.0)), max_retries=1) as client:
        with pytest.raises(ServerError):
            await course(client)
    assert no_sleep == [5.0]


async def test_a_view_has_its_own_policy_and_the_client_keeps_its(
    api: ScriptedAPI, no_sleep: Backoffs
) -> None:
    always(api, "GET", COURSE, 503)
    async with api.client(retry=no_sleep.of(EXACT), max_retries=1) as client:
        patient = client.with_options(
            retry=no_sleep.of(RetryPolicy(initial_delay=0.25, jitter=0)), max_retries=2
        )
        with pytest.raises(ServerError):
            await course(patient)
        assert no_sleep == [0.25, 0.5]
        with pytest.raises(ServerError):
            await course(client)
    assert no_sleep == [0.25, 0.5, 1.0]
    assert patient.options.retry.initial_delay == 0.25
    assert client.options.retry == no_sleep.of(EXACT)


async def test_a_call_has_its_own_policy(api: ScriptedAPI, no_sleep: Backoffs) -> None:
    always(api, "GET", COURSE, 503)
    async with api.client(retry=no_sleep.of(EXACT), max_retries=1) as client:
        with pytest.raises(ServerError):
            await course(client, retry=no_sleep.of(RetryPolicy(initial_delay=0.1, jitter=0)))
        with pytest.raises(ServerError):
            await client.request("GET", COURSE, retry=no_sleep.of(RetryPolicy(initial_delay=0.2, jitter=0)))
    assert no_sleep == [0.1, 0.2]


async def test_a_connection_refused_is_retried_with_the_policys_delays(no_sleep: Backoffs) -> None:
    from aiohttp.test_utils import unused_port

    from enterprise_async import APIConnectionError, EnterpriseClient

    async with EnterpriseClient(
        client_id="id",
        client_secret="secret-never-shown",
        base_url=f"http://127.0.0.1:{unused_port()}",
        retry=no_sleep.of(EXACT),
        max_retries=2,
    ) as client:
        with pytest.raises(APIConnectionError):
            await client.request("GET", "/enterprise/v1/x")
    assert no_sleep == [1.0, 2.0]


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"initial_delay": -1}, "initial_delay"),
        ({"max_delay": float("inf")}, "max_delay"),
        ({"initial_delay": 5, "max_delay": 1}, "max_delay"),
        ({"jitter": 1.5}, "jitter"),
        ({"retry_statuses": {200}}, "retry_statuses"),
        ({"retry_statuses": "503"}, "retry_statuses"),
    ],
)
def test_a_bad_policy_is_refused_with_a_typed_error(keywords: dict[str, object], named: str) -> None:
    with pytest.raises(ClientValidationError, match=named):
        RetryPolicy(**keywords)  # type: ignore[arg-type]


async def test_a_retry_that_is_not_a_policy_is_refused_before_sending(api: ScriptedAPI) -> None:
    async with api.client() as client:
        with pytest.raises(ClientValidationError, match="retry"):
            await course(client, retry=3)
    assert api.requests == []


def test_a_policy_travels_as_json_with_the_client_options() -> None:
    from enterprise_async._request.options import ClientOptions

    options = ClientOptions(retry=RetryPolicy(initial_delay=0.2, retry_statuses={502, 429}))
    assert ClientOptions.from_json(options.to_json()) == options
    assert options.to_json()["retry"]["retry_statuses"] == [429, 502]


async def test_a_retried_request_says_so_at_info_level(
    api: ScriptedAPI, caplog: pytest.LogCaptureFixture
) -> None:
    answers = iter([503, 200])

    @api.route("GET", COURSE)
    async def flaky(request: web.Request) -> web.Response:
        return web.json_response({"key": "edX+DemoX"}, status=next(answers))

    caplog.set_level("INFO", logger="enterprise_async")
    async with api.client(retry=RetryPolicy(initial_delay=0.01, jitter=0)) as client:
        await course(client)
    (record,) = [record for record in caplog.records if record.levelname == "INFO"]
    assert record.getMessage() == f"GET {COURSE}: retry 1 of 2 in 0.01 s after 503"
