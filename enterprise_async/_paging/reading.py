"""A page's answer decoded in steps, so that a listing gives the event loop a turn between them.

A page of a hundred items takes tens of milliseconds to decode in JSON and far more in XML; done
in one go, it holds every other request of the service that long. ``PageRead`` decodes the same
way as ``read_result`` (the same data, drift, errors), in steps of a few milliseconds: the body's
parse (XML: a slice of the document, or a few of its list items read by the model, at a time),
then the models.
The window (``window``) gives the loop a turn between two steps.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from attrs import frozen

from .._decoding.drift import DriftCollector
from .._decoding.spec import Operation
from .._response.model_reading import decode_body, is_xml, model_of, read_result, result_of, unreadable
from .._response.responses import RawResponse
from .._utils.xml import XMLDecodeError

if TYPE_CHECKING:
    from .._decoding import Conversion

__all__ = ["PageRead"]


@frozen
class PageRead:
    """The decoder of one page's answer: call it for the page in one go, or run ``steps()``.
    ``answer`` travels with the page through the walk (``PageStep.answer``): a raw listing's
    answer with its HTTP details, None for a plain listing."""

    operation: Operation[Any]
    response: RawResponse
    conversion: Conversion
    """The client's conversion, which decodes the page."""
    drift: DriftCollector | None = None
    answer: Any = None

    def __call__(self) -> Any:
        return read_result(self.operation, self.response, self.conversion, self.drift)

    def steps(self) -> Generator[None, None, Any]:
        """The page, decoded in steps: each ``yield`` is a point where the loop may run other work."""
        response = self.response
        if is_xml(response):
            try:
                model = model_of(self.operation, response)
                data = yield from self.conversion.read_drf_xml_in_steps(response.body, model)
            except XMLDecodeError as error:
                raise unreadable(response, "xml", error) from None
        else:
            data = decode_body(response)
        yield
        return result_of(self.operation, response, self.conversion, data, self.drift)
