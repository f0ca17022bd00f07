"""The ``proxy=`` a client is given: checked once, before anything is sent.

Without it the client's own session follows ``HTTP_PROXY``, ``HTTPS_PROXY`` and ``NO_PROXY``
(``trust_env``, on by default); with it every request goes through that proxy whatever the
environment says. Credentials in the URL (``http://user:password@host:port``) go to the proxy as
``Proxy-Authorization`` and never into a repr, a log record or an error message.
"""

from __future__ import annotations

from yarl import URL

from ..errors import ClientValidationError

__all__ = ["check_proxy"]


def check_proxy(value: object) -> str | None:
    """An absolute http(s) URL naming a host, or None; a typed error (that never repeats a
    password given in it) names anything else."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ClientValidationError(
            "proxy", f"must be a proxy URL such as 'http://proxy.example:3128', got {value!r}"
        )
    try:
        url = URL(value.strip())
    except ValueError:
        url = URL()
    if url.scheme not in ("http", "https") or not url.host:
        shown = str(url.with_password("<redacted>")) if url.password else value
        raise ClientValidationError(
            "proxy", f"must be an http(s) URL with a host, such as 'http://proxy.example:3128', got {shown!r}"
        )
    return str(url)
