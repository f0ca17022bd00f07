"""The aiohttp session a client and its views share, and the event loop it belongs to.

The session is the caller's (``session=``; it is then never closed here) or made at the client's
first call. From that call on, the client belongs to its running loop: the session's connections
do, and used from another loop (a second ``asyncio.run``) they fail with aiohttp's bare
``RuntimeError``, or hang. So another loop gets a ``ClientStateError`` instead, as does any call
once the client, or the view making it, is closed.
"""

from __future__ import annotations

import asyncio
import copy

import aiohttp

from ..errors import ClientStateError

__all__ = ["SessionHandle"]


class SessionHandle:
    """A client's hold on its session, or a view's (``view()``) on its client's. Closing the
    client's closes the session under every view; closing a view's closes that view alone."""

    def __init__(self, session: aiohttp.ClientSession | None) -> None:
        self._shared = _SharedSession(session)
        self._of_view = False
        self._closed = False

    def view(self) -> SessionHandle:
        """The hold of a view made of this client (or of one of its views)."""
        handle = copy.copy(self)
        handle._of_view = True
        handle._closed = False
        return handle

    @property
    def closed(self) -> bool:
        """Whether this hold, or the client's, is closed."""
        return self._closed or self._shared.closed

    def get(self) -> aiohttp.ClientSession:
        """The session, made at the first call; what the transport asks for at every attempt."""
        if self._closed:
            raise ClientStateError(f"the {'view' if self._of_view else 'client'} is closed: make a new one")
        return self._shared.get()

    async def close(self) -> None:
        """Close this hold; the client's closes the session if the client made it. Safe to call twice."""
        self._closed = True
        if not self._of_view:
            await self._shared.close()


class _SharedSession:
    """The session of one client and all its views, made at the first call, closed once."""

    def __init__(self, session: aiohttp.ClientSession | None) -> None:
        self._session = session
        self._owned = session is None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of the first call
        self.closed = False

    def get(self) -> aiohttp.ClientSession:
        if self.closed:
            raise ClientStateError("the client is closed: make a new one")
        self._check_loop()
        if self._session is None:
            # No pool limit: max_concurrency is enforced once, by the transport, for every view.
            connector = aiohttp.TCPConnector(limit=0, enable_cleanup_closed=True)
            # The transport reads the proxy variables itself (once per host): a session that trusts the
            # environment looks up ~/.netrc in a thread for every request, a cost bigger than the rest.
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def close(self) -> None:
        """Close the session if the client made it (a caller's is left open)."""
        if self.closed:
            return
        self.closed = True
        if self._owned and self._session is not None:
            await self._session.close()
        self._session = None

    def _check_loop(self) -> None:
        """Bind the session to the running loop at its first call; refuse any other loop after."""
        running = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = running
        elif self._loop is not running:
            raise ClientStateError(
                "the client is used from another event loop than the one it started on; make one "
                "client per event loop (each asyncio.run), inside it"
            )
