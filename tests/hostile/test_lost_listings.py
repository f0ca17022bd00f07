"""Listings that lose data: short links, lying counts, a middle page that keeps failing.

Each test shows the typed error (``IncompleteListingError``: the page, the items received) and
that nothing the server did send was lost; only the services' own "Invalid page." answer past
the last page ends a listing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from enterprise_async import IncompleteListingError, NotFoundError, ResponseDecodeError, ServerError
from enterprise_async.cli import cli
from enterprise_async.models import to_dict
from tests.hostile.lost_server import INVALID_PAGE, Listing, LostServer, items, serving

CATALOG = "c0ffee00-0000-4000-8000-000000000001"


@pytest.fixture
def server() -> Iterator[LostServer]:
    with serving() as running:
        yield running


def keys(received: list[Any]) -> list[str]:
    return [to_dict(item)["key"] for item in received]


@pytest.mark.parametrize(
    ("failure", "cause"),
    [
        pytest.param((404, {"detail": "Not found."}), NotFoundError, id="404"),
        # Pages are decoded once the window is refilled, outside the requests: a page that arrives
        # but cannot be read fails the listing at its place all the same.
        pytest.param((200, "down for maintenance"), ResponseDecodeError, id="a body that is no page"),
    ],
)
async def test_a_failing_middle_page_raises_with_every_item_received(
    server: LostServer, failure: tuple[int, Any], cause: type[Exception]
) -> None:
    contents = items(100)
    server.catalog(CATALOG, Listing(contents, failing=3, failure=failure))
    async with server.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.contents(CATALOG).to_list()
    error = raised.value
    assert (error.page, error.expected_items) == (3, 100)
    assert isinstance(error.__cause__, cause)
    # pages 1-2 and every later page fetched: only page 3's items are missing
    assert keys(error.items) == [item["key"] for item in contents[:20] + contents[30:]]
    assert 3 not in error.item_pages


async def test_a_middle_page_failing_past_its_retries_raises(server: LostServer) -> None:
    listing = server.catalog(CATALOG, Listing(items(50), failing=2, failure=(503, {"detail": "down"})))
    async with server.client(max_retries=2) as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.contents(CATALOG).to_list()
    assert isinstance(raised.value.__cause__, ServerError)
    assert listing.requested.count(2) == 3  # the first try and two retries


async def test_a_count_the_links_never_reach_raises(server: LostServer) -> None:
    server.catalog(CATALOG, Listing(items(2), count=10))
    async with server.client() as client:
        with pytest.raises(IncompleteListingError, match="2 of 10 items") as raised:
            await client.catalogs.contents(CATALOG).to_list()
    assert keys(raised.value.items) == [item["key"] for item in items(2)]


async def test_an_invalid_page_answer_past_the_count_ends_the_listing(server: LostServer) -> None:
    # the listing shrank while paged: page 3 is past the last page the newest envelope counts
    listing = server.catalog(CATALOG, Listing(items(30), count=20, last_link=3))
    listing.failing, listing.failure = 3, (404, INVALID_PAGE)
    async with server.client() as client:
        received = await client.catalogs.contents(CATALOG).to_list()
    assert len(received) == 20


async def test_an_invalid_page_answer_inside_the_count_is_a_failure(server: LostServer) -> None:
    server.catalog(CATALOG, Listing(items(100), failing=3, failure=(404, INVALID_PAGE)))
    async with server.client() as client:
        with pytest.raises(IncompleteListingError) as raised:
            await client.catalogs.contents(CATALOG).to_list()
    assert raised.value.page == 3


def run_command(server: LostServer, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    for name, value in server.environment.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_catalogs_contents_with_a_lying_count_exits_non_zero(
    server: LostServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.catalog(CATALOG, Listing(items(2), count=10))
    ran = run_command(server, monkeypatch, "catalogs", "contents", CATALOG, "--json")
    assert ran.exit_code == 3
    assert len(ran.stdout.splitlines()) == 2  # what arrived is still shown
    assert "IncompleteListingError" in ran.stderr
    assert "2 of 10 items" in ran.stderr


def test_catalogs_contents_with_a_failed_middle_page_exits_non_zero(
    server: LostServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.catalog(CATALOG, Listing(items(25), failing=2))
    ran = run_command(server, monkeypatch, "catalogs", "contents", CATALOG, "--max-retries", "0")
    assert ran.exit_code == 3
    (error,) = ran.stderr.splitlines()
    assert error.startswith("Error: IncompleteListingError:")
    assert "page 2 failed after 10 items of 25: NotFoundError" in error


def test_an_export_marks_a_catalog_with_a_failed_middle_page_failed_and_resume_fetches_it_again(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    healthy = "c0ffee00-0000-4000-8000-000000000002"
    server.catalog(healthy, Listing(items(30, "healthy")))
    broken = server.catalog(CATALOG, Listing(items(100), failing=3))
    ran = run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path), "--json")
    assert ran.exit_code == 3
    statuses = {entry["uuid"]: entry["status"] for entry in orjson.loads(ran.stdout)["catalogs"]}
    assert statuses == {healthy: "complete", CATALOG: "failed"}
    assert not (tmp_path / f"{CATALOG}.jsonl").exists()
    assert CATALOG not in orjson.loads((tmp_path / "manifest.json").read_bytes())["catalogs"]

    broken.failing = None  # the service is well again
    ran = run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path), "--resume", "--json")
    assert ran.exit_code == 0
    statuses = {entry["uuid"]: entry["status"] for entry in orjson.loads(ran.stdout)["catalogs"]}
    assert statuses == {healthy: "skipped", CATALOG: "complete"}
    assert len((tmp_path / f"{CATALOG}.jsonl").read_bytes().splitlines()) == 100


def test_the_progress_of_an_incomplete_catalog_never_shows_it_complete(
    server: LostServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    server.catalog(CATALOG, Listing(items(100), failing=3))
    ran = run_command(server, monkeypatch, "catalogs", "export", "--out", str(tmp_path))
    assert ran.exit_code == 4  # its only catalog failed: nothing was done
    catalog_bar = next(line for line in ran.stderr.splitlines() if f"Catalog {CATALOG}" in line)
    assert "✗" in catalog_bar
    assert "failed" in catalog_bar
    assert "✓" not in catalog_bar
    assert "20/100" in catalog_bar
    overall = next(line for line in ran.stderr.splitlines() if "all catalogs" in line)
    assert "1 failed" in overall
    assert "20/20" not in overall
