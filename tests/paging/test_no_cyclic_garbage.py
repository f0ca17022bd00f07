"""Reading a listing leaves no garbage in reference cycles: every object the client makes for a
page (its request, answer, decode steps, data and models) is freed by reference counting as soon as
it is done with, so the cyclic collector never has the SDK's garbage to find, however many pages."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from enterprise_async.testing import DataSize, Sandbox


class CyclesKept:
    """While ``watching``: the collector off, and what it finds in cycles kept in ``gc.garbage``."""

    def __init__(self) -> None:
        self.was_enabled = gc.isenabled()

    def start(self) -> None:
        gc.collect()  # what was made before, freed
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)

    def found(self) -> tuple[int, list[str]]:
        """Objects in cycles made since ``start``, and the types of the first few."""
        count = gc.collect()
        return count, [type(each).__name__ for each in gc.garbage[:20]]

    def stop(self) -> None:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
        if self.was_enabled:
            gc.enable()


@pytest.fixture
def cycles() -> Iterator[CyclesKept]:
    kept = CyclesKept()
    try:
        yield kept
    finally:
        kept.stop()


@pytest.mark.parametrize("response_format", ["json", "xml"])
async def test_a_listing_read_item_by_item_leaves_no_cyclic_garbage(
    response_format: str, cycles: CyclesKept
) -> None:
    async with (
        Sandbox(seed=0, size=DataSize(catalog_items=500)) as sandbox,
        sandbox.client(response_format=response_format) as client,
    ):
        catalog = sandbox.data.catalogs[0].uuid
        await client.catalogs.contents(catalog, page_size=50).to_list()  # what is made once: token, readers
        cycles.start()
        items = 0
        async for _ in client.catalogs.contents(catalog, page_size=50):
            items += 1
        found = cycles.found()
    assert items == 500
    assert found == (0, [])
