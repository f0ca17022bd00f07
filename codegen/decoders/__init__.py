"""Emit each model's reader (from JSON, and from XML's text) and writer (``to_dict``) as source.

The generator loads the models module it has just rendered and reads every class's fields: their
wire names, their declared types, their defaults (``fields``). From those it writes, per class:

- a reader (``_generated/readers.py``, written by ``readers``): one ``get`` per field; the value a
  field mostly holds is taken as it is (a ``str`` for a string field, a documented enum value, a UTC
  datetime as ``to_dict`` writes it back, an object for a nested model; after null, another usual
  spelling of an open enum's value, noted to be written back as sent); anything else goes to the
  reader of the field's type in the runtime (``_decoding.readers.reader_for``), which decodes it
  leniently, keeps it as sent when its type does not allow it, and notes what ``to_dict`` must write
  back;
- a writer (``_generated/writers.py``, written by ``writers``): each field written as the server
  sent it when the model was decoded (``WireRecord``), else from its value.

Each module defines one function (``readers(conversion)``, ``writers(conversion)``) that makes the
readers or the writers of every class for one ``Conversion``: their type readers, ``plain`` and
``as_sent`` are that conversion's, so that two conversions share no hook.

A model whose schema lists its types (a ``discriminator`` of its own, such as a policy's
``policy_type``) gets one more line in its reader: a type the spec does not list is reported to
the drift report, with the model it was decoded as (``report_unknown_type``).

The readers build a model by setting its fields one by one, as its attrs ``__init__`` would:
matching seventy keyword arguments costs ten times more. The generator knows that ``__init__``
does nothing more (no validator, converter or hook: it writes the classes), and refuses a class
for which it would, but for one hook it writes itself: a schema that requires one of several
fields gives its class a ``_sdk_rule`` check (``codegen.models``), which ``__attrs_post_init__``
calls; the reader calls it too (a ``RequiredRuleError`` naming the model and the fields), and the
writer (a ``ValueError``: an object changed since it was built no longer holds the rule).
"""

from __future__ import annotations

from codegen.decoders.fields import Rules, TypeLists, load_models, read_models
from codegen.decoders.readers import render_readers
from codegen.decoders.writers import render_writers

__all__ = ["render_decoders"]


def render_decoders(
    models_source: str, type_lists: TypeLists | None = None, rules: Rules | None = None
) -> tuple[str, str]:
    """The sources of the readers and the writers of the models ``models_source`` defines
    (``type_lists``: the models whose schema lists their types, see ``codegen.variants``;
    ``rules``: the fields of those whose schema requires one of several, see ``codegen.models``)."""
    module = load_models(models_source)
    models = read_models(module, rules)
    return render_readers(module, models, type_lists), render_writers(module, models)
