"""Click parameters typed from the spec's ``Rule``: what a command line can say about one argument.

Integers and numbers are parsed here; every other rule (minimums, formats, required fields,
never-together) is left to the client, so a command refuses exactly what the SDK refuses, with
the same message, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import click
import orjson
from attrs import frozen

from .._spec import Operation, Rule

__all__ = ["RESERVED_OPTIONS", "SpecArgument", "option_name", "required_choice", "spec_arguments"]

RESERVED_OPTIONS: Final = frozenset(
    {
        "--json",
        "--sandbox",
        "--format",
        "--response-format",
        "--max-concurrency",
        "--max-retries",
        "--timeout",
        "--max-items",
        "--help",
    }
)
"""Options every generated command has already; a spec argument of the same name gets a prefix."""

_TRUE: Final = frozenset({"true", "yes", "1", "on"})
_FALSE: Final = frozenset({"false", "no", "0", "off"})


def option_name(name: str) -> str:
    """A spec name as a command line word: ``content_key__in`` is ``content-key-in``."""
    return name.replace("__", "-").replace("_", "-")


def required_choice(ctx: click.Context, param: click.Parameter, value: bool | None) -> bool:
    """The callback of a required ``--x/--no-x`` flag: leaving both out is a usage error (exit 2),
    before anything is sent."""
    if value is None:
        flags = " or ".join(f"'{name}'" for name in (*param.opts, *param.secondary_opts))
        raise click.UsageError(f"Missing option: give {flags} (the service requires the choice).", ctx)
    return value


def _completion(rule: Rule) -> Callable[[click.Context, click.Parameter, str], list[str]] | None:
    """Shell completion of an enum's documented values (a closed one's are the only ones accepted)."""
    values = _enum_values(rule.items if rule.kind == "array" and rule.items else rule)
    if not values:
        return None
    return lambda _ctx, _param, incomplete: [value for value in values if value.startswith(incomplete)]


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(text)


def _json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValueError(text) from None


def _json_or_text(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


_CONVERTERS: Final[Mapping[str, Callable[[str], Any]]] = {
    "integer": int,
    "number": float,
    "boolean": _boolean,
    "object": _json,
    "any": _json_or_text,
}


def _converter(rule: Rule) -> Callable[[str], Any]:
    return _CONVERTERS.get(rule.kind, str)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _list_callback(items: Rule) -> Callable[[click.Context, click.Parameter, Sequence[str]], Any]:
    """``--x a,b --x c`` as ``[a, b, c]``, each typed by the items' rule; an object item is one JSON
    document per occurrence (a JSON array adds each of its items). None when the option is absent."""
    convert = _converter(items)
    structured = items.kind in ("object", "any")

    def one(part: str) -> Any:
        if items.choices and part not in items.choices:  # a closed enum: a usage error, exit 2
            raise click.BadParameter(f"{part!r} is not one of {', '.join(items.choices)}")
        try:
            return convert(part)
        except ValueError:
            expected = "JSON" if structured else f"a valid {items.kind}"
            raise click.BadParameter(f"{part!r} is not {expected}") from None

    def callback(_: click.Context, __: click.Parameter, values: Sequence[str]) -> list[Any] | None:
        if structured:
            parsed = [one(value) for value in values]
            return [item for value in parsed for item in _as_list(value)] or None
        parts = [part.strip() for value in values for part in value.split(",") if part.strip()]
        return [one(part) for part in parts] or None

    return callback


def _scalar_callback(rule: Rule) -> Callable[[click.Context, click.Parameter, str | None], Any]:
    convert = _converter(rule)

    def callback(_: click.Context, __: click.Parameter, value: str | None) -> Any:
        if value is None:
            return None
        try:
            return convert(value)
        except ValueError:
            expected = "JSON" if rule.kind == "object" else f"a valid {rule.kind}"
            raise click.BadParameter(f"{value!r} is not {expected}") from None

    return callback


def _enum_values(rule: Rule | None) -> list[str]:
    if rule is None:
        return []
    if rule.choices:
        return list(rule.choices)
    return [] if rule.enum is None else [str(member.value) for member in rule.enum]


def _metavar(rule: Rule) -> str:
    if rule.kind == "array" and rule.items is not None:
        return _metavar(rule.items)
    if rule.choices:
        return "[" + "|".join(rule.choices) + "]" if len(rule.choices) <= 12 else "FIELD"
    if values := _enum_values(rule):
        return "[" + "|".join(values) + "|...]"
    return {"integer": "INTEGER", "number": "NUMBER", "object": "JSON", "any": "VALUE"}.get(rule.kind, "TEXT")


def _help(description: str, rule: Rule, *, required: bool) -> str:
    """The spec's description, then what the value may be."""
    notes: list[str] = []
    values_of = rule.items if rule.kind == "array" and rule.items is not None else rule
    if values_of.choices:
        listed = (
            ", ".join(values_of.choices) if len(values_of.choices) <= 12 else "see the error for the list"
        )
        notes.append(f"one of the {len(values_of.choices)} values the service accepts ({listed})")
    elif values := _enum_values(values_of):
        notes.append(f"documented values: {', '.join(values)} (others are passed on)")
    if rule.kind == "object" and rule.properties:
        notes.append(f"a JSON object with {', '.join(rule.properties)}")
    if rule.kind == "array" and rule.items is not None and rule.items.kind == "object":
        fields = ", ".join(rule.items.properties)
        notes.append(f"a JSON object{f' with {fields}' if fields else ''}; repeat, or give a JSON array")
    elif rule.kind == "array":
        notes.append("repeat, or separate with commas")
    if required:
        notes.append("required")
    text = description.rstrip(".")
    return f"{text}{' — ' if text and notes else ''}{'; '.join(notes)}."


@frozen
class SpecArgument:
    """One argument of an operation (path/query parameter or body field) and how it is spelled."""

    name: str
    rule: Rule
    required: bool
    positional: bool
    description: str
    location: str

    @property
    def dest(self) -> str:
        """The Python name click hands the value under; prefixed so it never meets a shared option."""
        return f"arg_{self.name}"

    def parameter(self, taken: set[str], extra_names: Sequence[str] = ()) -> click.Parameter:
        """The click argument or option; ``taken`` holds option strings already in use (updated)."""
        if self.positional:
            return click.Argument(
                [self.dest],
                metavar=self.name.upper(),
                type=_scalar_type(self.rule),
                shell_complete=_completion(self.rule),
            )
        names = self._names(taken)
        help_text = _help(self.description, self.rule, required=self.required)
        if self.rule.kind == "boolean":
            declarations = [f"{names[0]}/--no-{names[0][2:]}", *names[1:], *extra_names, self.dest]
            chosen = required_choice if self.required else None
            return click.Option(declarations, default=None, callback=chosen, help=help_text)
        declarations = [*names, *extra_names, self.dest]
        if self.rule.kind == "array":
            return click.Option(
                declarations,
                multiple=True,
                metavar=_metavar(self.rule),
                callback=_list_callback(self.rule.items or Rule()),
                shell_complete=_completion(self.rule),
                help=help_text,
            )
        return click.Option(
            declarations,
            metavar=_metavar(self.rule),
            type=_scalar_type(self.rule),
            callback=_scalar_callback(self.rule) if self.rule.kind in ("object", "any") else None,
            shell_complete=_completion(self.rule),
            help=help_text,
        )

    def _names(self, taken: set[str]) -> list[str]:
        """``--learner-emails`` (and ``--learner-email`` for an array, one occurrence per item)."""
        name = f"--{option_name(self.name)}"
        if name in taken or name in RESERVED_OPTIONS:
            name = f"--{self.location}-{option_name(self.name)}"
        names = [name]
        if self.rule.kind == "array" and name.endswith("s") and not name.endswith("ss"):
            singular = name[:-1]
            if singular not in taken and singular not in RESERVED_OPTIONS:
                names.append(singular)
        taken.update(names)
        return names


def _scalar_type(rule: Rule) -> Any:
    if rule.choices:  # a closed enum: another value is a usage error (exit 2), before anything is sent
        return click.Choice(rule.choices)
    if rule.kind == "integer":
        return click.INT
    if rule.kind == "number":
        return click.FLOAT
    return click.STRING


def spec_arguments(operation: Operation[Any]) -> list[SpecArgument]:
    """Every argument of the operation, in the client's order: required parameters are positional
    (as in ``client.policies.list(customer_uuid, ...)``), the rest and every body field options."""
    found = [
        SpecArgument(
            name=param.name,
            rule=param.rule,
            required=param.required,
            positional=param.required,
            description=operation.descriptions.get(param.name, ""),
            location=param.location,
        )
        for param in operation.params
    ]
    body = operation.body
    if body is not None:
        found.extend(
            SpecArgument(
                name=name,
                rule=rule,
                required=name in body.required,
                positional=False,
                description=operation.descriptions.get(name, ""),
                location="field",
            )
            for name, rule in body.properties.items()
        )
    return found
