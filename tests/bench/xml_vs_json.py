"""B3: decoding the same page from XML and from JSON, the way the client reads a response.

One page of catalog contents (20 items) is fetched from one sandbox in both formats, then each
body goes through the client's own path (``Answer.result()``: parse, then build the models); the
two results are checked equal before anything is timed. The XML parser is the standard library's
C parser and tree builder (``xml.etree``), then one pass reads the empty elements by the spec
(``_decoding.xml_schema``). A second row counts the real records (``../shared/realdata``) that read from
djangorestframework-xml's rendering into a model equal to their JSON twin's, writing the same JSON.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

import aiohttp
import orjson

from enterprise_async._generated.conversion import CONVERSION
from enterprise_async._generated.operations import OPERATIONS
from enterprise_async._response.answer import Answer
from enterprise_async._response.responses import RawResponse
from enterprise_async._utils.xml import parse_drf_xml
from enterprise_async.models import CatalogContentsPage

from ._harness import Row, collector_off, median, per_call
from ._remote import RemoteSandbox, SandboxAddress, remote_sandbox, token_headers
from .loop_hold import held_figures

__all__ = ["run"]

CONTENTS = OPERATIONS["catalogs.contents"]
PAGE_SIZE = 20
CALLS = 20
MEDIA = {"json": "application/json", "xml": "application/xml"}


async def _bodies(address: SandboxAddress) -> dict[str, RawResponse]:
    responses = {}
    async with aiohttp.ClientSession() as session:
        for kind, media in MEDIA.items():
            headers = await token_headers(session, address, accept=media)
            async with session.get(
                address.contents_url(f"page_size={PAGE_SIZE}"), headers=headers
            ) as response:
                body = await response.read()
                responses[kind] = RawResponse(
                    status=response.status,
                    reason=response.reason or "",
                    headers={"Content-Type": response.headers["Content-Type"]},
                    body=body,
                    method="GET",
                    path=response.url.path,
                )
    return responses


def _elements(body: bytes) -> int:
    """Elements in a document as the servers write it (no self-closing tags; text is escaped)."""
    return body.count(b"</")


def _ignore(*_: Any) -> None:
    pass


def _expat_with_empty_callbacks(body: bytes) -> None:
    """What any parser that hands elements to Python (xmltodict does) pays before doing anything:
    expat calling a function that does nothing for every start tag, end tag and text."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.StartElementHandler = _ignore
    parser.EndElementHandler = _ignore
    parser.CharacterDataHandler = _ignore
    parser.Parse(body, True)


def _tree(body: bytes) -> ElementTree.Element:
    """What the standard library's C parser and tree builder alone cost: no Python runs per element."""
    parser = ElementTree.XMLParser()
    parser.feed(body)
    return parser.close()


def run(rounds: int) -> list[Row]:
    with remote_sandbox(RemoteSandbox(catalog_items=PAGE_SIZE)) as address:
        responses = asyncio.run(_bodies(address))
    json_page = Answer(CONTENTS, responses["json"], CONVERSION).result()
    xml_page = Answer(CONTENTS, responses["xml"], CONVERSION).result()
    if json_page != xml_page:
        raise AssertionError("the XML page does not decode to the models the JSON page does")
    xml_body, json_body = responses["xml"].body, responses["json"].body
    tree = CONVERSION.fill_empty_elements(parse_drf_xml(xml_body), CatalogContentsPage)
    json_data = orjson.loads(json_body)
    if CONVERSION.structure(tree, CatalogContentsPage) != CONVERSION.structure(
        json_data, CatalogContentsPage
    ):
        raise AssertionError("the models timed from XML differ from those timed from JSON")
    contenders: dict[str, Callable[[], object]] = {
        "json": lambda: Answer(CONTENTS, responses["json"], CONVERSION).result(),
        "xml": lambda: Answer(CONTENTS, responses["xml"], CONVERSION).result(),
        "xml tree": lambda: _tree(xml_body),
        "xml parse": lambda: parse_drf_xml(xml_body),
        "xml parse, empty elements read": lambda: CONVERSION.fill_empty_elements(
            parse_drf_xml(xml_body), CatalogContentsPage
        ),
        "xml models": lambda: CONVERSION.structure(tree, CatalogContentsPage),
        "json models": lambda: CONVERSION.structure(json_data, CatalogContentsPage),
        "expat, empty callbacks": lambda: _expat_with_empty_callbacks(xml_body),
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, decode in contenders.items():
            with collector_off():
                times[name].append(per_call(decode, CALLS))
    ratio = median([xml / json for xml, json in zip(times["xml"], times["json"], strict=True)])
    ms = {name: median(values) * 1000 for name, values in times.items()}
    return [
        Row(
            "B3",
            "decode of one contents page: XML time / JSON time (client path: parse, then models)",
            f"{ratio:.1f}x",
            "<= 3x",
            ratio <= 3,
            _page_notes(ms, json_body, xml_body),
        ),
        _other_parsers(xml_body, json_ms=ms["json"], rounds=rounds),
        _whole_listing(rounds),
        _equal_real_items(),
    ]


def _page_notes(ms: dict[str, float], json_body: bytes, xml_body: bytes) -> tuple[str, ...]:
    """Where the time of each format goes, and the floor a reader on the standard library is at."""
    json_ms, tree_ms, callbacks_ms = ms["json"], ms["xml tree"], ms["expat, empty callbacks"]
    walk_ms = ms["xml parse"] - tree_ms
    schema_ms = ms["xml parse, empty elements read"] - ms["xml parse"]
    return (
        f"A page of {PAGE_SIZE} items: JSON {len(json_body) / 1000:.0f} KB in {json_ms:.1f} ms (the models "
        f"{ms['json models']:.1f} ms of it); XML {len(xml_body) / 1000:.0f} KB ({_elements(xml_body):,} "
        f"elements) in {ms['xml']:.1f} ms: the C parser and its tree {tree_ms:.1f} ms, the tree read into "
        f"dicts {walk_ms:.1f} ms, the empty elements and numbers read by the spec {schema_ms:.1f} ms, then "
        f"the models {ms['xml models']:.1f} ms. Collector off while timed.",
        "The floor on the standard library: its C parser building its tree, with no Python run for any "
        f"element, takes {tree_ms:.1f} ms, {tree_ms / json_ms:.1f}x the whole JSON decode; with the JSON "
        "models on top, a reader that spent nothing more would be at "
        f"{(tree_ms + ms['json models']) / json_ms:.1f}x. Any parser that hands each element to Python "
        "(xmltodict does) pays at least what expat calling an empty Python function for every tag and "
        f"text costs: {callbacks_ms:.1f} ms on this page, "
        f"{(callbacks_ms + ms['json models']) / json_ms:.1f}x with the models.",
    )


def _lxml(body: bytes) -> object:
    from lxml import etree

    return etree.fromstring(body)


def _quick_xmltodict(body: bytes) -> object:
    import quick_xmltodict

    return quick_xmltodict.parse(body.decode("utf-8"))


def _obj2xml_rs(body: bytes) -> object:
    import obj2xml_rs

    return obj2xml_rs.parse(body.decode("utf-8"))


def _xmltodict_rs(body: bytes) -> object:
    import xmltodict_rs

    return xmltodict_rs.parse(body)


OTHER_PARSERS: dict[str, Callable[[bytes], object]] = {
    "lxml (its tree alone)": _lxml,
    "quick-xmltodict (Rust, to dicts)": _quick_xmltodict,
    "obj2xml-rs (Rust, to dicts)": _obj2xml_rs,
    "xmltodict-rs (Rust, to dicts)": _xmltodict_rs,
}
"""Compiled XML readers on PyPI, timed on the same page when installed (they are no dependency):
``pip install lxml quick-xmltodict obj2xml-rs xmltodict-rs``."""


def _other_parsers(xml_body: bytes, *, json_ms: float, rounds: int) -> Row:
    """What compiled readers on PyPI take for the page, before any of the work ours does after."""
    what = "compiled XML readers on PyPI, the same page: their parse alone / the whole JSON decode"
    found: list[str] = []
    for name, parse in OTHER_PARSERS.items():
        try:
            parse(xml_body)
        except ImportError:
            found.append(f"{name}: not installed")
            continue
        with collector_off():
            parse_ms = (
                median([per_call(lambda parse=parse: parse(xml_body), CALLS) for _ in range(rounds)]) * 1000
            )
        found.append(f"{name}: {parse_ms:.1f} ms, {parse_ms / json_ms:.1f}x the JSON decode")
    return Row(
        "B3",
        what,
        "; ".join(found),
        "n/a",
        None,
        (
            "None of them is a dependency: each is timed only to show whether it would serve (issue 20 "
            "welcomes lxml where the benchmark shows it serves better). Their figures are before the "
            "lists, the spec's reading of empty elements and the models, which the page's XML row "
            "includes.",
        ),
    )


LISTING_ITEMS = 600


def _whole_listing(rounds: int) -> Row:
    """A whole listing through the client, XML against JSON: its CPU time, in a fresh interpreter of
    its own each time (``_held.py``: the collector's passes walk what the reader's process holds, not
    the benchmark's modules), the sandbox in another."""
    ratios, times = [], {"xml": [], "json": []}
    with remote_sandbox(RemoteSandbox(catalog_items=LISTING_ITEMS)) as address:
        for _ in range(rounds):
            xml = held_figures(address, "listing", "xml", LISTING_ITEMS)
            json = held_figures(address, "listing", "json", LISTING_ITEMS)
            if xml["digest"] != json["digest"]:
                raise AssertionError("the XML listing does not decode to the models the JSON listing does")
            ratios.append(xml["cpu_ms"] / json["cpu_ms"])
            times["xml"].append(xml["cpu_ms"])
            times["json"].append(json["cpu_ms"])
    ratio = median(ratios)
    return Row(
        "B3",
        f"a whole listing ({LISTING_ITEMS} catalog items, `to_list()`): client CPU in XML / in JSON",
        f"{ratio:.1f}x",
        "<= 3x",
        ratio <= 3,
        (
            f"Client CPU (process time of a fresh interpreter reading the listing; the sandbox runs in a "
            f"process of its own): XML {median(times['xml']):.0f} ms, JSON {median(times['json']):.0f} ms, "
            "requests, responses and the collector's passes included. Round by round: "
            + ", ".join(f"{value:.2f}x" for value in ratios)
            + ".",
        ),
    )


def _equal_real_items() -> Row:
    """How many real records read from the XML renderer's output equal their JSON twin (issue 20)."""
    what = "real records read from djangorestframework-xml's rendering: model and to_dict equal to JSON's"
    try:
        from tests.decoding.test_xml_realdata import RECORDS, Renderers, _equal_in_both_formats
    except ImportError as error:  # the renderer is a dev dependency
        return Row("B3", what, f"skipped: {error}", "n/a", None)
    if not RECORDS:
        return Row("B3", what, "skipped: no ../shared/realdata", "n/a", None)
    renderers = Renderers()
    equal = sum(_equal_in_both_formats(record.values[0], renderers) for record in RECORDS)
    return Row(
        "B3",
        what,
        f"{equal} of {len(RECORDS)}",
        "n/a",
        None,
        (
            "The others differ only where the renderer writes two JSON values alike "
            "(tests/decoding/test_xml_realdata.py checks it for every record): an empty string or object "
            "in a "
            "nullable field reads back as None, a number sent where the spec declares text (a decimal's "
            "0.8, a price's 149) or text where it declares a number reads back as the declared type, and "
            "fields the spec lacks stay text.",
        ),
    )
