"""Every record of the services' real payloads (``../shared/realdata/*.json``) read through the models.

The records are what the services' serializers emitted: their fixtures, their docs and the answers
their own test suites got. They are read where they are, never copied into the repository; without
them, these tests are skipped.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from enterprise_async import models
from enterprise_async._decoding.failure import MissingFieldError
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import from_dict, to_dict

ROOT = Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata"
SPEC = ROOT / "spec" / "openapi.yaml"

pytestmark = pytest.mark.skipif(
    not sorted(REALDATA.glob("*.json")),
    reason=f"the services' real payloads are not present at {REALDATA} (../shared/realdata/*.json)",
)

# Fields that readable records carry but no serializer of the services emits: edx-enterprise's fake
# catalog (test_utils/fake_catalog_api.py gives a flat course run an empty course_runs). It stays in
# `.extra`; every field a serializer emits is in the spec, and so are the policy fields of the MFE
# API specification (docs/decisions/0006). (The design records of docs/decisions/0003 also carry a
# policy's group_uuid, since replaced by group_associations; they are refused, see DOCUMENTS.)
UNDOCUMENTED = frozenset({("CourseRun", "course_runs")})

_OFFSET = re.compile(r"(Z|z|[+-]\d{2}:?\d{2})$")

# Records that no service's code produced (a design record, a docstring, another service's mock of
# an answer) and that leave out a field the producing code always emits (spec/README.md, "Required
# by a written rule": documents never make optional what the code always emits). Each is refused
# by its model, naming that field, as an answer lacking it would be; every other record, and every
# answer a service's test suite recorded, decodes and is written back as sent.
D0003 = "openedx/enterprise-access docs/decisions/0003-initial-api-specification.rst"
D0006 = "openedx/enterprise-access docs/decisions/0006-api-specification-for-enterprise-mfes.rst"
DOCUMENTS: dict[tuple[str, str], tuple[str, str]] = {
    # (source, name): (model, the first field it leaves out that the service always sends)
    # policies as the design records planned them, before display_name, retired, ...
    (D0003, "example block 0 item 0"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 1 item 0"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 1 item 1"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 2 item 0"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 2 item 1"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 3 item 0"): ("SubsidyAccessPolicy", "display_name"),
    (D0006, "example block 1 item 0"): ("SubsidyAccessPolicy", "display_name"),
    (D0003, "example block 4 item 0"): ("SubsidyAccessPolicy", "uuid"),  # a created policy without its key
    # enterprise-access's tests mocking license-manager's plan, and a docstring of license-manager's
    (
        "openedx/enterprise-access enterprise_access/apps/api/v1/tests/test_admin_portal_learner_profile.py",
        "line 36 mock_subscriptions['subscription_plan']",
    ): ("SubscriptionPlan", "salesforce_opportunity_line_item"),
    (
        "openedx/enterprise-access enterprise_access/apps/api_client/tests/test_utils.py",
        "line 63 mock_subscription_plan",
    ): ("SubscriptionPlan", "plan_type"),
    (
        "openedx/license-manager license_manager/apps/api/v1/views.py",
        "LearnerLicensesViewSet docstring subscription_plan",
    ): ("SubscriptionPlan", "is_current"),
}


def _all_records() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{path.stem}[{index}]", record)
        for path in sorted(REALDATA.glob("*.json"))
        for index, record in enumerate(json.loads(path.read_text(encoding="utf-8")))
    ]


def is_document(record: dict[str, Any]) -> bool:
    """Whether ``record`` is one of ``DOCUMENTS``."""
    return (record["source"], record["name"]) in DOCUMENTS


ALL_RECORDS = _all_records()
RECORDS = [pytest.param(record, id=name) for name, record in ALL_RECORDS if not is_document(record)]
"""Every record but the ``DOCUMENTS``: what the tests below hold to decoding and writing back as sent."""
REFUSED = [pytest.param(record, id=name) for name, record in ALL_RECORDS if is_document(record)]


def _content_classes() -> dict[str, str]:
    """``content_type`` -> class name, as the spec's ``ContentItem`` discriminator says."""
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    mapping = spec["components"]["schemas"]["ContentItem"]["discriminator"]["mapping"]
    return {content_type: ref.rsplit("/", 1)[-1] for content_type, ref in mapping.items()}


def _decode(record: dict[str, Any]) -> Any:
    return from_dict(getattr(models, record["model"]), record["payload"])


def _models(value: Any) -> Iterator[Any]:
    """Every model inside a decoded value."""
    if attrs.has(type(value)):
        yield value
        for field in attrs.fields(type(value)):
            if field.name != "extra":
                yield from _models(getattr(value, field.name))
    elif isinstance(value, list):
        for item in value:
            yield from _models(item)


def _sent_pairs(model: Any, sent: Any) -> Iterator[tuple[str, Any, Any]]:
    """(field, decoded value, value as sent) for every field of ``model`` and of the models inside it."""
    if not isinstance(sent, dict):
        return
    for field in attrs.fields(type(model)):
        wire = str(field.metadata.get("wire", field.name))
        if field.name == "extra" or wire not in sent:
            continue
        value, raw = getattr(model, field.name), sent[wire]
        yield f"{type(model).__name__}.{wire}", value, raw
        if attrs.has(type(value)):
            yield from _sent_pairs(value, raw)
        elif isinstance(value, list) and isinstance(raw, list):
            for item, raw_item in zip(value, raw, strict=True):
                if attrs.has(type(item)):
                    yield from _sent_pairs(item, raw_item)


def _every_pair(record: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    decoded, sent = _decode(record), record["payload"]
    if isinstance(decoded, list):
        for item, raw in zip(decoded, sent, strict=True):
            yield from _sent_pairs(item, raw)
    else:
        yield from _sent_pairs(decoded, sent)


@pytest.mark.parametrize("record", REFUSED)
def test_a_document_leaving_out_what_the_service_always_sends_is_refused_naming_the_field(
    record: dict[str, Any],
) -> None:
    assert "(test suite responses)" not in record["source"]  # an answer a service gave is never excused
    model, field = DOCUMENTS[record["source"], record["name"]]
    with pytest.raises(MissingFieldError) as refused:
        CONVERSION.reader(getattr(models, record["model"]))(record["payload"])
    assert (refused.value.model, refused.value.field) == (model, field)
    assert field in _required(model)
    assert field not in record["payload"]
    with pytest.raises(ResponseDecodeError, match=rf"{model}\.{field} is required and was left out"):
        _decode(record)


def test_the_documents_refused_are_exactly_the_records_that_cannot_be_read() -> None:
    unreadable = set()
    for _, record in ALL_RECORDS:
        try:
            _decode(record)
        except ResponseDecodeError:
            unreadable.add((record["source"], record["name"]))
    assert unreadable == set(DOCUMENTS)
    assert len(REFUSED) == len(DOCUMENTS)
    assert len(RECORDS) + len(REFUSED) == len(ALL_RECORDS)


def _required(model: str) -> list[str]:
    schema: dict[str, Any] = yaml.safe_load(SPEC.read_text(encoding="utf-8"))["components"]["schemas"][model]
    return list(schema.get("required", []))


@pytest.mark.parametrize("record", RECORDS)
def test_each_record_decodes_into_its_model(record: dict[str, Any]) -> None:
    decoded = _decode(record)
    if record["model"] == "ContentItem":
        return  # told apart by content_type, below
    assert type(decoded).__name__ == record["model"]


@pytest.mark.parametrize("record", [r for r in RECORDS if r.values[0]["model"] == "ContentItem"])
def test_a_catalog_item_decodes_into_the_class_of_its_content_type(record: dict[str, Any]) -> None:
    classes = _content_classes()
    content_type = record["payload"].get("content_type")
    if content_type not in classes:
        pytest.xfail(f"content type {content_type!r} has no class yet (issue 22: catalog content types)")
    assert type(_decode(record)).__name__ == classes[content_type]


@pytest.mark.parametrize("record", RECORDS)
def test_to_dict_writes_back_what_the_service_sent(record: dict[str, Any]) -> None:
    assert to_dict(_decode(record)) == record["payload"]


@pytest.mark.parametrize("record", RECORDS)
def test_from_dict_reads_back_what_to_dict_wrote(record: dict[str, Any]) -> None:
    decoded = _decode(record)
    assert from_dict(getattr(models, record["model"]), to_dict(decoded)) == decoded


@pytest.mark.parametrize("record", RECORDS)
def test_nothing_the_serializers_emit_lands_in_extra(record: dict[str, Any]) -> None:
    extra = {(type(model).__name__, key) for model in _models(_decode(record)) for key in model.extra}
    assert extra <= UNDOCUMENTED


@pytest.mark.parametrize("record", RECORDS)
def test_datetimes_keep_their_time_of_day_and_their_zone_as_sent(record: dict[str, Any]) -> None:
    for where, value, raw in _every_pair(record):
        if not isinstance(value, datetime.datetime):
            continue
        assert isinstance(raw, str), where
        assert (value.tzinfo is not None) == bool(_OFFSET.search(raw.strip())), where
        text = raw.strip().replace("Z", "+00:00").replace("z", "+00:00")
        assert value == datetime.datetime.fromisoformat(text), where


@pytest.mark.parametrize("record", RECORDS)
def test_dates_are_read_only_from_dates(record: dict[str, Any]) -> None:
    for where, value, raw in _every_pair(record):
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            assert value == datetime.date.fromisoformat(raw), where


@pytest.mark.parametrize("record", RECORDS)
def test_a_value_kept_as_sent_is_logged(record: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="enterprise_async"):
        _decode(record)
    logged = [entry.sdk_value for entry in caplog.records if hasattr(entry, "sdk_path")]
    for where, value, raw in _every_pair(record):
        if isinstance(value, str) and isinstance(raw, str) and value is raw and _declares_no_text(where):
            assert raw in logged, where


def _declares_no_text(where: str) -> bool:
    """Whether the field at ``where`` is declared a datetime or a date (text there is kept as sent)."""
    cls, _, name = where.partition(".")
    hints = attrs.fields_dict(getattr(models, cls))
    declared = str(hints[name].type) if name in hints else ""
    return "str" not in declared and ("datetime" in declared or "date" in declared)


def test_learner_summary_course_dates_keep_their_time_of_day() -> None:
    summaries = [
        _decode(record.values[0])
        for record in RECORDS
        if record.values[0]["model"] == "LearnerSummary" and "course_start" in record.values[0]["payload"]
    ]
    assert summaries
    for summary in summaries:
        assert isinstance(summary.course_start, datetime.datetime)
        assert summary.course_start.tzinfo is not None


def test_a_naive_policy_datetime_stays_naive() -> None:
    policies = [
        _decode(record.values[0])
        for record in RECORDS
        if record.values[0]["model"] == "SubsidyAccessPolicy"
        and not str(record.values[0]["payload"].get("subsidy_active_datetime") or "Z").endswith("Z")
    ]
    assert policies
    assert all(policy.subsidy_active_datetime.tzinfo is None for policy in policies)
