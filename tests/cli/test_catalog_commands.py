"""``catalogs list|contents|course|course-run|program`` against a sandbox."""

from __future__ import annotations

import orjson

from enterprise_async.models import Course, CourseRun, Program, from_dict
from enterprise_async.testing import Sandbox

from .conftest import CommandLine


def test_catalogs_list_shows_every_catalog(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("catalogs", "list")
    assert ran.exit_code == 0
    for catalog in served.data.catalogs:
        assert catalog.uuid in ran.stdout


def test_catalogs_list_json_is_one_line_per_catalog(cli: CommandLine, served: Sandbox) -> None:
    ran = cli("catalogs", "list", "--json")
    lines = [orjson.loads(line) for line in ran.stdout.splitlines()]
    assert [line["uuid"] for line in lines] == [catalog.uuid for catalog in served.data.catalogs]


def test_contents_stops_fetching_at_max_items(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    ran = cli(
        "catalogs",
        "contents",
        catalog.uuid,
        "--json",
        "--max-items",
        "7",
        "--limit",
        "5",
        "--max-concurrency",
        "1",
    )
    assert ran.exit_code == 0
    assert len(ran.stdout.splitlines()) == 7
    pages = served.requests.find("GET", f"/enterprise/v2/enterprise-catalogs/{catalog.uuid}")
    assert len(pages) == 2  # of 9


def test_course_json_decodes_to_the_course(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    key = served.data.first(catalog, "course")["key"]
    ran = cli("catalogs", "course", catalog.uuid, key, "--json")
    course: Course = from_dict(Course, orjson.loads(ran.stdout))
    assert course.key == key
    assert course.course_runs


def test_course_run_table_names_the_run(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    key = served.data.first(catalog, "courserun")["key"]
    ran = cli("catalogs", "course-run", catalog.uuid, key)
    assert ran.exit_code == 0
    assert key in ran.stdout


def test_course_run_json_decodes_to_the_run(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[1]
    key = served.data.first(catalog, "courserun")["key"]
    ran = cli("catalogs", "course-run", catalog.uuid, key, "--json")
    assert from_dict(CourseRun, orjson.loads(ran.stdout)).key == key


def test_program_json_decodes_to_the_program(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    uuid = served.data.first(catalog, "program")["uuid"]
    ran = cli("catalogs", "program", catalog.uuid, uuid, "--json")
    assert from_dict(Program, orjson.loads(ran.stdout)).uuid == uuid


def test_xml_responses_give_the_same_json(cli: CommandLine, served: Sandbox) -> None:
    catalog = served.data.catalogs[0]
    key = served.data.first(catalog, "course")["key"]
    as_json = cli("catalogs", "course", catalog.uuid, key, "--json")
    as_xml = cli("catalogs", "course", catalog.uuid, key, "--json", "--format", "xml")
    assert orjson.loads(as_xml.stdout) == orjson.loads(as_json.stdout)
    accepts = {entry.headers.get("Accept") for entry in served.requests.find("GET", "/enterprise/v2/*")}
    assert accepts == {"application/json", "application/xml"}
