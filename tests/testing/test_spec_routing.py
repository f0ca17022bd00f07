"""The sandbox routes every operation of the generated table, derived from the table itself."""

from __future__ import annotations

import re

import pytest

from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._spec import Operation
from enterprise_async.testing import GENERATED_SPEC, Sandbox, SpecTable
from enterprise_async.testing._registry import Route, path_pattern

from .conftest import RawAPI

COURSE_RUN_KEY = "course-v1:MITx+CS.0.7x+1T2026"

ALL_OPERATIONS = sorted(OPERATIONS)


def _path(operation: Operation[object], value: str = "00000000-0000-4000-8000-000000000000") -> str:
    return re.sub(r"\{[^{}/]+\}", value, operation.path)


@pytest.mark.parametrize("name", ALL_OPERATIONS)
def test_every_operation_of_the_table_has_a_route(name: str) -> None:
    operation = OPERATIONS[name]
    route = Sandbox().server.route(operation.method, _path(operation))
    assert isinstance(route, Route)
    assert route.operation == name


@pytest.mark.parametrize("name", ALL_OPERATIONS)
async def test_every_operation_of_the_table_answers_its_route_not_404(api: RawAPI, name: str) -> None:
    operation = OPERATIONS[name]
    answer = await api.request(operation.method, _path(operation), authenticated=False)
    expected = 200 if name in GENERATED_SPEC.unauthenticated else 401
    assert answer.status == expected, answer.raw


def test_stateful_handlers_are_registered_under_operation_names_of_the_table() -> None:
    endpoints = Sandbox().server.endpoints
    assert set(endpoints.handlers()) <= set(OPERATIONS)


def test_a_path_template_keeps_a_raw_course_run_key_as_one_parameter() -> None:
    pattern, names = path_pattern("/catalogs/{catalog_id}/course-runs/{course_run_id}")
    match = pattern.match(f"/catalogs/abc/course-runs/{COURSE_RUN_KEY}")
    assert match is not None
    assert dict(zip(names, match.groups(), strict=True)) == {
        "catalog_id": "abc",
        "course_run_id": COURSE_RUN_KEY,
    }


def test_a_path_template_matches_its_literal_parts_literally() -> None:
    pattern, _ = path_pattern("/v1/items.json/{id}")
    assert pattern.match("/v1/itemsXjson/1") is None


def test_a_literal_path_wins_over_a_template_of_the_same_shape() -> None:
    sandbox = Sandbox()
    special = Operation(name="items.special", method="GET", path="/v9/items/special")
    one = Operation(name="items.retrieve", method="GET", path="/v9/items/{item_id}")
    routes = sandbox.server.endpoints.routes(
        SpecTable(operations={"items.retrieve": one, "items.special": special})
    )
    first = next(route for route in routes if route.pattern.match("/v9/items/special"))
    assert first.operation == "items.special"
