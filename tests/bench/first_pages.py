"""B16: each listing's first page from a fresh sandbox at the largest production ``DataSize``
(1,000 plans and 100 policies a customer, 5,000 assignments a configuration, 100,000 catalog
items and learner rows) against the default size, measured side by side.

Each size runs in a fresh interpreter: a sandbox and a plain aiohttp reader in one process (the
reader only reads the body's bytes), a token fetched and one request to an unknown path made
before the clock starts; then the first page of each listing, as the services answer it, once:
its CPU time (the process's: the sandbox's making and writing, the reader's reading), and its
wall time beside. Nothing large may be made to answer a page, so each listing's first page at
the largest size must take at most ``TARGET`` times its time at the default size; the headline is
the slowest.
"""

from __future__ import annotations

import subprocess
import sys

import orjson

from ._harness import Row, median
from .sandbox_size import LARGEST

__all__ = ["run"]

RUNS = 3
"""Fresh interpreters per size and round."""
TARGET = 5.0
SIZES = {"default": "DataSize()", "largest": LARGEST}
LISTINGS = (
    "catalogs.list",
    "catalogs.contents",
    "subscriptions.list",
    "policies.list",
    "assignments.list",
    "learner_summary.list",
)
_FIRST = """
import asyncio, json, time
import aiohttp
from enterprise_async.testing import DataSize, Sandbox

async def main():
    async with Sandbox(seed=0, size={size}, log_limit=0) as sandbox:
        data = sandbox.data
        customer = data.customers[0].uuid
        catalog = next(c.uuid for c in data.catalogs if c.customer_uuid == customer)
        configuration = next(
            p.assignment_configuration_uuid
            for p in data.policies_of(customer)
            if p.assignment_configuration_uuid
        )
        owned = {{"enterprise_customer_uuid": customer}}
        listings = {{
            "catalogs.list": ("/enterprise/v2/enterprise-catalogs", {{}}),
            "catalogs.contents": (f"/enterprise/v2/enterprise-catalogs/{{catalog}}", {{}}),
            "subscriptions.list": ("/enterprise/v1/subscriptions", owned),
            "policies.list": ("/enterprise/v1/subsidy-access-policies/", owned),
            "assignments.list": (
                f"/enterprise/v1/assignment-configurations/{{configuration}}/admin/assignments/", {{}}
            ),
            "learner_summary.list": (
                f"/enterprise/v3/enterprise-customer/{{customer}}/learner-summary", {{}}
            ),
        }}
        form = {{
            "grant_type": "client_credentials",
            "client_id": sandbox.client_id,
            "client_secret": sandbox.client_secret,
            "token_type": "jwt",
        }}
        figures = {{}}
        async with aiohttp.ClientSession() as session:
            async with session.post(sandbox.auth_url + "/oauth2/v1/access_token", data=form) as answer:
                token = (await answer.json())["access_token"]
            headers = {{"Authorization": f"JWT {{token}}", "Accept": "application/json"}}
            async with session.get(sandbox.base_url + "/enterprise/v1/warm-up", headers=headers) as answer:
                await answer.read()
            for name, (path, params) in listings.items():
                cpu, wall = time.process_time(), time.perf_counter()
                async with session.get(sandbox.base_url + path, params=params, headers=headers) as answer:
                    body = await answer.read()
                figures[name] = [time.process_time() - cpu, time.perf_counter() - wall, answer.status]
                figures[name].append(len(json.loads(body)["results"]))
    print(json.dumps(figures))

asyncio.run(main())
"""


def _first_pages(size: str) -> dict[str, list[float]]:
    """CPU seconds, wall seconds, status and items of each listing's first page, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _FIRST.format(size=size)], capture_output=True, text=True, check=True
    )
    figures: dict[str, list[float]] = orjson.loads(done.stdout.strip().splitlines()[-1])
    for name, (_, _, status, _) in figures.items():
        if status != 200:
            raise AssertionError(f"{name} answered {status}")
    return figures


def run(rounds: int) -> list[Row]:
    runs: dict[str, list[dict[str, list[float]]]] = {name: [] for name in SIZES}
    for _ in range(rounds):
        for _ in range(RUNS):
            for name, size in SIZES.items():
                runs[name].append(_first_pages(size))
    cpu = {
        size: {listing: median([run[listing][0] for run in sized]) for listing in LISTINGS}
        for size, sized in runs.items()
    }
    wall = {
        size: {listing: median([run[listing][1] for run in sized]) for listing in LISTINGS}
        for size, sized in runs.items()
    }
    items = {
        size: {listing: int(sized[0][listing][3]) for listing in LISTINGS} for size, sized in runs.items()
    }
    ratios = {listing: cpu["largest"][listing] / cpu["default"][listing] for listing in LISTINGS}
    slowest = max(LISTINGS, key=ratios.__getitem__)

    def figure(listing: str) -> str:
        return (
            f"{ratios[listing]:.1f}x ({cpu['default'][listing] * 1000:.1f} / "
            f"{cpu['largest'][listing] * 1000:.1f} ms CPU, {items['default'][listing]} / "
            f"{items['largest'][listing]} items; wall {wall['default'][listing] * 1000:.1f} / "
            f"{wall['largest'][listing] * 1000:.1f} ms)"
        )

    rows = [
        Row(
            "B16",
            "first page of each listing from a fresh sandbox, largest `DataSize` / default: the slowest",
            f"`{slowest}` {figure(slowest)}",
            f"<= {TARGET:g}x, every listing",
            all(ratio <= TARGET for ratio in ratios.values()),
            (
                f"The median of {RUNS} fresh interpreters per size and round, the sizes taking turns: a "
                "sandbox and a plain aiohttp reader (bytes only) in one process, the first request of "
                "each listing timed in the process's CPU time (wall time beside), after a token and one "
                "request to an unknown path. The largest size is 1,000 plans and 100 policies a "
                "customer, 5,000 assignments a configuration, 100,000 catalog items and learner rows; a "
                "page holds more there where the listing pages by 100 (plans, policies, assignments), "
                "so part of each ratio is the page's own size. Nothing large is made: a policy's spend "
                "allocated, a plan's license counts and an assignment list's learner states are counted "
                "from the seed; plans, assignments and learner rows are made one by one as the page "
                "reads them.",
            ),
        )
    ]
    rows += [
        Row("B16", f"first page of `{listing}`, largest / default", figure(listing), f"<= {TARGET:g}x", None)
        for listing in LISTINGS
    ]
    return rows
