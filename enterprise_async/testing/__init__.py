"""``enterprise_async.testing``: the enterprise API as a real local server, for tests and demos.

::

    from enterprise_async.testing import Sandbox

    async with Sandbox(seed=0) as sandbox:
        async with sandbox.client() as client:
            async for policy in client.policies.list(sandbox.data.customers[0].uuid):
                ...

``Sandbox()`` answers as the services behind the gateway do (access by the token's customer, their
checks, envelopes, negotiation...); ``Sandbox(profile="reference")`` answers as the reference
documents the API (XML by default). README.md beside this module lists both profiles and every
deliberate difference from the services.
``Sandbox`` serves every endpoint of the reference from deterministic data (``sandbox.data``),
with state, tokens (``sandbox.tokens``), faults on demand (``sandbox.faults`` with ``Fault``), bodies
of your own for an operation (``sandbox.canned``) and a request log with credentials redacted
(``sandbox.requests``). The pytest plugin
(``enterprise_async.testing.pytest_plugin``, registered as an entry point) provides the
``enterprise_sandbox`` fixture; ``serve()`` runs a sandbox in the foreground
(``enterprise-async sandbox --port 8000``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._utils.lazy import lazy_names

if TYPE_CHECKING:
    from ._canned import CannedAnswers
    from ._data_size import DataSize
    from ._faults import DEFAULT_RANDOM_FAULTS, Fault, FaultInjector, FaultRule
    from ._license_handlers import MAX_ENROLLMENT_ITEMS
    from ._log import LoggedRequest, RequestLog
    from ._pages import DEFAULT_PAGE_SIZES
    from ._records import (
        AssignmentRecord,
        CatalogRecord,
        Customer,
        EnrollmentJob,
        Learner,
        LicenseRecord,
        PlanRecord,
        PolicyRecord,
    )
    from ._registry import GENERATED_SPEC, SpecTable
    from ._sandbox import DEFAULT_TOKEN_LIFETIME, Sandbox
    from ._serve import serve
    from ._server_options import ServerOptions
    from ._state import SandboxData
    from ._tokens import TokenIssuer

__all__ = [
    "DEFAULT_PAGE_SIZES",
    "DEFAULT_RANDOM_FAULTS",
    "DEFAULT_TOKEN_LIFETIME",
    "GENERATED_SPEC",
    "MAX_ENROLLMENT_ITEMS",
    "AssignmentRecord",
    "CannedAnswers",
    "CatalogRecord",
    "Customer",
    "DataSize",
    "EnrollmentJob",
    "Fault",
    "FaultInjector",
    "FaultRule",
    "Learner",
    "LicenseRecord",
    "LoggedRequest",
    "PlanRecord",
    "PolicyRecord",
    "RequestLog",
    "Sandbox",
    "SandboxData",
    "ServerOptions",
    "SpecTable",
    "TokenIssuer",
    "serve",
]

# Imported on first use: the pytest plugin (loaded into every pytest run of every project that
# installs the SDK) and ``enterprise_async.testing.pytest_plugin`` cost nothing until a test asks
# for the sandbox.
_LAZY = {
    "CannedAnswers": "._canned",
    "DataSize": "._data_size",
    "MAX_ENROLLMENT_ITEMS": "._license_handlers",
    "DEFAULT_RANDOM_FAULTS": "._faults",
    "Fault": "._faults",
    "FaultInjector": "._faults",
    "FaultRule": "._faults",
    "LoggedRequest": "._log",
    "RequestLog": "._log",
    "DEFAULT_PAGE_SIZES": "._pages",
    "AssignmentRecord": "._records",
    "CatalogRecord": "._records",
    "Customer": "._records",
    "EnrollmentJob": "._records",
    "Learner": "._records",
    "LicenseRecord": "._records",
    "PlanRecord": "._records",
    "PolicyRecord": "._records",
    "GENERATED_SPEC": "._registry",
    "SpecTable": "._registry",
    "DEFAULT_TOKEN_LIFETIME": "._sandbox",
    "Sandbox": "._sandbox",
    "serve": "._serve",
    "ServerOptions": "._server_options",
    "SandboxData": "._state",
    "TokenIssuer": "._tokens",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())
