"""Emit each model's reader (from JSON, and from XML's text) and writer (``to_dict``) as source.

The generator loads the models module it has just rendered and reads every class's fields: their
wire names, their declared types, their defaults. From those it writes, per class:

- a reader (``_generated/readers.py``): one ``get`` per field; the value a field mostly holds is
  taken as it is (a ``str`` for a string field, a documented enum value, a UTC datetime as
  ``to_dict`` writes it back, an object for a nested model; after null, another usual spelling of
  an open enum's value, noted to be written back as sent); anything else goes to the reader of
  the field's type in the runtime (``_decoding.readers.reader_for``), which decodes it leniently,
  keeps it as sent when its type does not allow it, and notes what ``to_dict`` must write back;
- a writer (``_generated/writers.py``): each field written as the server sent it when the model
  was decoded (``WireRecord``), else from its value.

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

import datetime
import decimal
import re
import textwrap
import types
import typing
from collections.abc import Iterator
from typing import Any, NamedTuple, get_args, get_origin

import attrs

from enterprise_async._decoding.enums import OpenEnum
from enterprise_async._decoding.hooks import is_list, is_mapping, is_union

READERS_DOC = '''"""Each model's reader, from a JSON object or an XML one (text leaves); see codegen/decoders.

`readers(conversion)` makes them for one `Conversion` (`_decoding.conversion`), which calls it on
its first decode and uses them as its structure hooks. A value a reader does not take as it is
goes to that conversion's reader of its type (`_decoding.readers`), which never raises; `finish`
gives the model its `extra` and its record of what was sent.
"""
'''

WRITERS_DOC = '''"""Each model's writer (`to_dict`), writing a decoded one as sent: see `codegen/decoders`.

`writers(conversion)` makes them for one `Conversion` (`_decoding.conversion`), which calls it on
its first `to_dict` and uses them as its unstructure hooks; a value they do not write themselves
goes to that conversion's `plain` or `as_sent`.
"""
'''

_AS_IS = (str, int, float, bool)
_WRITE_METHOD = {
    datetime.datetime: "json_datetime(value)",
    datetime.date: "value.isoformat()",
    decimal.Decimal: "str(value)",
}


class Field(NamedTuple):
    """One field of a model as the reader and the writer see it."""

    name: str
    wire: str
    type: Any
    """The declared type without ``None``."""
    default: Any
    """What the field holds when the server leaves it out: its scalar default, else None."""
    listish: bool
    required: bool = False
    """Listed in its schema's ``required``: the attrs field has no default."""
    nullable: bool = True
    """Its declared type admits None."""


class Model(NamedTuple):
    cls: type[Any]
    fields: tuple[Field, ...]
    rule: tuple[str, ...] = ()
    """The fields of its schema's rule on required fields (``_sdk_rule``), if it has one."""


Rules = dict[str, tuple[str, ...]]
"""By model name: the wire names its schema's rule on required fields reads (``codegen.models``)."""

TypeLists = dict[str, tuple[str, tuple[str, ...]]]
"""By model name: the discriminator property and the types the spec lists (``codegen.variants``)."""


def load_models(source: str) -> types.ModuleType:
    """The models module rendered from the spec, loaded from its source (not from the package)."""
    module = types.ModuleType("enterprise_async._generated.models")
    exec(compile(source, "<generated models>", "exec"), module.__dict__)  # the generator's own output
    return module


def read_models(module: types.ModuleType, rules: Rules | None = None) -> list[Model]:
    """Every attrs class of ``module``, in the order it defines them, with its fields (``rules``:
    the fields of each class's rule on required fields)."""
    rules = rules or {}
    models = []
    for value in vars(module).values():
        if isinstance(value, type) and attrs.has(value) and value.__module__ == module.__name__:
            _check_plain(value, rules)
            hints = typing.get_type_hints(value, globalns=vars(module))
            fields = tuple(
                _field(field, hints[field.name])
                for field in attrs.fields(value)
                if field.init and field.name != "extra"
            )
            models.append(Model(value, fields, rules.get(value.__name__, ())))
    return models


def _check_plain(cls: type[Any], rules: Rules) -> None:
    """Refuse a class whose ``__init__`` does more than set its fields: its reader could not set them."""
    hooks = [name for name in ("__attrs_pre_init__", "__attrs_post_init__") if hasattr(cls, name)]
    if "_sdk_rule" in vars(cls) and hooks == ["__attrs_post_init__"] and cls.__name__ in rules:
        hooks = []  # the generator's own rule check, which the reader calls
    checked = [f.name for f in attrs.fields(cls) if f.validator is not None or f.converter is not None]
    if hooks or checked:
        raise ValueError(f"{cls.__name__}: readers set fields directly; {hooks + checked} would be skipped")


def _field(field: attrs.Attribute[Any], hint: Any) -> Field:
    type_ = _without_none(hint)
    default = field.default
    scalar_default = (
        default is not None and default is not attrs.NOTHING and not isinstance(default, attrs.Factory)
    )  # type: ignore[arg-type]
    listish = is_list(type_) or (is_union(type_) and is_list(get_args(type_)[0]))
    wire = str(field.metadata.get("wire", field.name))
    required = default is attrs.NOTHING
    nullable = is_union(hint) and types.NoneType in get_args(hint)
    return Field(field.name, wire, type_, default if scalar_default else None, listish, required, nullable)


def _item(type_: Any) -> Any:
    return (get_args(type_) or (Any,))[0]


def _open_enum(type_: Any) -> Any:
    """``E`` for an open enum field (``E | str``), else None."""
    members = get_args(type_) if is_union(type_) else ()
    if len(members) == 2 and members[1] is str and _is_enum(members[0]):
        return members[0]
    return None


def _is_date_or_datetime(type_: Any) -> bool:
    """A field the spec gives a date or a datetime (``anyOf`` of both formats): a UTC datetime as
    ``to_dict`` writes it is taken as it is, anything else (a date alone) goes to the union's reader."""
    return is_union(type_) and set(get_args(type_)) == {datetime.datetime, datetime.date}


def _is_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, OpenEnum)


def _without_none(type_: Any) -> Any:
    if not is_union(type_):
        return type_
    members = [member for member in get_args(type_) if member is not types.NoneType]
    return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007


def source_of(type_: Any) -> str:
    """A declared type as source in the generated modules (``list[Seat]``, ``LevelType | str``)."""
    if type_ is types.NoneType or type_ is None:
        return "None"
    if type_ is Any:
        return "Any"
    if is_union(type_):
        return " | ".join(source_of(member) for member in get_args(type_))
    if get_origin(type_) in (list, dict):
        return f"{get_origin(type_).__name__}[{', '.join(source_of(arg) for arg in get_args(type_))}]"
    if type_ in _WRITE_METHOD:
        return f"{type_.__module__}.{type_.__qualname__}"
    return str(type_.__name__)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _article(name: str) -> str:
    return "An" if name[0] in "AEIOU" else "A"


def _constant(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()


# ------------------------------------------------------------------------------------------ readers


class _Names:
    """The module-level constants the readers use: one type reader per declared type, one table of
    documented values per open enum. Named from the type, and defined once."""

    def __init__(self) -> None:
        self.readers: dict[str, str] = {}
        self.enums: dict[str, str] = {}
        self.spelled: dict[str, str] = {}
        self.types: dict[str, str] = {}

    def reader(self, type_: Any) -> str:
        source = source_of(type_)
        if source not in self.readers:
            name = f"_READ_{_constant(snake(source.replace('datetime.', '').replace('decimal.', '')))}"
            while name in self.readers.values():
                name += "_"
            self.readers[source] = name
        return self.readers[source]

    def enum(self, enum: Any) -> str:
        return self.enums.setdefault(enum.__name__, f"_{_constant(snake(enum.__name__))}_VALUES")

    def spellings(self, enum: Any) -> str:
        return self.spelled.setdefault(enum.__name__, f"_{_constant(snake(enum.__name__))}_SPELLINGS")

    def type(self, type_: Any) -> str:
        """A declared type as a constant: what a reader's note names, as the runtime's reader names it."""
        source = source_of(type_)
        return self.types.setdefault(source, f"_{self.reader(type_).removeprefix('_READ_')}_TYPE")

    def lines(self) -> Iterator[str]:
        for enum, name in self.enums.items():
            yield f"{name} = values_of({enum})"
        for enum, name in self.spelled.items():
            yield f"{name} = other_spellings({enum})"
        for source, name in self.types.items():
            yield f"{name} = {source}"
        for source, name in self.readers.items():
            yield f"{name} = reader_for({source})"


class Branch(NamedTuple):
    """One test a reader makes of the value sent for a field (``sent``), and what it does then."""

    test: str
    value: str
    """What the model takes."""
    nested: str | None = None
    """The field's wire name, when ``value`` reads a nested model (a missing field names its place)."""
    note: str | None = None
    """The declared type's constant, when the value is noted for ``to_dict`` (written back as sent)."""


def _fast(field: Field, names: _Names) -> list[Branch]:
    """The tests for the values a field mostly holds (``sent``), and what the model takes then."""
    type_ = field.type
    if type_ in _AS_IS:
        return [Branch(f"sent.__class__ is {type_.__name__}", "sent")]
    if is_mapping(type_):
        return [Branch("sent.__class__ is dict or sent.__class__ is TextObject", "sent")]
    if (enum := _open_enum(type_)) is not None:
        test = f"sent.__class__ is str and (decoded := {names.enum(enum)}.get(sent)) is not None"
        return [Branch(test, "decoded")]
    if type_ is datetime.datetime or _is_date_or_datetime(type_):
        return [Branch("sent.__class__ is str and (decoded := utc_datetime(sent)) is not None", "decoded")]
    if type_ is decimal.Decimal:
        return [Branch("sent.__class__ is str and (decoded := exact_decimal(sent)) is not None", "decoded")]
    if attrs.has(type_):
        read = f"read_{snake(type_.__name__)}(sent)"
        return [Branch("sent.__class__ is dict or sent.__class__ is TextObject", read, repr(field.wire))]
    if (model := _text_or_model(type_)) is not None:
        # a JSON object is the model's, which writes itself as sent; XML's goes to the union's reader
        read = f"read_{snake(model.__name__)}(sent)"
        return [
            Branch("sent.__class__ is str", "sent"),
            Branch("sent.__class__ is dict", read, repr(field.wire)),
        ]
    if not is_list(type_):
        return []
    item = _item(type_)
    if attrs.has(item):
        read = f"read_{snake(item.__name__)}"
        value = f"read_models(sent, {read}, {field.wire!r}, {item.__name__}, notes)"
        return [Branch("sent.__class__ is list", value)]
    if item in (Any, object):
        return [Branch("sent.__class__ is list", "sent")]
    if item in _AS_IS:
        return [Branch(f"sent.__class__ is list and of_class(sent, {item.__name__})", "sent")]
    if is_mapping(item):
        test = "sent.__class__ is list and (of_class(sent, dict) or of_class(sent, TextObject))"
        return [Branch(test, "sent")]
    return []


def _late(field: Field, names: _Names) -> list[Branch]:
    """The tests made after null: another spelling of an open enum's value (the reference's
    ``intermediate`` for ``Intermediate``) gives its member, noted to be written back as sent."""
    if (enum := _open_enum(field.type)) is None:
        return []
    test = f"sent.__class__ is str and (decoded := {names.spellings(enum)}.get(sent)) is not None"
    return [Branch(test, "decoded", note=names.type(field.type))]


def _text_or_model(type_: Any) -> Any:
    """``M`` for a field of ``str | M`` (a model ``M``), else None."""
    members = get_args(type_) if is_union(type_) else ()
    classes = [member for member in members if attrs.has(member)]
    if len(members) == 2 and str in members and len(classes) == 1:
        return classes[0]
    return None


def _branch_lines(branches: list[Branch], target: str, wire: str, first: bool) -> list[str]:
    lines: list[str] = []
    for index, branch in enumerate(branches):
        lines.append(f"    {'if' if first and index == 0 else 'elif'} {branch.test}:")
        if branch.nested is not None:
            # a nested model that breaks a promise names its place, as one read by reader_for does
            lines += [
                "        try:",
                f"            {target} = {branch.value}",
                "        except MissingFieldError as error:",
                f"            raise error.within({branch.nested}) from None",
            ]
        else:
            lines.append(f"        {target} = {branch.value}")
        if branch.note is not None:
            lines.append(f"        notes.append(({wire}, {branch.note}, sent, None))")
    return lines


def _read_field(field: Field, names: _Names, cls: str) -> list[str]:
    """The lines that read one field into the model. A required field left out, or sent as null
    where its type admits none, raises ``MissingFieldError`` (``missing``): only on those branches,
    so the values a field mostly holds cost nothing more. An array sent as null is ``[]``, as an
    empty XML element is, required or not."""
    wire, target = repr(field.wire), f"model.{field.name}"
    absent = "[]" if field.listish else repr(field.default)
    left_out = (
        [f"        missing({cls}, {wire})"]
        if field.required
        else [f"        left_out.append({wire})", f"        {target} = {absent}"]
    )
    lines = [f"    sent = get({wire}, ABSENT)"]
    if field.type is Any:  # any value is taken as sent, null included
        return [*lines, "    if sent is ABSENT:", *left_out, "    else:", f"        {target} = sent"]
    fast = _fast(field, names)
    lines += _branch_lines(fast, target, wire, first=True)
    lines += ["    elif sent is ABSENT:" if fast else "    if sent is ABSENT:"]
    lines += left_out
    if field.required and not field.nullable and not field.listish:
        null = f"missing({cls}, {wire}, null=True)"
    elif field.listish:
        null = f"{target} = null_array({wire}, {source_of(field.type)}, notes)"
    else:
        null = f"{target} = None"
    if field.default is not None:
        null += "  # type: ignore[assignment]  # null where the spec gives a default: kept as None"
    return [
        *lines,
        "    elif sent is None:",
        f"        {null}",
        *_branch_lines(_late(field, names), target, wire, first=False),
        "    else:",
        f"        {target} = {names.reader(field.type)}(sent, {wire}, notes)",
    ]


def _type_check(model: Model, types: tuple[str, tuple[str, ...]] | None) -> tuple[list[str], list[str]]:
    """The lines that report a type the spec does not list, for a model whose schema lists them,
    and the constant they read (the listed types). Only text names a type: a value of another
    kind (an array, an object) was already noted by its field's reader, and is not hashable."""
    if types is None:
        return [], []
    wire, values = types
    field = next((field for field in model.fields if field.wire == wire), None)
    if field is None:
        raise ValueError(f"{model.cls.__name__}: its discriminator {wire!r} is none of its fields")
    cls, target = model.cls.__name__, f"model.{field.name}"
    listed = ", ".join(repr(value) for value in values)
    return [
        f"    if isinstance({target}, str) and {target} not in _{_constant(snake(cls))}_TYPES:",
        f"        report_unknown_type(model, {wire!r}, {target}, {cls!r})",
    ], [f"_{_constant(snake(cls))}_TYPES = frozenset({{{listed}}})", ""]


def _reader(model: Model, names: _Names, types: tuple[str, tuple[str, ...]] | None = None) -> list[str]:
    cls = model.cls.__name__
    known = ", ".join(repr(field.wire) for field in model.fields)
    check, listed = _type_check(model, types)
    lines = [
        *listed,
        f"_{_constant(snake(cls))}_FIELDS = frozenset({{{known}}})",
        "",
        "",
        f"def read_{snake(cls)}(data: Any, _cls: Any = None) -> Any:",
        f'    """{_article(cls)} ``{cls}`` read from an object'
        ' (None for null; ``DecodeError`` for anything else)."""',
        "    if data.__class__ is not dict and data.__class__ is not TextObject:",
        f"        return not_an_object(data, {cls})",
        "    get = data.get",
        "    notes: list[Note] = []",
        "    left_out: list[str] = []",
        "    sent: Any",
        f"    model = {cls}.__new__({cls})",
    ]
    body = [line for field in model.fields for line in _read_field(field, names, cls)]
    if any("(decoded := " in line for line in body):
        lines.insert(-1, "    decoded: Any")
    lines += body
    if model.rule:
        fields = ", ".join(repr(wire) for wire in model.rule)
        lines += [
            "    if (problem := model._sdk_rule()) is not None:",
            f"        broken_rule({cls}, ({fields}{',' if len(model.rule) == 1 else ''}), problem)",
        ]
    lines += [
        # a JSON object with nothing noted nor unknown: its record is shared (see ``finish``)
        f"    if notes or len(data) + len(left_out) != {len(model.fields)} or data.__class__ is not dict:",
        f"        finish(model, data, notes, left_out, _{_constant(snake(cls))}_FIELDS)",
        "    else:",
        "        model.extra = {}",
        "        model._sdk_wire = wire_record(tuple(left_out), False) if left_out else ALL_SENT_JSON",
        *check,
        "    return model",
    ]
    return lines


def render_readers(module: types.ModuleType, models: list[Model], type_lists: TypeLists | None = None) -> str:
    """The source of ``_generated/readers.py`` (unformatted, without header)."""
    names = _Names()
    listed = type_lists or {}
    functions = [_reader(model, names, listed.get(model.cls.__name__)) for model in models]
    table = "".join(f"    {model.cls.__name__}: read_{snake(model.cls.__name__)},\n" for model in models)
    body = "\n".join(
        [
            "reader_for = conversion.reader_for",
            "read_models = conversion.read_models",
            *names.lines(),
            "",
            *["\n".join(function) + "\n" for function in functions],
            f"return {{\n{table}}}",
        ]
    )
    return "\n".join(
        [
            READERS_DOC,
            "from __future__ import annotations",
            "",
            "import datetime",
            "import decimal",
            "from collections.abc import Callable",
            "from typing import Any",
            "",
            "from enterprise_async._decoding.exact import exact_decimal, of_class, utc_datetime",
            "from enterprise_async._decoding.failure import MissingFieldError, broken_rule, missing",
            "from enterprise_async._decoding.fields import ABSENT",
            "from enterprise_async._decoding.conversion import Conversion",
            "from enterprise_async._decoding.readers import (",
            "    finish, not_an_object, null_array, other_spellings, values_of,",
            ")",
            "from enterprise_async._decoding.record import EVERY_FIELD_SENT, wire_record",
            "from enterprise_async._decoding.tolerance import Note, report_unknown_type",
            _import_models(module),
            "from enterprise_async._utils.xml import TextObject",
            "",
            "ALL_SENT_JSON = EVERY_FIELD_SENT[False]",
            "",
            "",
            "def readers(conversion: Conversion) -> dict[type[Any], Callable[[Any, Any], Any]]:",
            '    """The reader of each model class, bound to ``conversion``: its structure hooks."""',
            textwrap.indent(body, "    "),
            "",
        ]
    )


# ------------------------------------------------------------------------------------------ writers


def _write(type_: Any) -> str:
    """The expression that writes ``value``, a value of ``type_`` (or None), as JSON-ready data."""
    if type_ in _AS_IS:
        return f"value if value is None or value.__class__ is {type_.__name__} else plain(value, every)"
    if type_ in _WRITE_METHOD:
        written = f"{_WRITE_METHOD[type_]} if value.__class__ is {source_of(type_)} else plain(value)"
        return f"None if value is None else ({written})"
    if is_list(type_) and _item(type_) in _AS_IS:
        item_type = _item(type_).__name__
        as_is = f"value.__class__ is list and of_class(value, {item_type})"
        return f"list(value) if {as_is} else plain(value, every)"
    if (enum := _open_enum(type_)) is not None:
        as_is = "value if value is None or value.__class__ is str else plain(value)"
        return f"value.value if value.__class__ is {enum.__name__} else ({as_is})"
    if attrs.has(type_):
        write = f"write_{snake(type_.__name__)}"
        written = f"{write}(value, every) if value.__class__ is {type_.__name__} else plain(value, every)"
        return f"None if value is None else ({written})"
    if is_list(type_) and attrs.has(item_type := _item(type_)):
        write = f"write_{snake(item_type.__name__)}"
        each = f"{write}(item, every) if item.__class__ is {item_type.__name__} else plain(item, every)"
        return f"[{each} for item in value] if value.__class__ is list else plain(value, every)"
    return "plain(value, every)"


def _write_sent(type_: Any) -> str:
    """The expression that writes ``value``, decoded from ``sent`` (what the server sent), as sent
    while it can."""
    as_sent = f"as_sent(value, sent, {source_of(type_)}, record.text, every)"
    if attrs.has(type_):
        return _write(type_)
    if is_list(type_) and attrs.has(_item(type_)):
        # an array sent as null, still empty
        null = "([] if record.text else None) if sent is None and not value"
        return f"({null} else {_write(type_)}) if value.__class__ is list else plain(value, every)"
    if type_ in _AS_IS:
        return f"sent if value is sent else {as_sent}"
    if (enum := _open_enum(type_)) is not None:
        member = f"value.__class__ is {enum.__name__} and value.value == sent"
        return f"sent if value is sent or ({member}) else {as_sent}"
    return as_sent


def _set_since(field: Field) -> str:
    """The test that ``value`` no longer holds what a field left out reads as: it was set since."""
    if field.listish:
        return "value.__class__ is not list or value"
    if field.default is not None:
        return (
            f"value is not {field.default!r}"
            if isinstance(field.default, bool)
            else f"value != {field.default!r}"
        )
    return "value is not None"


def _writer(model: Model) -> list[str]:
    cls = model.cls.__name__
    lines = [
        f"def write_{snake(cls)}(model: {cls}, every: bool = False) -> dict[str, Any]:",
        f'    """{_article(cls)} ``{cls}`` as JSON-ready data:'
        ' as the server sent it if decoded, else from its values."""',
        "    record = model._sdk_wire or BUILT",
        "    left_out = record.left_out",
        "    differs = record.differs",
        "    data = plain(model.extra, every) if model.extra else {}",
        "    value: Any",
    ]
    if model.rule:
        lines[2:2] = [
            "    if (problem := model._sdk_rule()) is not None:",
            "        raise ValueError(problem)",
        ]
    for field in model.fields:
        wire = repr(field.wire)
        write, as_sent = _write(field.type), _write_sent(field.type)
        if as_sent == write:  # a nested model writes itself as it was sent
            # a field the server sent is never among those it left out: ``differs`` needs no test here
            lines += [
                f"    value = model.{field.name}",
                f"    if every or {wire} not in left_out or {_set_since(field)}:",
                f"        data[{wire}] = {write}",
            ]
            continue
        lines += [
            f"    value = model.{field.name}",
            f"    if {wire} in differs:",
            *([f"        sent = differs[{wire}]"] if re.search(r"\bsent\b", as_sent) else []),
            f"        data[{wire}] = {as_sent}",
            f"    elif every or {wire} not in left_out or {_set_since(field)}:",
            f"        data[{wire}] = {write}",
        ]
    if not any("in differs" in line for line in lines):  # every field writes itself
        lines.remove("    differs = record.differs")
    return [*lines, "    return data"]


def render_writers(module: types.ModuleType, models: list[Model]) -> str:
    """The source of ``_generated/writers.py`` (unformatted, without header)."""
    functions = [_writer(model) for model in models]
    table = "".join(f"    {model.cls.__name__}: write_{snake(model.cls.__name__)},\n" for model in models)
    body = "\n".join(
        [
            "plain = conversion.plain",
            "as_sent = conversion.as_sent",
            "",
            *["\n".join(function) + "\n" for function in functions],
            f"return {{\n{table}}}",
        ]
    )
    return "\n".join(
        [
            WRITERS_DOC,
            "from __future__ import annotations",
            "",
            "import datetime",
            "import decimal",
            "from collections.abc import Callable",
            "from typing import Any",
            "",
            "from enterprise_async._decoding.exact import of_class",
            "from enterprise_async._decoding.conversion import Conversion",
            "from enterprise_async._decoding.writers import BUILT, json_datetime",
            _import_models(module),
            "",
            "",
            "def writers(conversion: Conversion) -> dict[type[Any], Callable[[Any, bool], dict[str, Any]]]:",
            '    """The writer of each model class, bound to ``conversion``: its unstructure hooks."""',
            textwrap.indent(body, "    "),
            "",
        ]
    )


def _import_models(module: types.ModuleType) -> str:
    """Every class of the models module (the formatter drops those a module does not use)."""
    names = sorted(
        name
        for name, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == module.__name__
    )
    return f"from enterprise_async._generated.models import ({', '.join(names)})"


def render_decoders(
    models_source: str, type_lists: TypeLists | None = None, rules: Rules | None = None
) -> tuple[str, str]:
    """The sources of the readers and the writers of the models ``models_source`` defines
    (``type_lists``: the models whose schema lists their types, see ``codegen.variants``;
    ``rules``: the fields of those whose schema requires one of several, see ``codegen.models``)."""
    module = load_models(models_source)
    models = read_models(module, rules)
    return render_readers(module, models, type_lists), render_writers(module, models)
