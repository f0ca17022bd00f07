"""The generated tables speak the runtime's vocabulary (``_spec``): what each entry says is what the
runtime reads of it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from enterprise_async._generated.operations import SPEC
from enterprise_async._spec import Operation

OPERATIONS = sorted(SPEC.operations.values(), key=lambda operation: operation.name)
LISTINGS = [operation for operation in OPERATIONS if operation.pagination is not None]


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.name)
def test_an_operation_is_named_by_its_entry_and_idempotent_only_as_a_get(operation: Operation[Any]) -> None:
    assert SPEC.operations[operation.name] is operation
    assert operation.idempotent == (operation.method == "GET")


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.name)
def test_each_outcome_is_kept_under_its_status_and_succeeds_only_as_a_2xx(operation: Operation[Any]) -> None:
    for status, outcome in operation.outcomes.items():
        assert (outcome.status, outcome.success) == (status, 200 <= status < 300)


def test_a_parameter_goes_on_the_wire_by_its_wire_name_else_by_its_own() -> None:
    params = {param.name: param for param in SPEC.operations["enrollments.job_status"].params}
    assert params["job_id"].wire_name == "bulk_enrollment_job_uuid"
    assert params["enterprise_customer_uuid"].wire_name == "enterprise_customer_uuid"


@pytest.mark.parametrize("operation", LISTINGS, ids=lambda operation: operation.name)
def test_a_listing_names_fields_its_envelope_has(operation: Operation[Any]) -> None:
    pagination = operation.pagination
    assert pagination is not None
    fields = {field.name for field in attrs.fields(pagination.page_model)}
    named = (pagination.items, pagination.next_field, pagination.count_field, pagination.pages_field)
    assert {name for name in named if name is not None} <= fields
