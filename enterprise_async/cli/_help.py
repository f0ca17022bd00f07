"""What the root command says of itself: its help, the hand-written commands' first lines, and
what each exit code means (one table, for ``--help`` and the README)."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["CLI_HELP", "CONTEXT_SETTINGS", "EXIT_CODES", "HAND_WRITTEN_HELP", "exit_code_table"]

EXIT_CODES: Final = (
    (0, "everything was done"),
    (1, "the API, the network or the file system refused"),
    (2, "bad input or missing credentials: nothing was sent"),
    (3, "done in part: some chunks, enrollments or catalogs failed"),
    (4, "nothing done: every chunk, enrollment or catalog failed"),
    (5, "an export is complete, but some items could not be read: each is in its catalog's rejects file"),
    (130, "stopped by Ctrl-C (SIGINT): what was done is reported"),
    (143, "stopped by SIGTERM: as for Ctrl-C"),
)
"""What each exit code means: the table of the command line's help and of its README."""


def exit_code_table() -> str:
    """``EXIT_CODES`` as the lines of a table, one code a line."""
    return "\n".join(f"{code:>5}  {meaning}" for code, meaning in EXIT_CODES)


CONTEXT_SETTINGS: Final[dict[str, Any]] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

HAND_WRITTEN_HELP: Final = {
    "bulk": "Bulk operations over files of any size, sent in the chunks the services accept.",
    "demo": "Tour every resource against an embedded sandbox: no credentials, no network.",
    "learners": "The learner summary as a file (its pages one at a time: `learner-summary list`).",
    "sandbox": "Serve the sandbox API in the foreground until Ctrl-C.",
    "sandbox-edit": (
        "Change the catalogs of a running sandbox (`enterprise-async sandbox`), between two exports."
    ),
    "whoami": (
        "The enterprise customers your token serves: the uuid that `policies list`, `learners export`,"
        " `subscriptions list --enterprise-customer-uuid` and the other commands take."
    ),
    "worker": "Run a worker of catalog exports.",
}
"""The first paragraph of each hand-written top-level command's help, as its module says it (a
test holds them equal); the hand-written groups of a resource's name join its generated group."""

CLI_HELP: Final = f"""The Open edX enterprise API from the command line.

Every operation of the API is a command, `enterprise-async <resource> <method>`: the ids it needs
are arguments, everything else options (see `enterprise-async <resource> <method> --help`). The
tasks over many items have a command each: `bulk enroll` (and `bulk assign-licenses`, `bulk
revoke`, `bulk allocate`) for a file of e-mails, `enrollments results` for a job's results,
`catalogs export` and `learners export` for files of records.
Credentials come from ENTERPRISE_CLIENT_ID, ENTERPRISE_CLIENT_SECRET and ENTERPRISE_BASE_URL (and
ENTERPRISE_AUTH_URL when tokens come from another host); or add --sandbox to any command to run it
against a sandbox started for it, with no credentials. Start with `enterprise-async demo`.

Results are tables sized to the terminal; --json writes them for programs instead.
`enterprise-async --drift <command>` prints afterwards, on stderr, what the answers held that this
SDK does not know yet.

\b
Exit codes:
{exit_code_table()}
"""
