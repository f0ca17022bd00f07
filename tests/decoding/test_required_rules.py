"""A schema that requires one of several fields (``anyOf``/``oneOf`` of ``required`` lists) holds
its rule however its object is made: built in code (a ``TypeError``), read from an answer (a decode
error naming the model and the fields), or written after a change (a ``ValueError``)."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from codegen.decoders import render_decoders
from codegen.models import read_rule_fields, render_models, required_rules
from enterprise_async._decoding import Conversion
from enterprise_async._decoding.failure import MissingFieldError, RequiredRuleError
from enterprise_async._generated.conversion import CONVERSION
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import BulkRevokeFilter, LicenseStatus, from_dict, to_dict

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "openapi.yaml"


def test_a_revoke_filter_without_an_email_or_statuses_is_a_type_error_when_built() -> None:
    with pytest.raises(TypeError, match=r"BulkRevokeFilter needs user_email or status_in"):
        BulkRevokeFilter()
    with pytest.raises(TypeError, match=r"BulkRevokeFilter needs user_email or status_in"):
        BulkRevokeFilter(user_email=None, status_in=[])


def test_a_revoke_filter_with_an_email_or_statuses_is_built() -> None:
    assert BulkRevokeFilter(user_email="al").user_email == "al"
    assert BulkRevokeFilter(status_in=[LicenseStatus.ASSIGNED]).status_in == [LicenseStatus.ASSIGNED]


def test_evolving_a_revoke_filter_to_neither_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"BulkRevokeFilter needs"):
        attrs.evolve(BulkRevokeFilter(user_email="al"), user_email=None)


def test_a_revoke_filter_changed_to_neither_is_not_written() -> None:
    changed = BulkRevokeFilter(user_email="al")
    changed.user_email = None
    with pytest.raises(ValueError, match=r"BulkRevokeFilter needs user_email or status_in"):
        to_dict(changed)


def test_an_answer_lacking_both_is_a_decode_error_naming_the_model_and_the_fields() -> None:
    with pytest.raises(RequiredRuleError) as caught:
        CONVERSION.reader(BulkRevokeFilter)({"other": 1})  # the generated reader
    assert caught.value.model == "BulkRevokeFilter"
    assert caught.value.fields == ("user_email", "status_in")
    assert isinstance(caught.value, MissingFieldError)  # a broken promise, as a missing field is
    with pytest.raises(ResponseDecodeError, match=r"BulkRevokeFilter needs user_email or status_in"):
        from_dict(BulkRevokeFilter, {"user_email": None, "status_in": []})
    with pytest.raises(ResponseDecodeError, match=r"\[1\]: BulkRevokeFilter needs user_email or status_in"):
        from_dict(list[BulkRevokeFilter], [{"user_email": "al"}, {}])


def test_an_answer_with_either_is_read() -> None:
    assert from_dict(BulkRevokeFilter, {"user_email": "al"}) == BulkRevokeFilter(user_email="al")
    read = from_dict(BulkRevokeFilter, {"status_in": ["assigned", "gone"]})
    assert read.status_in == [LicenseStatus.ASSIGNED, "gone"]  # an open enum keeps what it does not know
    assert to_dict(read) == {"status_in": ["assigned", "gone"]}


def test_every_schema_with_a_rule_on_required_fields_has_it_checked() -> None:
    rules = required_rules(yaml.safe_load(SPEC.read_text(encoding="utf-8")))
    assert set(rules) == {"BulkRevokeFilter"}  # the spec's only such schema today
    assert read_rule_fields(SPEC) == {"BulkRevokeFilter": ("user_email", "status_in")}


SPEC_WITH_ONE_OF = {
    "openapi": "3.1.0",
    "info": {"title": "rules", "version": "1"},
    "paths": {},
    "components": {
        "schemas": {
            "Pick": {
                "type": "object",
                "oneOf": [{"required": ["a"]}, {"required": ["b", "c"]}],
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "integer"},
                    "c": {"type": "array", "items": {"type": "string"}},
                },
            }
        }
    },
}


@pytest.fixture(scope="module")
def pick(tmp_path_factory: pytest.TempPathFactory) -> tuple[type[Any], Any, Any]:
    """A ``oneOf`` schema rendered as the generator renders the spec: its class, reader and writer."""
    spec = tmp_path_factory.mktemp("rules") / "openapi.yaml"
    spec.write_text(yaml.safe_dump(SPEC_WITH_ONE_OF), encoding="utf-8")
    source = render_models(spec)
    readers_source, writers_source = render_decoders(source, None, read_rule_fields(spec))
    models = types.ModuleType("enterprise_async._generated.models")
    exec(compile(source, "<models>", "exec"), models.__dict__)
    readers: dict[str, Any] = {}
    writers: dict[str, Any] = {}
    for text, namespace in ((readers_source, readers), (writers_source, writers)):
        namespace.update(models.__dict__)  # in place of the package's models, which have no Pick
        text = re.sub(r"^from enterprise_async\._generated\.models import .*$", "", text, flags=re.M)
        exec(compile(text, "<decoders>", "exec"), namespace)
    conversion = Conversion()  # the module's readers and writers, bound to a conversion of their own
    read = readers["readers"](conversion)[models.Pick]
    write = writers["writers"](conversion)[models.Pick]
    return models.Pick, read, write


def test_a_one_of_rule_takes_exactly_one_alternative(pick: tuple[type[Any], Any, Any]) -> None:
    cls, read, write = pick
    assert cls(a="x").a == "x"
    assert cls(b=1, c=["y"]).c == ["y"]
    with pytest.raises(TypeError, match=r"Pick needs exactly one of a, \(b and c\); none is given"):
        cls(b=1)  # half of the second alternative
    with pytest.raises(TypeError, match=r"several are given"):
        cls(a="x", b=1, c=["y"])
    assert write(read({"b": 1, "c": ["y"]})) == {"b": 1, "c": ["y"]}
    with pytest.raises(RequiredRuleError, match=r"Pick needs exactly one of"):
        read({"a": "x", "b": 1, "c": ["y"]})
    built = cls(a="x")
    built.a = None
    with pytest.raises(ValueError, match=r"none is given"):
        write(built)
