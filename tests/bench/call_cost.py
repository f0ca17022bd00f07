"""B13: what one warm ``client.catalogs.course(...)`` costs in the SDK's own work.

The call is profiled (``cProfile``) after twenty alike, against a sandbox in a process of its own.
The figures are counts, not times, so they do not move with the machine's load: the calls of the
SDK's own functions (the generated readers included, the sandbox's code left out), the modules
they run in, and the runtime's objects built, read from the constructors that ran (attrs' generated
``__init__`` and hand-written ones; the decoded models are filled without one and not counted).
"""

from __future__ import annotations

import asyncio
import cProfile
import linecache
import pstats
from collections import Counter

from attrs import frozen

from enterprise_async import EnterpriseClient

from ._harness import Row
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox

__all__ = ["CallCost", "measure", "run"]

WARM_CALLS = 20
PACKAGE = "enterprise_async"


@frozen
class CallCost:
    calls: int
    modules: frozenset[str]
    objects: Counter[str]


def _module_of(file: str) -> str | None:
    """The SDK module a profiled function is in (an attrs class's generated methods are its
    class's module), None for anything else (the sandbox too)."""
    if f"/{PACKAGE}/" in file:
        module = file.split(f"/{PACKAGE}/", 1)[1]
    elif file.startswith("<attrs generated") and f" {PACKAGE}." in file:
        dotted = file.rstrip(">").rsplit(" ", 1)[1].removeprefix(f"{PACKAGE}.")
        module = dotted.rsplit(".", 1)[0].replace(".", "/") + ".py"
    else:
        return None
    return None if module.startswith("testing/") else module


def _built(file: str, line: int, name: str) -> str | None:
    """The class a profiled constructor builds, None for any other function."""
    if name != "__init__":
        return None
    if file.startswith("<attrs generated"):
        return file.rstrip(">").rsplit(".", 1)[1]
    for number in range(line, 0, -1):  # a hand-written ``__init__``: the class it stands in
        text = linecache.getline(file, number)
        if text.startswith("class "):
            return text[len("class ") :].split("(")[0].split(":")[0]
    return None


async def _profiled(address: SandboxAddress) -> CallCost:
    async with EnterpriseClient(
        client_id=address.client_id, client_secret=address.client_secret, base_url=address.base_url
    ) as client:
        page = await client.catalogs.contents(address.catalog).first_page()
        course = next(item for item in page.results if getattr(item, "content_type", None) == "course")
        for _ in range(WARM_CALLS):
            await client.catalogs.course(address.catalog, course.key)
        profile = cProfile.Profile()
        profile.enable()
        await client.catalogs.course(address.catalog, course.key)
        profile.disable()
    calls, modules, objects = 0, set(), Counter[str]()
    for (file, line, name), (_, count, *_) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        module = _module_of(file)
        if module is None:
            continue
        calls += count
        modules.add(module)
        if (built := _built(file, line, name)) is not None:
            objects[built] += count
    return CallCost(calls, frozenset(modules), objects)


def measure() -> CallCost:
    """One warm ``course()`` profiled against a sandbox in a child process."""
    with remote_sandbox(RemoteSandbox()) as address:
        return asyncio.run(_profiled(address))


def run(rounds: int) -> list[Row]:
    del rounds  # counts do not vary from round to round
    cost = measure()
    built = ", ".join(
        f"{name}" + (f" x{count}" if count > 1 else "") for name, count in sorted(cost.objects.items())
    )
    return [
        Row(
            "B13",
            "one warm `catalogs.course()`: calls of the SDK's own functions (cProfile), in how many modules",
            f"{cost.calls} calls in {len(cost.modules)} modules",
            "",
            None,
            (
                f"The call profiled after {WARM_CALLS} alike, against a sandbox in a process of its own; "
                "the generated readers count, the sandbox's code does not.",
            ),
        ),
        Row(
            "B13",
            "the same call: the runtime's objects built (their constructors run)",
            built or "none",
            "",
            None,
            ("The decoded models are filled slot by slot, without a constructor, and are not counted.",),
        ),
    ]
