"""Django REST framework XML is read into JSON-shaped data, and never expands entities."""

from __future__ import annotations

import sys

import pytest

from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._utils.xml import XMLDecodeError, parse_drf_xml, render_drf_xml
from enterprise_async.errors import ResponseDecodeError
from enterprise_async.models import (
    CatalogContentsPage,
    Course,
    LearnerSummary,
    Program,
    SubsidyAccessPolicy,
    from_dict,
    to_dict,
)
from tests.openapi_spec import required


def test_list_items_become_lists_even_with_one_element() -> None:
    assert parse_drf_xml(b"<root><a><list-item>1</list-item></a></root>") == {"a": ["1"]}


def test_nested_lists_of_one_element_keep_their_depth() -> None:
    assert parse_drf_xml(b"<root><a><list-item><list-item>x</list-item></list-item></a></root>") == {
        "a": [["x"]]
    }


def test_a_root_of_list_items_is_a_list() -> None:
    assert parse_drf_xml(b"<root><list-item><k>v</k></list-item></root>") == [{"k": "v"}]


def test_empty_elements_are_none() -> None:
    assert parse_drf_xml(b"<root><a></a><b/></root>") == {"a": None, "b": None}


def test_text_is_unescaped() -> None:
    assert parse_drf_xml(b"<root><t>a &lt;b&gt; &amp; c</t></root>") == {"t": "a <b> & c"}


def test_render_writes_what_parse_reads() -> None:
    data = {"n": 1, "flag": True, "none": None, "items": [{"k": "v"}], "text": "x<y"}
    assert parse_drf_xml(render_drf_xml(data)) == {
        "n": "1",
        "flag": "True",
        "none": None,
        "items": [{"k": "v"}],
        "text": "x<y",
    }


def test_billion_laughs_is_refused_without_expansion() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
        b"<root><a>&lol3;</a></root>"
    )
    with pytest.raises(XMLDecodeError, match="document type declaration"):
        parse_drf_xml(bomb)


def test_external_entities_are_refused() -> None:
    xxe = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><root>&x;</root>'
    with pytest.raises(XMLDecodeError):
        parse_drf_xml(xxe)


def test_external_dtds_are_refused() -> None:
    with pytest.raises(XMLDecodeError):
        parse_drf_xml(b'<!DOCTYPE root SYSTEM "http://example.org/evil.dtd"><root/>')


@pytest.mark.parametrize("body", [b"<root><a>", b"", b"not xml at all", b"<root></root><root></root>"])
def test_malformed_documents_raise_xml_decode_error(body: bytes) -> None:
    with pytest.raises(XMLDecodeError):
        parse_drf_xml(body)


def test_attributes_are_ignored() -> None:
    assert parse_drf_xml(b'<root lang="en"><a kind="x">1</a><b v="2"/></root>') == {"a": "1", "b": None}


def test_a_list_of_one_list_of_several_keeps_both_levels() -> None:
    assert parse_drf_xml(render_drf_xml([[1, 2]])) == [["1", "2"]]


def test_lists_of_one_element_nest_inside_longer_lists() -> None:
    assert parse_drf_xml(render_drf_xml({"a": [1, [2], [[3]]]})) == {"a": ["1", ["2"], [["3"]]]}


def test_list_items_beside_other_children_are_kept_as_a_list_under_their_name() -> None:
    body = b"<root><a><list-item>1</list-item><b>2</b></a></root>"
    assert parse_drf_xml(body) == {"a": {"list-item": ["1"], "b": "2"}}


def test_objects_inside_lists_inside_objects_are_read_at_every_depth() -> None:
    data = {"x": [{"a": [{"b": [1]}], "c": {"d": [True]}}]}
    assert parse_drf_xml(render_drf_xml(data)) == {"x": [{"a": [{"b": ["1"]}], "c": {"d": ["True"]}}]}


RUN_KEY = "course-v1:edX+DemoX+Demo_Course"


def test_keys_that_are_no_xml_names_are_read_back_as_sent() -> None:
    """The renderer writes keys as element names: ``<course-v1:edX+DemoX+Demo_Course>`` is no XML."""
    data = {"normalized_metadata_by_run": {RUN_KEY: {"start_date": "2013-02-05"}, "2024": "x"}, "title": "T"}
    assert parse_drf_xml(render_drf_xml(data)) == data


def test_a_listing_whose_items_are_keyed_by_run_decodes_every_item() -> None:
    item = {"content_type": "course", "key": "edX+DemoX", "normalized_metadata_by_run": {RUN_KEY: {"a": "b"}}}
    page = from_dict(
        CatalogContentsPage,
        parse_drf_xml(render_drf_xml({"count": 2, "next": None, "previous": None, "results": [item, item]})),
    )
    assert [course.key for course in page.results] == ["edX+DemoX", "edX+DemoX"]
    written = [to_dict(course)["normalized_metadata_by_run"] for course in page.results]
    assert written == [{RUN_KEY: {"a": "b"}}] * 2


def test_a_document_malformed_otherwise_still_raises() -> None:
    with pytest.raises(XMLDecodeError):
        parse_drf_xml(b"<root><course-v1:a+b>unclosed</root>")


def test_whitespace_in_texts_is_kept_as_sent() -> None:
    data = {"partner": "edX: ", "title": "  Intro to X\n", "tags": [" a ", "\tb"], "blank": "   "}
    assert parse_drf_xml(render_drf_xml(data)) == data


def test_indentation_between_elements_is_not_text() -> None:
    assert parse_drf_xml(b"<root>\n  <a>x</a>\n  <b>\n    <list-item> y</list-item>\n  </b>\n</root>") == {
        "a": "x",
        "b": [" y"],
    }


def test_comments_and_cdata_are_read_as_xmltodict_reads_them() -> None:
    body = b"<root><!-- a note --><a><![CDATA[x < y]]></a><b>z</b></root>"
    assert parse_drf_xml(body) == {"a": "x < y", "b": "z"}


def test_a_dtd_after_processing_instructions_is_refused() -> None:
    body = b'<?xml version="1.0"?><?note <root> ?><!DOCTYPE r [<!ENTITY x "y">]><root>&x;</root>'
    with pytest.raises(XMLDecodeError, match="document type declaration"):
        parse_drf_xml(body)


def test_a_comment_before_the_root_is_read_as_xmltodict_reads_it() -> None:
    assert parse_drf_xml(b'<?xml version="1.0"?><!-- made by hand --><root><a>1</a></root>') == {"a": "1"}


@pytest.mark.parametrize(
    "body",
    [
        b"<root><a>foo<!-- c -->bar</a></root>",
        b"<root><a>foo<![CDATA[<x> & y]]>bar</a></root>",
        b"<root><!-- c --><a>1</a><!-- d --><b>2</b><!-- e --></root>",
        b"<root><a><!-- c --></a><b><![CDATA[]]></b></root>",
        b"<root><a>  <!-- c --><b>1</b> <!-- d --> </a></root>",
        b"<root><a><b>1</b>x<!-- c --></a></root>",
        b"<root><list-item>1</list-item><!-- c --><list-item><![CDATA[2]]></list-item></root>",
        b"<root><a>1<?pi x?>2</a><b><?pi y?></b></root><!-- after --><?pi z?>",
        b"<root>t<!-- c --></root>",
    ],
)
def test_comments_cdata_and_instructions_past_the_prolog_read_as_xmltodict_reads_them(body: bytes) -> None:
    """The C tree builder reads them past the prolog; xmltodict's reading (which a comment before
    the root element calls for) is the reference."""
    assert parse_drf_xml(body) == parse_drf_xml(b"<!-- read by xmltodict -->" + body)


def test_a_document_in_utf_16_is_read_like_its_utf_8_twin() -> None:
    text = (
        '<?xml version="1.0" encoding="utf-16"?><root><t>caf\u00e9</t><n><list-item>1</list-item></n></root>'
    )
    assert parse_drf_xml(text.encode("utf-16")) == {"t": "caf\u00e9", "n": ["1"]}


def test_a_dtd_in_utf_16_is_refused_too() -> None:
    text = '<?xml version="1.0" encoding="utf-16"?><!DOCTYPE r [<!ENTITY x "y">]><root>&x;</root>'
    with pytest.raises(XMLDecodeError, match="document type declaration"):
        parse_drf_xml(text.encode("utf-16"))


def test_repeated_names_become_a_list_as_before() -> None:
    assert parse_drf_xml(b"<root><a>1</a><a>2</a></root>") == {"a": ["1", "2"]}


def test_carriage_returns_come_back_as_line_feeds_as_every_xml_parser_reads_them() -> None:
    """XML parsers normalize line ends; the renderer writes ``\\r`` as it is, so it cannot come back."""
    assert parse_drf_xml(render_drf_xml({"t": "a\r\nb\rc"})) == {"t": "a\nb\nc"}


def read(model: type, data: object) -> object:
    """``data`` (with the fields its model requires) rendered as the servers render it, then read
    back as ``model`` says."""
    data = {**required(model), **data} if isinstance(data, dict) else data
    return from_dict(model, CONVERSION.read_drf_xml(render_drf_xml(data), model))


def test_an_empty_element_of_a_string_field_is_an_empty_string() -> None:
    policy = read(SubsidyAccessPolicy, {"description": "", "display_name": "Q1"})
    assert policy == from_dict(
        SubsidyAccessPolicy, {**required(SubsidyAccessPolicy), "description": "", "display_name": "Q1"}
    )
    assert policy.description == ""  # a required string: an empty element is "", never None
    assert to_dict(policy) == {**required(SubsidyAccessPolicy), "description": "", "display_name": "Q1"}


def test_an_empty_element_of_an_array_field_is_an_empty_list_written_back_as_one() -> None:
    course = read(Course, {"key": "edX+DemoX", "owners": [], "course_runs": []})
    assert (course.owners, course.course_runs) == ([], [])
    assert to_dict(course) == {"key": "edX+DemoX", "owners": [], "course_runs": []}


def test_an_empty_element_of_an_object_field_is_an_empty_object() -> None:
    program = read(Program, {"type_attrs": {}})
    assert program == from_dict(Program, {**required(Program), "type_attrs": {}})
    assert to_dict(program) == {**required(Program), "type_attrs": {}}


def test_an_empty_element_of_an_object_with_required_fields_breaks_the_promise() -> None:
    with pytest.raises(ResponseDecodeError, match=r"aggregates: PolicyAggregates\.amount_redeemed_usd_cents"):
        read(SubsidyAccessPolicy, {"uuid": "u", "aggregates": {}})


def test_an_empty_element_of_a_nullable_field_is_none() -> None:
    summary = read(LearnerSummary, {"offer_name": None, "current_grade": None, "has_passed": None})
    assert (summary.offer_name, summary.current_grade, summary.has_passed) == (None, None, None)
    assert to_dict(summary) == {
        **required(LearnerSummary),
        "offer_name": None,
        "current_grade": None,
        "has_passed": None,
    }


def test_an_empty_string_in_a_nullable_field_reads_back_as_none_the_renderers_ambiguity() -> None:
    """``""`` and null are the same empty element; null is what the services send far more often."""
    assert read(LearnerSummary, {"offer_name": ""}).offer_name is None


def test_an_empty_element_of_a_field_the_spec_does_not_document_stays_none() -> None:
    assert read(Course, {"key": "k", "not_in_the_spec": ""}).extra == {"not_in_the_spec": None}


def test_empty_elements_are_read_by_their_field_inside_lists_and_unions() -> None:
    item = {
        "content_type": "course",
        "key": "k",
        "title": "",
        "owners": [{"uuid": "o", "name": "", "description": None}],
    }
    page = read(CatalogContentsPage, {"count": 1, "results": [item]})
    assert page == from_dict(
        CatalogContentsPage, {**required(CatalogContentsPage), "count": 1, "results": [item]}
    )
    assert to_dict(page.results[0]) == item


def test_an_empty_string_item_of_an_array_of_strings_stays_an_empty_string() -> None:
    course = read(Course, {"key": "k", "languages": ["", "en"]})
    assert course.languages == ["", "en"]


def test_without_a_model_every_empty_element_is_none() -> None:
    assert CONVERSION.read_drf_xml(render_drf_xml({"title": "", "owners": []})) == {
        "title": None,
        "owners": None,
    }


def test_a_number_written_without_a_fraction_in_a_number_field_is_written_back_as_sent() -> None:
    """``"149"`` in a float field was the JSON integer 149 (a float renders as ``149.0``)."""
    sent = {"key": "k", "normalized_metadata": {"content_price": 149}}
    course = read(Course, sent)
    assert course == from_dict(Course, sent)
    assert to_dict(course) == sent


def test_a_boolean_sent_as_one_is_true_and_written_back_as_one() -> None:
    summary = read(LearnerSummary, {"consent_granted": 1, "has_passed": True})
    assert (summary.consent_granted, summary.has_passed) == (True, True)
    assert to_dict(summary) == {**required(LearnerSummary), "consent_granted": 1, "has_passed": True}


def test_a_number_longer_than_python_reads_is_kept_as_sent_not_raised() -> None:
    limit = sys.get_int_max_str_digits()
    if not limit:
        pytest.skip("this interpreter reads integers of any length")
    digits = "9" * (limit + 1)  # ``int`` raises ValueError past the limit
    assert CONVERSION.read_drf_xml(render_drf_xml({"count": digits}), CatalogContentsPage) == {
        "count": digits
    }


def test_a_boolean_in_a_union_with_a_date_reads_back_as_the_boolean_it_was() -> None:
    """A date never spells ``True``: in a field that is a date or a boolean, the renderer's ``True``
    is the boolean the JSON had, and ``to_dict`` writes it back as one."""
    for sent in ({"unenrollment_end_within_date": True}, {"unenrollment_end_within_date": "2026-03-01"}):
        summary = read(LearnerSummary, sent)
        assert summary == from_dict(LearnerSummary, {**required(LearnerSummary), **sent})
        assert to_dict(summary) == {**required(LearnerSummary), **sent}
