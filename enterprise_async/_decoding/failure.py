"""What a failed decode reports: the error with its path (a required field missing is one of its
own, and so is a rule on required fields broken), and the names it uses for values and types."""

from __future__ import annotations

from typing import Any, NoReturn, get_origin


class DecodeError(ValueError):
    """A value does not fit its type; ``path`` locates it (``course_runs[3].start``)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)

    def within(self, step: str) -> DecodeError:
        path = f"{step}{'' if self.path.startswith('[') or not self.path else '.'}{self.path}"
        return DecodeError(self.message, path)


class MissingFieldError(DecodeError):
    """A field the spec lists as ``required`` was left out, or sent as null where the spec allows
    none: the answer breaks the services' promise, so it is never kept as sent nor read as None.
    ``model`` and ``field`` name it (the wire name); ``path`` locates its model from the top
    (``results[3]``, ``results[3].actions[0]``)."""

    def __init__(self, model: str, field: str, null: bool, path: str = "") -> None:
        self.model = model
        self.field = field
        self.null = null
        how = "was sent as null" if null else "was left out"
        super().__init__(f"{model}.{field} is required and {how}", path)

    @property
    def place(self) -> str:
        """The field's path from the top (``results[3].uuid``)."""
        return f"{self.path}{'.' if self.path else ''}{self.field}"

    def within(self, step: str) -> MissingFieldError:
        path = f"{step}{'' if self.path.startswith('[') or not self.path else '.'}{self.path}"
        return MissingFieldError(self.model, self.field, self.null, path)


class RequiredRuleError(MissingFieldError):
    """An object breaks its schema's rule on which fields it carries (``anyOf``: at least one of
    several, ``oneOf``: exactly one): ``fields`` names them; ``field`` joins them with ``|``."""

    def __init__(self, model: str, fields: tuple[str, ...], reason: str, path: str = "") -> None:
        self.model = model
        self.fields = fields
        self.field = " | ".join(fields)
        self.null = False
        self.reason = reason
        DecodeError.__init__(self, reason, path)

    def within(self, step: str) -> RequiredRuleError:
        path = f"{step}{'' if self.path.startswith('[') or not self.path else '.'}{self.path}"
        return RequiredRuleError(self.model, self.fields, self.reason, path)


def broken_rule(cls: type[Any], fields: tuple[str, ...], reason: str) -> NoReturn:
    """Raise ``RequiredRuleError`` for ``cls`` (a generated reader's line, after ``_sdk_rule``)."""
    raise RequiredRuleError(cls.__name__, fields, reason)


def missing(cls: type[Any], field: str, null: bool = False) -> NoReturn:
    """Raise ``MissingFieldError`` for ``cls``'s required ``field`` (a generated reader's line)."""
    raise MissingFieldError(cls.__name__, field, null)


def describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def type_name(type_: Any) -> str:
    """A declared type as a reader knows it: ``Course``, ``list[Seat]``, ``int | str``."""
    if isinstance(type_, type) and get_origin(type_) is None:  # before 3.11, list[X] passes for a type
        return type_.__name__
    return str(type_).replace("typing.", "").replace("enterprise_async._generated.models.", "")
