"""Building a request: arguments checked against the spec (``validation``) and prepared
(``request``), with the per-request options (``options``, with the call's extras; ``retry``, ``timeouts``)."""
