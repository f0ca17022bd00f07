"""``enterprise-async --help`` lists every command without building one: it imports no model,
and what it lists is what the whole command tree would list."""

from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner

from enterprise_async.cli import cli
from enterprise_async.cli._app import command_tree
from enterprise_async.cli._help import HAND_WRITTEN_HELP

HEAVY = (
    "enterprise_async._generated.models",
    "enterprise_async._generated.operations",
    "enterprise_async.exports",
)


def test_help_imports_no_api_model() -> None:
    """Run in a fresh interpreter: which modules ``--help`` loaded."""
    script = (
        "import sys\n"
        "from enterprise_async.__main__ import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print([name for name in {HEAVY!r} if name in sys.modules])\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert finished.stdout.splitlines()[-1] == "[]", finished.stdout
    assert "Commands:" in finished.stdout


def test_the_light_listing_is_what_the_whole_tree_lists() -> None:
    light = CliRunner().invoke(cli, ["--help"], terminal_width=100)
    whole = CliRunner().invoke(command_tree(), ["--help"], terminal_width=100)
    assert light.exit_code == whole.exit_code == 0
    assert light.stdout == whole.stdout


def test_the_hand_written_commands_first_lines_are_their_own() -> None:
    tree = command_tree()
    for name, text in HAND_WRITTEN_HELP.items():
        listed = click.Command(name, help=text).get_short_help_str(200)
        assert tree.commands[name].get_short_help_str(200) == listed


def test_a_command_runs_through_the_light_root() -> None:
    ran = CliRunner().invoke(cli, ["enrollments", "--help"])
    assert ran.exit_code == 0
    assert "results" in ran.stdout
    assert "bulk-enroll" in ran.stdout
