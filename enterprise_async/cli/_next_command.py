"""The command a hint tells the user to run next, as they would type it.

A hint that says how to go on (``--resume`` after an interrupted export, ``enrollments results``
for the jobs a stopped ``bulk enroll`` left running, a renamed command) repeats every argument and
option the user gave on the command line that the next command takes too: a resume run without
the first run's ``--page-size`` would start every catalog again. Values are written back as the
command line reads them (a file by its name, a list as one occurrence per item), quoted for a
shell; a URL's password is hidden with the rest of the message (``CommandError``).
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Collection, Iterator, Sequence
from pathlib import PurePath

import click
import orjson
from click.core import ParameterSource

__all__ = ["next_command"]


def next_command(
    *,
    command: str | None = None,
    arguments: Sequence[str] | None = None,
    leave_out: Collection[str] = (),
    add: Sequence[str] = (),
) -> str:
    """The command line to run next: the one running, or ``command`` (another command's path, such as
    ``"enrollments results"``), with every argument and option of the user's command line that it
    takes, except the parameters named in ``leave_out``; then ``add`` (left out where the user gave
    it already). ``arguments`` are the next command's own positional arguments, in place of those
    given to the one running."""
    context = click.get_current_context()
    root = context.find_root()
    path = command.split() if command is not None else _path_of(context)
    target = _command_at(root, path) if command is not None else context.command
    kept = [
        param
        for param in context.command.params
        if param.name not in leave_out and (isinstance(param, click.Argument) or _same(param, target))
    ]
    if arguments is not None:
        kept = [param for param in kept if not isinstance(param, click.Argument)]
    words = [*_given(root, root.command.params), *path, *(arguments or ()), *_given(context, kept)]
    words += [word for word in add if word not in words]
    program = root.info_name or "enterprise-async"  # as run: "python -m enterprise_async" too
    return f"{program} {shlex.join(words)}"


def _path_of(context: click.Context) -> list[str]:
    """The names of the commands from the root down to ``context``'s (the root's own left out)."""
    names: list[str] = []
    while context.parent is not None:
        names.insert(0, context.info_name or "")
        context = context.parent
    return names


def _command_at(root: click.Context, path: Sequence[str]) -> click.Command:
    """The command at ``path`` (command names) of the tree ``root`` runs."""
    command: click.Command = root.command
    for name in path:
        found = command.get_command(root, name) if isinstance(command, click.Group) else None
        if found is None:
            raise LookupError(f"no command {' '.join(path)!r}")
        command = found
    return command


def _same(param: click.Parameter, target: click.Command) -> bool:
    """Whether ``target`` has the option ``param`` under the same first name."""
    return any(other.name == param.name and other.opts[:1] == param.opts[:1] for other in target.params)


def _given(context: click.Context, params: Sequence[click.Parameter]) -> Iterator[str]:
    """The words of the arguments and options of ``params`` that the command line gave, in order:
    arguments first, then options (a flag that hands no value on, such as ``--drift``, too)."""
    given = [
        param
        for param in params
        if param.name is not None and context.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
    ]
    for param in given:
        if isinstance(param, click.Argument) and param.expose_value:
            yield from _texts(context.params[param.name or ""])
    for param in given:
        if not isinstance(param, click.Option):
            continue
        if param.expose_value:
            yield from _option_words(param, context.params[param.name or ""])
        elif param.is_flag and not param.secondary_opts:
            yield param.opts[0]


def _option_words(option: click.Option, value: object) -> Iterator[str]:
    if option.is_flag and isinstance(value, bool):
        if value or option.secondary_opts:
            yield option.opts[0] if value else option.secondary_opts[0]
        return
    if option.count and isinstance(value, int):
        yield from [option.opts[0]] * value
        return
    for text in _texts(value):
        yield option.opts[0]
        yield text


def _texts(value: object) -> Iterator[str]:
    """A value as the command line's words: a list or tuple one word per item."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)
        return
    yield _text(value)


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        return orjson.dumps(value).decode()
    name = getattr(value, "name", None)  # an opened file (click.File): its name as given
    return name if isinstance(name, str) else str(value)
