"""Sending a prepared request and getting its answer back.

- ``transport``: one request through admission, the wire, retries and telemetry;
- ``session``: the aiohttp session; ``proxy``: its proxy; ``wire``: one attempt on it;
- ``admission``: what an attempt waits for before it goes (``concurrency``, ``adaptive``,
  ``rate_limit``, counting on the moving windows of ``rate_window``);
- ``auth``: the token, fetched and refreshed;
- ``middleware``: the user's hooks around each send; ``telemetry``: logs, stats and traces.
"""
