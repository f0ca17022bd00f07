"""Pagination: each family's envelope, ``?page=N`` links, sizes, the end, and ``next_host``."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import aiohttp
from attrs import evolve

from enterprise_async._generated.operations import OPERATIONS
from enterprise_async.testing import GENERATED_SPEC, DataSize, Sandbox, SpecTable

from .conftest import RawAPI

POLICIES = "/enterprise/v1/subsidy-access-policies/"
CATALOGS = "/enterprise/v2/enterprise-catalogs"
SUBSCRIPTIONS = "/enterprise/v1/subscriptions"


def _assignments(configuration: str) -> str:
    return f"/enterprise/v1/assignment-configurations/{configuration}/admin/assignments/"


def _query(link: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(link).query)


async def test_policy_envelope_has_the_policy_fields(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    body = (await api.get(POLICIES, params={"enterprise_customer_uuid": customer, "page_size": "2"})).data
    assert list(body) == ["next", "previous", "count", "num_pages", "current_page", "start", "results"]
    assert (body["count"], body["num_pages"], body["current_page"], body["start"]) == (3, 2, 1, 0)
    assert len(body["results"]) == 2


async def test_policy_second_page_starts_after_the_first(api: RawAPI, sandbox: Sandbox) -> None:
    customer = sandbox.data.customers[0].uuid
    params = {"enterprise_customer_uuid": customer, "page_size": "2", "page": "2"}
    body = (await api.get(POLICIES, params=params)).data
    assert (body["current_page"], body["start"], len(body["results"])) == (2, 2, 1)
    assert body["next"] is None
    assert "page" not in _query(body["previous"])


async def test_assignment_envelope_has_the_assignment_fields(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    body = (await api.get(_assignments(configuration), params={"page_size": "7"})).data
    assert list(body) == [
        "count",
        "page_count",
        "page_size",
        "current_page",
        "next",
        "previous",
        "results",
        "learner_state_counts",
    ]
    assert (body["count"], body["page_count"], body["page_size"], body["current_page"]) == (30, 5, 7, 1)


async def test_plain_envelope_has_count_next_previous_results(api: RawAPI) -> None:
    body = (await api.get(SUBSCRIPTIONS)).data
    assert list(body) == ["count", "next", "previous", "results"]


async def test_next_link_numbers_the_page_and_keeps_the_query(api: RawAPI, sandbox: Sandbox) -> None:
    configuration = sandbox.data.assignment_configurations[0]
    params = {"page_size": "4", "state__in": "allocated,errored"}
    body = (await api.get(_assignments(configuration), params=params)).data
    query = _query(body["next"])
    assert query == {"page_size": ["4"], "state__in": ["allocated,errored"], "page": ["2"]}
    assert body["next"].startswith(sandbox.base_url + _assignments(configuration))


async def test_following_next_links_visits_every_item_once(api: RawAPI, sandbox: Sandbox) -> None:
    catalog = sandbox.data.catalogs[0].uuid
    link: str | None = f"{sandbox.base_url}{CATALOGS}/{catalog}?page_size=10"
    seen: list[str] = []
    while link:
        body = (await api.get(link)).data
        seen.extend(item.get("key") or item["uuid"] for item in body["results"])
        link = body["next"]
    assert len(seen) == len(set(seen)) == 45


async def test_contents_default_to_ten_items_a_page_as_enterprise_catalog_does(
    api: RawAPI, sandbox: Sandbox
) -> None:
    body = (await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}")).data
    assert body["count"] == 45
    assert len(body["results"]) == 10
    assert _query(body["next"])["page"] == ["2"]


async def test_contents_honour_page_size(api: RawAPI, sandbox: Sandbox) -> None:
    body = (await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}", params={"page_size": "7"})).data
    assert len(body["results"]) == 7
    assert _query(body["next"]) == {"page_size": ["7"], "page": ["2"]}


async def test_contents_pages_hold_at_most_a_hundred_items(session: aiohttp.ClientSession) -> None:
    # edx-drf-extensions' DefaultPagination: max_page_size 100; a larger page_size is brought down to it
    async with Sandbox(size=DataSize(catalog_items=250)) as sandbox:
        catalog = sandbox.data.catalogs[0].uuid
        body = (await RawAPI(sandbox, session).get(f"{CATALOGS}/{catalog}", params={"page_size": "500"})).data
    assert (body["count"], len(body["results"])) == (250, 100)
    assert _query(body["next"]) == {"page_size": ["500"], "page": ["2"]}


async def test_the_references_limit_never_reaches_the_contents(api: RawAPI, sandbox: Sandbox) -> None:
    # the gateway forwards page and page_size only (api-compact.yaml): limit leaves the default page
    body = (await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}", params={"limit": "40"})).data
    assert len(body["results"]) == 10


async def test_the_catalog_list_takes_any_page_size(session: aiohttp.ClientSession) -> None:
    # PageNumberWithSizePagination sets no max_page_size
    async with Sandbox(size=DataSize(catalogs_per_customer=50), profile="reference") as sandbox:
        body = (await RawAPI(sandbox, session).get(CATALOGS, params={"page_size": "150"})).data
    assert (body["count"], len(body["results"]), body["next"]) == (150, 150, None)


async def test_last_page_holds_the_remainder(api: RawAPI, sandbox: Sandbox) -> None:
    params = {"page_size": "20", "page": "3"}
    body = (await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}", params=params)).data
    assert len(body["results"]) == 5
    assert body["next"] is None
    assert _query(body["previous"])["page"] == ["2"]


async def test_page_beyond_the_end_answers_404(api: RawAPI, sandbox: Sandbox) -> None:
    answer = await api.get(f"{CATALOGS}/{sandbox.data.catalogs[0].uuid}", params={"page": "6"})
    assert answer.status == 404
    assert answer.data == {"detail": "Invalid page."}


async def test_page_zero_answers_404(api: RawAPI) -> None:
    assert (await api.get(CATALOGS, params={"page": "0"})).status == 404


async def test_non_positive_page_size_answers_400(api: RawAPI, sandbox: Sandbox) -> None:
    answer = await api.get(_assignments(sandbox.data.assignment_configurations[0]), params={"page_size": "0"})
    assert answer.status == 400
    assert "page_size" in answer.data


async def test_empty_listing_has_an_empty_first_page(api: RawAPI) -> None:
    params = {"enterprise_customer_uuid": "00000000-0000-4000-8000-000000000000"}
    body = (await api.get(POLICIES, params=params)).data
    assert (body["count"], body["num_pages"], body["results"]) == (0, 1, [])


async def test_next_host_makes_links_name_the_backend(session: aiohttp.ClientSession) -> None:
    async with Sandbox(next_host="http://backend.internal:8000", profile="reference") as sandbox:
        api = RawAPI(sandbox, session)
        body = (await api.get(SUBSCRIPTIONS, params={"page_size": "2", "page": "2"})).data
    assert body["next"] == f"http://backend.internal:8000{SUBSCRIPTIONS}?page_size=2&page=3"
    assert body["previous"] == f"http://backend.internal:8000{SUBSCRIPTIONS}?page_size=2"


async def test_page_sizes_can_be_configured(session: aiohttp.ClientSession) -> None:
    async with Sandbox(page_sizes={"catalogs": 4}, profile="reference") as sandbox:
        body = (await RawAPI(sandbox, session).get(CATALOGS)).data
    assert (body["count"], len(body["results"])) == (6, 4)


async def test_large_catalog_pages_deep_without_holding_items(session: aiohttp.ClientSession) -> None:
    async with Sandbox(size=DataSize(catalog_items=100_000), profile="reference") as sandbox:
        catalog = sandbox.data.catalogs[1]
        api = RawAPI(sandbox, session)
        body = (await api.get(f"{CATALOGS}/{catalog.uuid}", params={"page_size": "50", "page": "2000"})).data
        beyond = await api.get(f"{CATALOGS}/{catalog.uuid}", params={"page_size": "50", "page": "2001"})
    assert body["count"] == 100_000
    assert len(body["results"]) == 50
    assert body["next"] is None
    assert body["results"][-1] == sandbox.data.item(catalog, 99_999)
    assert beyond.status == 404


def _catalogs_paged(**pagination: object) -> SpecTable:
    """The generated spec with the catalog listing's ``x-sdk-pagination`` altered as ``pagination`` says."""
    listing = OPERATIONS["catalogs.list"]
    assert listing.pagination is not None
    altered = evolve(listing, pagination=evolve(listing.pagination, **pagination))
    # the page's schema holds its items under the new name, as a spec with that envelope would
    items = pagination.get("items", "results")
    page = dict(GENERATED_SPEC.components["CatalogPage"])
    page["required"] = [items] if items else []
    components = {**GENERATED_SPEC.components, "CatalogPage": page}
    return evolve(GENERATED_SPEC, operations={**OPERATIONS, "catalogs.list": altered}, components=components)


async def test_a_handler_pages_in_the_envelope_its_operation_describes(
    session: aiohttp.ClientSession,
) -> None:
    spec = _catalogs_paged(
        items="data",
        next_field=None,
        count_field="total",
        pages_field="total_pages",
        size_field="per_page",
        page_param="p",
        size_param="per_page",
    )
    async with Sandbox(spec=spec, profile="reference") as sandbox:
        body = (await RawAPI(sandbox, session).get(CATALOGS, params={"per_page": "4", "p": "2"})).data
        catalogs = [catalog.wire() for catalog in sandbox.data.catalogs]
    assert body == {"total": 6, "total_pages": 2, "per_page": 4, "data": catalogs[4:]}


async def test_a_handler_answers_a_bare_list_when_its_operation_says_so(
    session: aiohttp.ClientSession,
) -> None:
    async with Sandbox(spec=_catalogs_paged(items=None, size_param="size"), profile="reference") as sandbox:
        body = (await RawAPI(sandbox, session).get(CATALOGS, params={"size": "5"})).data
        catalogs = [catalog.wire() for catalog in sandbox.data.catalogs]
    assert body == catalogs[:5]
