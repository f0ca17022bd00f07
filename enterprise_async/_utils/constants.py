"""Every default of the SDK, named once."""

from __future__ import annotations

from .._version import __version__

DEFAULT_TIMEOUT = 30.0
"""Seconds allowed for one request, from sending to the last byte of the response."""

DEFAULT_MAX_RETRIES = 2
"""Retries of a retryable failure, after the first attempt."""

DEFAULT_MAX_CONCURRENCY = 8
"""Requests in flight per client, pages of concurrent listings included (where ``"auto"`` starts)."""

AUTO_CONCURRENCY_BOUNDS = (1, 32)
"""The least and the most requests in flight ``max_concurrency="auto"`` may settle on."""

INITIAL_RETRY_DELAY = 0.5
"""Seconds before the first retry; doubled for each further one, with full jitter."""

MAX_RETRY_DELAY = 8.0
"""Longest backoff between two attempts."""

MAX_RETRY_AFTER = 60.0
"""Longest ``Retry-After`` honoured; a server asking for more gets the error instead."""

DEFAULT_TOKEN_LIFETIME = 300.0
"""Lifetime assumed when the token response has no usable ``expires_in``."""

TOKEN_REFRESH_RATIO = 0.1
"""Share of a token's lifetime kept as safety margin before its expiry."""

MAX_TOKEN_REFRESH_MARGIN = 60.0
"""Upper bound of that margin, for long-lived tokens."""

TOKEN_PATH = "/oauth2/v1/access_token"
"""Path of the token issuer under ``auth_url``."""

USER_AGENT = f"enterprise-async/{__version__}"
"""Sent on every request, so the operators can tell this SDK's traffic."""

DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Bytes one answer may inflate to (``max_response_bytes``): far above any page of the API, far
below what a gzip bomb would take."""

ERROR_DETAIL_LIMIT = 300
"""Characters of the server's words kept in an error message."""

RESPONSE_FORMATS = ("json", "xml")


TOKEN_OPERATION = "auth.token"
"""The operation name the token request carries in traces and logs."""
DEFAULT_PAUSE = 1.0
"""Seconds a "try later" answer without a usable ``Retry-After`` pauses a rate-limited client."""

PAUSE_JITTER = 0.2
"""Share of a pause added at random before resuming, so a fleet does not resume in one burst."""

MIN_BUDGET_WAIT = 0.005
"""Shortest wait for the rate budget to refill (the limiter's reset time may already be past)."""

RESERVE_AHEAD = 0.5
"""Seconds ahead a rate budget holds the next free moment for a request (which then sleeps until
it and is sent): the budget's pace is then exact, not late by the time a waiting request takes to
wake and draw again. Never longer, so that a call given up (its ``Timeout.rate_wait``, or cancelled)
wastes little."""

LATE_SHARE = 0.5
"""Share of the margin a request may come late to the moment the budget held for it; later, it
draws again (the rest of the margin is for the way to the service)."""

DEFAULT_RATE_MARGIN = 0.1
"""Seconds every window of a rate budget is widened by, for the spread of the delay between sending
a request and its arrival (the service counts arrivals): see ``_transport.rate_window``."""

TOKEN_LOCK_TTL = 15.0
"""Seconds a process may hold a shared token cache's fetch lock; a holder that dies frees it then."""

TOKEN_LOCK_POLL = 0.05
"""Seconds between two looks at a shared token cache while another process fetches the token."""

REDIS_KEY_PREFIX = "enterprise-async"
"""Prefix of every Redis key the SDK writes (tokens, locks, rate budgets, pauses)."""


REQUIRED_ENVIRONMENT: tuple[str, ...] = (
    "ENTERPRISE_CLIENT_ID",
    "ENTERPRISE_CLIENT_SECRET",
    "ENTERPRISE_BASE_URL",
)
"""What a client made from the environment cannot do without (``ENTERPRISE_AUTH_URL`` is optional)."""

UNDOCUMENTED_OPERATION = "request"
"""The operation name a call the spec lacks (``client.request``) carries in traces, log records,
error messages and the drift report."""
