"""pytest plugin of enterprise_async: the ``enterprise_sandbox`` fixture.

Installed with the package (entry point ``pytest11``), so any project that depends on
enterprise_async can write::

    async def test_lists_catalogs(enterprise_sandbox):
        async with enterprise_sandbox.client() as client:
            assert await client.catalogs.list().to_list()

The fixture is a ``pytest_asyncio`` fixture, so it works with pytest-asyncio in ``auto`` and in
``strict`` mode. Options of the sandbox come from the ``enterprise_sandbox`` marker::

    @pytest.mark.enterprise_sandbox(seed=3, token_lifetime=2.0)
    async def test_refreshes_the_token(enterprise_sandbox): ...
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._sandbox import Sandbox

try:
    import pytest_asyncio

    HAS_PYTEST_ASYNCIO = True
except ImportError:  # pragma: no cover - a project without pytest-asyncio gets a clear error on use
    HAS_PYTEST_ASYNCIO = False

__all__ = ["enterprise_sandbox", "pytest_configure"]

MARKER = "enterprise_sandbox"


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker that configures the fixture (``--strict-markers`` needs it)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**options): options of the Sandbox behind the enterprise_sandbox fixture "
        "(seed, size, token_lifetime, next_host, ...)",
    )


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        options.update(marker.kwargs)
    return options


async def _running_sandbox(request: pytest.FixtureRequest) -> AsyncIterator[Sandbox]:
    """A running ``Sandbox`` (seed 0 unless the ``enterprise_sandbox`` marker says otherwise),
    stopped when the test ends."""
    from ._sandbox import Sandbox  # imported here: a run that uses no sandbox does not load it

    async with Sandbox(**_options(request)) as sandbox:
        yield sandbox


if HAS_PYTEST_ASYNCIO:
    enterprise_sandbox = pytest_asyncio.fixture(_running_sandbox, name="enterprise_sandbox")
else:  # pragma: no cover

    @pytest.fixture(name="enterprise_sandbox")
    def enterprise_sandbox() -> Sandbox:
        """Unavailable: the fixture needs pytest-asyncio (``pip install pytest-asyncio``)."""
        pytest.fail("the enterprise_sandbox fixture needs pytest-asyncio: pip install pytest-asyncio")
