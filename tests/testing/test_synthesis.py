"""Operations without a stateful handler answer from their response schemas: schema-valid,
stable per seed and per path parameters, paginated as their ``x-sdk-pagination`` says."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import jsonschema
import pytest
from attrs import evolve

from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._spec import Operation, Pagination, Param, Rule
from enterprise_async.testing import GENERATED_SPEC, Fault, Sandbox, SpecTable
from enterprise_async.testing._completion import Shape, shape_of
from enterprise_async.testing._synthesis import SYNTHETIC_LIST_LENGTH, Synthesizer

from .conftest import RawAPI

TRANSACTIONS = "/v9/transactions"
ENTRIES = "/v9/entries"
TAGS = "/v9/tags"
ONE = "/v9/transactions/6f1c1f0e-8a4e-4b2a-9d59-0c7c1b1f2a10"
OTHER = "/v9/transactions/0b4f0c34-5a3d-4d7a-8a49-6b8e4f6c9e21"

COMPONENTS: Mapping[str, Any] = {
    "Transaction": {
        "type": "object",
        "required": ["uuid", "amount", "state", "created", "lines"],
        "additionalProperties": False,
        "properties": {
            "uuid": {"type": "string", "format": "uuid"},
            "amount": {"type": "integer", "minimum": 0, "maximum": 100000},
            "state": {"type": "string", "enum": ["pending", "settled"]},
            "created": {"type": "string", "format": "date-time"},
            "note": {"type": ["string", "null"]},
            "lines": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Line"}},
        },
    },
    "Line": {
        "type": "object",
        "required": ["sku"],
        "properties": {
            "sku": {"type": "string", "minLength": 12},
            "price": {"type": "string", "format": "decimal"},
        },
    },
    "TransactionPage": {
        "type": "object",
        "required": ["page", "per_page", "total", "total_pages", "data"],
        "additionalProperties": False,
        "properties": {
            "page": {"type": "integer"},
            "per_page": {"type": "integer"},
            "total": {"type": "integer"},
            "total_pages": {"type": "integer"},
            "data": {"type": "array", "items": {"$ref": "#/components/schemas/Transaction"}},
        },
    },
    "EntryPage": {
        "type": "object",
        "required": ["count", "next", "previous", "results"],
        "properties": {
            "count": {"type": "integer"},
            "next": {"type": ["string", "null"]},
            "previous": {"type": ["string", "null"]},
            "results": {"type": "array", "items": {"$ref": "#/components/schemas/Line"}},
        },
    },
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


SPEC = SpecTable(
    operations={
        "transactions.list": Operation(
            name="transactions.list",
            method="GET",
            path=TRANSACTIONS,
            pagination=Pagination(
                dict,
                dict,
                items="data",
                next_field=None,
                count_field="total",
                pages_field="total_pages",
                size_field="per_page",
                page_param="page",
                size_param="per_page",
            ),
        ),
        "transactions.retrieve": Operation(
            name="transactions.retrieve",
            method="GET",
            path="/v9/transactions/{transaction_uuid}",
            params=(Param("transaction_uuid", "path", Rule("string", format="uuid"), required=True),),
        ),
        "transactions.create": Operation(
            name="transactions.create",
            method="POST",
            path=TRANSACTIONS,
            body=Rule(
                "object",
                properties={"amount": Rule("integer", minimum=0), "note": Rule("string")},
                required=frozenset({"amount"}),
                closed=True,
            ),
        ),
        "ledger.search": Operation(
            name="ledger.search",
            method="GET",
            path="/v9/search",
            params=(Param("q", "query", Rule("string"), required=True),),
        ),
        "ledger.entries": Operation(
            name="ledger.entries",
            method="GET",
            path=ENTRIES,
            pagination=Pagination(dict, dict, page_param=None, offset_param="offset", size_param="limit"),
        ),
        "ledger.tags": Operation(
            name="ledger.tags",
            method="GET",
            path=TAGS,
            pagination=Pagination(
                dict, str, items=None, next_field=None, count_field=None, size_param="page_size"
            ),
        ),
        "ledger.notes": Operation(
            name="ledger.notes",
            method="GET",
            path="/v9/notes",
            pagination=Pagination(dict, dict, page_param="p", size_param="per_page"),
        ),
        "ledger.ping": Operation(name="ledger.ping", method="GET", path="/v9/ping"),
    },
    responses={
        "transactions.list": {200: _ref("TransactionPage")},
        "transactions.retrieve": {200: _ref("Transaction")},
        "transactions.create": {201: _ref("Transaction"), 400: None},
        "ledger.entries": {200: _ref("EntryPage")},
        "ledger.tags": {200: {"type": "array", "items": {"type": "string"}}},
        "ledger.ping": {204: None},
        "ledger.notes": {200: _ref("EntryPage")},
        "ledger.search": {200: _ref("Line")},
    },
    components=COMPONENTS,
    unauthenticated=frozenset({"ledger.ping"}),
)


def _valid(data: Any, schema: Any, components: Mapping[str, Any] = COMPONENTS) -> bool:
    document = {"allOf": [schema], "components": {"schemas": components}}
    validator = jsonschema.Draft202012Validator(document, format_checker=jsonschema.FormatChecker())
    errors = list(validator.iter_errors(data))
    assert not errors, errors[0].message
    return True


@pytest.fixture
async def synthetic(session: aiohttp.ClientSession) -> AsyncIterator[RawAPI]:
    async with Sandbox(seed=7, spec=SPEC) as sandbox:
        yield RawAPI(sandbox, session)


async def _json(seed: int, path: str, session: aiohttp.ClientSession, **params: str) -> Any:
    async with Sandbox(seed=seed, spec=SPEC) as sandbox:
        return (await RawAPI(sandbox, session).get(path, params=params)).data


async def test_a_list_without_a_handler_answers_its_envelope_valid_against_its_schema(
    synthetic: RawAPI,
) -> None:
    answer = await synthetic.get(TRANSACTIONS)
    assert answer.status == 200
    assert _valid(answer.data, _ref("TransactionPage"))


async def test_a_page_number_envelope_without_next_counts_pages_with_its_own_field_names(
    synthetic: RawAPI,
) -> None:
    body = (await synthetic.get(TRANSACTIONS, params={"page": "2", "per_page": "10"})).data
    assert (body["page"], body["per_page"], body["total"], body["total_pages"]) == (
        2,
        10,
        SYNTHETIC_LIST_LENGTH,
        3,
    )
    assert len(body["data"]) == 10


async def test_the_pages_of_a_synthesized_list_hold_every_item_once(synthetic: RawAPI) -> None:
    pages = [(await synthetic.get(TRANSACTIONS, params={"page": str(n)})).data["data"] for n in (1, 2, 3)]
    uuids = [item["uuid"] for page in pages for item in page]
    assert len(uuids) == len(set(uuids)) == SYNTHETIC_LIST_LENGTH


async def test_an_item_is_the_same_whatever_the_page_size(synthetic: RawAPI) -> None:
    small = (await synthetic.get(TRANSACTIONS, params={"page": "2", "per_page": "5"})).data["data"]
    large = (await synthetic.get(TRANSACTIONS, params={"per_page": "10"})).data["data"]
    assert small == large[5:10]


async def test_a_page_beyond_a_synthesized_list_is_404(synthetic: RawAPI) -> None:
    answer = await synthetic.get(TRANSACTIONS, params={"page": "4"})
    assert (answer.status, answer.data) == (404, {"detail": "Invalid page."})


async def test_a_page_beyond_the_list_answers_what_the_spec_says(session: aiohttp.ClientSession) -> None:
    listing = SPEC.operations["ledger.notes"]
    pagination = evolve(listing.pagination, past_last_status=410, past_last_detail="Gone past the end.")
    operations = {**SPEC.operations, "ledger.notes": evolve(listing, pagination=pagination)}
    spec = evolve(SPEC, operations=operations)
    async with Sandbox(seed=7, spec=spec) as sandbox:
        answer = await RawAPI(sandbox, session).get("/v9/notes", params={"p": "9"})
    assert (answer.status, answer.data) == (410, {"detail": "Gone past the end."})


async def test_a_synthesized_list_is_the_same_for_the_same_seed(session: aiohttp.ClientSession) -> None:
    assert await _json(7, TRANSACTIONS, session) == await _json(7, TRANSACTIONS, session)


async def test_a_synthesized_list_differs_with_the_seed(session: aiohttp.ClientSession) -> None:
    assert await _json(7, TRANSACTIONS, session) != await _json(8, TRANSACTIONS, session)


async def test_one_item_is_valid_and_the_same_for_the_same_path_parameters(
    synthetic: RawAPI, session: aiohttp.ClientSession
) -> None:
    first = (await synthetic.get(ONE)).data
    assert _valid(first, _ref("Transaction"))
    assert first == await _json(7, ONE, session)


async def test_one_item_differs_with_its_path_parameters(synthetic: RawAPI) -> None:
    assert (await synthetic.get(ONE)).data != (await synthetic.get(OTHER)).data


async def test_a_post_without_a_handler_answers_the_documented_201_with_a_valid_body(
    synthetic: RawAPI,
) -> None:
    answer = await synthetic.post(TRANSACTIONS, json={"amount": 5})
    assert answer.status == 201
    assert _valid(answer.data, _ref("Transaction"))


async def test_a_path_parameter_breaking_its_rule_is_404(synthetic: RawAPI) -> None:
    answer = await synthetic.get("/v9/transactions/not-a-uuid")
    assert (answer.status, answer.data) == (404, {"detail": "Not found."})


async def test_a_synthesized_post_refuses_a_body_missing_a_required_field(synthetic: RawAPI) -> None:
    answer = await synthetic.post(TRANSACTIONS, json={"note": "lunch"})
    assert (answer.status, answer.data) == (400, {"amount": ["This field is required."]})


async def test_a_synthesized_post_refuses_a_value_breaking_its_rule(synthetic: RawAPI) -> None:
    answer = await synthetic.post(TRANSACTIONS, json={"amount": -1})
    assert (answer.status, list(answer.data)) == (400, ["amount"])


async def test_a_synthesized_post_refuses_a_field_its_closed_body_lacks(synthetic: RawAPI) -> None:
    answer = await synthetic.post(TRANSACTIONS, json={"amount": 1, "tip": 2})
    assert (answer.status, answer.data) == (400, {"tip": ["This field is not allowed."]})


async def test_a_synthesized_get_refuses_a_missing_required_query_parameter(synthetic: RawAPI) -> None:
    answer = await synthetic.get("/v9/search")
    assert (answer.status, answer.data) == (400, {"q": ["This field is required."]})


async def test_an_offset_list_links_the_next_offset(synthetic: RawAPI) -> None:
    body = (await synthetic.get(ENTRIES, params={"offset": "10", "limit": "10"})).data
    assert _valid(body, _ref("EntryPage"))
    assert (body["count"], len(body["results"])) == (SYNTHETIC_LIST_LENGTH, 10)
    assert body["next"].endswith(f"{ENTRIES}?limit=10&offset=20")
    assert body["previous"].endswith(f"{ENTRIES}?limit=10&offset=0")


async def test_the_first_offset_page_links_the_next_offset(synthetic: RawAPI) -> None:
    body = (await synthetic.get(ENTRIES, params={"limit": "5"})).data
    assert (body["next"].endswith(f"{ENTRIES}?limit=5&offset=5"), body["previous"]) == (True, None)


async def test_page_links_number_pages_with_the_operations_page_parameter(synthetic: RawAPI) -> None:
    body = (await synthetic.get("/v9/notes", params={"per_page": "5", "p": "2"})).data
    assert body["next"].endswith("/v9/notes?per_page=5&p=3")
    assert body["previous"].endswith("/v9/notes?per_page=5")


async def test_the_last_offset_page_has_no_next_link(synthetic: RawAPI) -> None:
    body = (await synthetic.get(ENTRIES, params={"offset": "20", "limit": "10"})).data
    assert (len(body["results"]), body["next"]) == (3, None)


async def test_a_bare_list_is_paginated_by_its_page_parameter(synthetic: RawAPI) -> None:
    first = (await synthetic.get(TAGS, params={"page_size": "20"})).data
    last = (await synthetic.get(TAGS, params={"page_size": "20", "page": "2"})).data
    assert _valid(first + last, {"type": "array", "items": {"type": "string"}})
    assert (len(first), len(last)) == (20, SYNTHETIC_LIST_LENGTH - 20)


async def test_a_synthesized_answer_needs_a_token(synthetic: RawAPI) -> None:
    answer = await synthetic.get(TRANSACTIONS, authenticated=False)
    assert (answer.status, answer.data) == (401, {"detail": "Authentication credentials were not provided."})


async def test_an_operation_with_empty_security_answers_without_a_token(synthetic: RawAPI) -> None:
    answer = await synthetic.get("/v9/ping", authenticated=False)
    assert (answer.status, answer.raw) == (204, b"")


async def test_a_synthesized_answer_comes_as_xml_too(synthetic: RawAPI) -> None:
    as_json = (await synthetic.get(ONE)).data
    as_xml = (await synthetic.get(ONE, accept="application/xml")).data
    assert as_xml["uuid"] == as_json["uuid"]


async def test_a_wrong_method_on_a_synthesized_path_is_405_in_the_api_format(synthetic: RawAPI) -> None:
    answer = await synthetic.request("DELETE", TRANSACTIONS)
    assert (answer.status, answer.headers["Allow"]) == (405, "GET, POST, OPTIONS")


async def test_faults_apply_to_synthesized_operations(synthetic: RawAPI) -> None:
    synthetic.sandbox.faults.inject(TRANSACTIONS, Fault.server_error(503))
    assert (await synthetic.get(TRANSACTIONS)).status == 503


async def test_the_request_log_records_synthesized_operations(synthetic: RawAPI) -> None:
    await synthetic.get(ONE)
    logged = synthetic.sandbox.requests.find("GET", ONE)
    assert [entry.status for entry in logged] == [200]


async def test_the_request_log_names_the_operation_a_request_reached(synthetic: RawAPI) -> None:
    await synthetic.get(ONE)
    assert [entry.path for entry in synthetic.sandbox.requests.find(operation="transactions.retrieve")] == [
        ONE
    ]


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_of_the_table_synthesizes_a_body_valid_against_its_schema(name: str) -> None:
    responses = GENERATED_SPEC.responses[name]
    reply = Synthesizer(GENERATED_SPEC.components, seed=3).answer(
        OPERATIONS[name], responses, params={}, query={}, origin="http://sandbox", path="/listing"
    )
    assert reply.status in responses
    schema = responses[reply.status]
    if schema is None:  # a documented empty body
        assert reply.data is None
        return
    assert _valid(reply.data, schema, GENERATED_SPEC.components)


def _catalogs_requiring_region() -> SpecTable:
    """The generated table, with a field ``region`` that the spec makes required in ``Catalog``."""
    catalog = GENERATED_SPEC.components["Catalog"]
    edited = {
        **catalog,
        "required": [*catalog.get("required", ()), "region"],
        "properties": {**catalog["properties"], "region": {"type": "string", "enum": ["emea", "apac"]}},
    }
    return evolve(GENERATED_SPEC, components={**GENERATED_SPEC.components, "Catalog": edited})


async def test_a_field_the_spec_makes_required_appears_in_a_stateful_handlers_answers() -> None:
    async with Sandbox(spec=_catalogs_requiring_region()) as sandbox, sandbox.client() as client:
        catalogs = await client.catalogs.list().to_list()
    assert catalogs
    assert {catalog.extra["region"] for catalog in catalogs} <= {"emea", "apac"}


async def test_the_same_catalog_gets_the_same_filled_in_value_on_every_request() -> None:
    async with Sandbox(spec=_catalogs_requiring_region()) as sandbox, sandbox.client() as client:
        first = await client.catalogs.list().to_list()
        again = await client.catalogs.list().to_list()
    assert [catalog.extra["region"] for catalog in first] == [catalog.extra["region"] for catalog in again]


def test_completing_fills_in_every_documented_field_an_answer_lacks_optional_ones_too() -> None:
    synthesizer = Synthesizer(COMPONENTS, seed=0)
    line = {"sku": "a-1"}
    stored = {"uuid": "6f1c1f0e-8a4e-4b2a-9d59-0c7c1b1f2a10", "amount": 5, "lines": [line]}
    completed = synthesizer.complete(stored, {"$ref": "#/components/schemas/Transaction"}, random.Random(0))
    assert stored == {"uuid": "6f1c1f0e-8a4e-4b2a-9d59-0c7c1b1f2a10", "amount": 5, "lines": [line]}
    assert line == {"sku": "a-1"}
    assert set(completed) == {"uuid", "amount", "lines", "state", "created", "note"}
    assert completed["lines"] == [{"sku": "a-1", "price": completed["lines"][0]["price"]}]
    assert completed["amount"] == 5


def test_completing_leaves_out_what_the_sdk_computes_and_what_a_service_does_not_emit() -> None:
    transaction = COMPONENTS["Transaction"]
    computed = {"type": "boolean", "x-sdk-computed": True}
    components = {
        **COMPONENTS,
        "Transaction": {**transaction, "properties": {**transaction["properties"], "partial": computed}},
    }
    synthesizer = Synthesizer(components, seed=0)
    page = {"data": [{"uuid": "u", "amount": 1, "lines": [{"sku": "a-1"}]}]}
    schema = {"$ref": "#/components/schemas/TransactionPage"}
    everything = synthesizer.complete(page, schema, random.Random(0))
    assert set(everything["data"][0]) == {"uuid", "amount", "lines", "state", "created", "note"}
    assert set(everything["data"][0]["lines"][0]) == {"sku", "price"}
    emitted = shape_of(["uuid", "amount", "state", {"lines": ["sku"]}])  # a serializer's fields
    shaped = synthesizer.complete(
        page, schema, random.Random(0), shape=Shape(frozenset({"data"})), items={"Transaction": emitted}
    )
    assert set(shaped) == {"data", "page", "per_page", "total", "total_pages"}  # required: always
    assert set(shaped["data"][0]) == {"uuid", "amount", "lines", "state", "created"}  # created: required
    assert shaped["data"][0]["lines"] == [{"sku": "a-1"}]


def test_an_answer_that_lacks_nothing_is_returned_as_it_is() -> None:
    synthesizer = Synthesizer(COMPONENTS, seed=0)
    whole = {
        "uuid": "u",
        "amount": 1,
        "state": "pending",
        "created": "2026-01-01T00:00:00Z",
        "lines": [],
        "note": None,
    }
    assert (
        synthesizer.complete(whole, {"$ref": "#/components/schemas/Transaction"}, random.Random(0)) is whole
    )
