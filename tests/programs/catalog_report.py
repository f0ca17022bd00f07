"""A service's catalog report, as a user writes it: every catalog of the customer, the first page
of its contents, each first course read again by its key, and a key the catalog lacks.

Type-checked with ``mypy --strict`` and run against the sandbox by tests/programs/test_programs.py;
it holds no ``assert`` and no ``cast``: the models' types say what the services guarantee.
"""

from __future__ import annotations

import asyncio

from enterprise_async import EnterpriseClient, NotFoundError
from enterprise_async.models import Catalog, Course, CourseRun


async def describe_catalog(client: EnterpriseClient, catalog: Catalog) -> list[str]:
    """One catalog: its size, its courses on the first page, the first of them read by its key."""
    page = await client.catalogs.contents(catalog.uuid, page_size=20).first_page()
    courses = [item for item in page.results if isinstance(item, Course)]
    lines = [f"{catalog.title} ({catalog.uuid}): {page.count} items, {len(courses)} courses first"]
    for course in courses[:1]:
        found = await client.catalogs.course(catalog.uuid, course.key)
        runs = [run.key for run in found.course_runs if isinstance(run, CourseRun)]
        lines.append(f"  {found.key}: {found.title or 'untitled'}; runs: {', '.join(runs) or 'none'}")
    return lines


async def missing_course(client: EnterpriseClient, catalog: Catalog, course_key: str) -> str:
    """What the report says of a key the catalog does not hold."""
    try:
        course = await client.catalogs.course(catalog.uuid, course_key)
    except NotFoundError as error:
        return f"{course_key}: not in {catalog.title} ({error.status})"
    return f"{course_key}: {course.title}"


async def report(client: EnterpriseClient) -> list[str]:
    catalogs = await client.catalogs.list().to_list()
    lines: list[str] = []
    for catalog in catalogs:
        lines += await describe_catalog(client, catalog)
    if catalogs:
        lines.append(await missing_course(client, catalogs[0], "edX+NoSuchCourse"))
    return lines


async def main() -> None:
    async with EnterpriseClient.from_env() as client:
        for line in await report(client):
            print(line)


if __name__ == "__main__":
    asyncio.run(main())
