"""The client layer: ``BaseClient`` (``base``) and what it hands back or reaches for.

- ``settings``: a client's settings, read from arguments and the environment, checked;
- ``resource``: the base of the generated resource classes, and what they need of the client;
- ``raw_response``, ``listing``: a call's answer with its HTTP details, and a listing's pager;
- ``job_results``: following a bulk job to its results file;
- ``undocumented``: calls to paths the spec does not document.

Layers below: ``_bulk``, ``_paging``, ``_transport``, ``_response``, ``_request``, ``_decoding``,
``_spec``, ``_utils`` (the ``layers`` contract in ``pyproject.toml``).
"""
