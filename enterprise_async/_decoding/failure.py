"""What a failed decode reports: the error with its path, and the names it uses for values and types."""

from __future__ import annotations

from typing import Any, get_origin


class DecodeError(ValueError):
    """A value does not fit its type; ``path`` locates it (``course_runs[3].start``)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)

    def within(self, step: str) -> DecodeError:
        path = f"{step}{'' if self.path.startswith('[') or not self.path else '.'}{self.path}"
        return DecodeError(self.message, path)


def describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def type_name(type_: Any) -> str:
    """A declared type as a reader knows it: ``Course``, ``list[Seat]``, ``int | str``."""
    if isinstance(type_, type) and get_origin(type_) is None:  # before 3.11, list[X] passes for a type
        return type_.__name__
    return str(type_).replace("typing.", "").replace("enterprise_async._generated.models.", "")
