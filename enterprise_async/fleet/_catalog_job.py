"""The worker's job of one catalog: ``export_catalog``, which ``export_via_queue`` enqueues.

The job checks its arguments (they come from Redis: a tampered job is refused with the reason),
opens the worker's client with the job's options, and writes ``<directory>/<uuid>.jsonl`` as a
local export does, continuing from the catalog's page checkpoint when an earlier run left one. It
runs under its run's lease and alone on the file (``_runs.guarded``), and a twin that already
finished it lends its result (``_runs.twin_result``). Its result is the manifest entry, or why
it failed, or ``{"dropped": ...}`` when its run is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .._utils.json_types import JSONValue
from ..errors import EnterpriseError
from ..exports import Manifest, SilentProgress
from ..exports._catalog_writer import ExportJob, ItemTally, catalog_file_name, write_catalog_contents
from ..exports._catalogs import failure_reason
from ..exports._checkpoint_files import CheckpointFiles
from ..exports._lock import file_lock_path
from ..models import Catalog, from_dict
from ._runs import RunTicket, guarded, twin_result
from ._worker_clients import WorkerClients

__all__ = ["export_catalog"]


async def export_catalog(
    context: dict[str, Any],
    run: dict[str, Any],
    directory: str,
    catalog: dict[str, Any],
    page_size: int | None,
    client_options: Mapping[str, JSONValue],
    changes: str | None = None,
) -> dict[str, Any]:
    """The job: one catalog to ``<directory>/<uuid>.jsonl`` (with its rejects file, and, in a run
    of changes ``changes``, its changes against the baseline the directory's manifest records);
    its manifest entry, or why it failed (``{"dropped": ...}`` when its run is over)."""
    try:
        ticket = RunTicket.from_dict(run)
        wanted = _catalog_argument(catalog)
        path = Path(directory) / catalog_file_name(wanted.uuid or "")
        if changes is not None and not isinstance(changes, str):
            raise ValueError("the run of changes is no id")
    except (ValueError, TypeError, EnterpriseError) as error:
        return {"error": f"refused a job with bad arguments: {' '.join(str(error).split())}"}
    clients: WorkerClients = context["clients"]
    try:
        client = await clients.environment(client_options)
    except EnterpriseError as error:  # options that are not ClientOptions: a tampered job
        return {"error": f"refused a job with bad arguments: {' '.join(str(error).split())}"}
    if client is None:
        return {"error": "this worker has no ENTERPRISE_* credentials: start it with them to export catalogs"}
    checkpoints = CheckpointFiles(path.parent, catalog_file_name)  # a later run continues from them
    manifest = Manifest(path.parent)  # the enqueuer's: read for the catalog's baseline, never written
    job = ExportJob(
        client,
        path.parent,
        manifest,
        True,
        page_size,
        SilentProgress(),
        checkpoints=checkpoints,
        changes=changes,
    )

    async def write() -> dict[str, Any]:
        twin = await twin_result(context)
        if twin is not None:
            return twin
        try:
            entry = await write_catalog_contents(job, wanted, ItemTally())
        except (EnterpriseError, OSError) as error:
            return {"error": failure_reason(error)}
        return {"entry": attrs.asdict(entry)}

    try:
        result = await guarded(context["redis"], ticket, file_lock_path(path), write)
    except OSError as error:  # the folder is not there, or not writable, on this worker
        return {"error": failure_reason(error)}
    return result if result is not None else {"dropped": f"run {ticket.run_id} is over"}


def _catalog_argument(catalog: Any) -> Catalog:
    if not isinstance(catalog, dict) or not isinstance(catalog.get("uuid"), str) or not catalog["uuid"]:
        raise ValueError("the catalog has no uuid")
    return from_dict(Catalog, catalog)
