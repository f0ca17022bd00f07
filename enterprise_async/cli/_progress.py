"""Progress bars of a catalog export: one per catalog and one overall, with items per second."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from ..exports import CatalogOutcome
from ..models import Catalog

__all__ = ["OVERALL", "CatalogProgressBars", "ItemsPerSecondColumn"]

OVERALL: Final = "[bold]all catalogs[/]"
"""The overall bar's label."""


class ItemsPerSecondColumn(ProgressColumn):
    """Items per second (rich's speed column counts bytes)."""

    def render(self, task: Task) -> Text:
        """The task's current speed, or its final one once finished."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} items/s" if speed else "", style="progress.data.speed")


class CatalogProgressBars:
    """An ``ExportProgress`` drawn with rich; use it as a context manager around the export.

    The bars never look finished when the export is not: the overall total is known only once
    every catalog's size is, a catalog is ticked only when complete, and an export that fails in
    part or is interrupted ends with its overall bar marked so, at the count it reached.
    """

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            ItemsPerSecondColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._overall = self._progress.add_task(OVERALL, total=None)
        self._bars: dict[str, TaskID] = {}
        self._titles: dict[str, str] = {}
        self._unsized: set[str] = set()
        """Catalogs whose size is not known yet (or never told): the overall total waits for them."""
        self._running: set[str] = set()
        self._expected = 0
        self._failed = 0
        self._started = False

    def __enter__(self) -> CatalogProgressBars:
        return self  # the bars are drawn once the catalogs are listed: a run refused before shows none

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if not self._started:
            return
        if kind is not None:
            interrupted = issubclass(kind, (asyncio.CancelledError, KeyboardInterrupt))
            self._stop_short("interrupted" if interrupted else f"stopped by {kind.__name__}")
        elif self._failed:
            self._stop_short(f"{self._failed} failed")
        else:
            overall = self._progress.tasks[0]
            self._progress.update(self._overall, total=overall.completed)
        self._progress.stop()

    def _stop_short(self, why: str) -> None:
        """Mark the overall bar, and every catalog still running, as stopped short of the end."""
        for key in self._running:
            self._progress.update(self._bars[key], description=f"[yellow]✗ {self._titles[key]}: {why}[/]")
            self._progress.stop_task(self._bars[key])
        self._progress.update(self._overall, description=f"[red]✗ {OVERALL}: {why}[/]")
        self._progress.stop_task(self._overall)

    def catalogs_listed(self, catalogs: Sequence[Catalog]) -> None:
        """One bar per catalog, waiting for its first page."""
        self._progress.start()
        self._started = True
        for catalog in catalogs:
            key = catalog.uuid or ""
            self._titles[key] = escape(catalog.title or key)
            self._bars[key] = self._progress.add_task(self._titles[key], total=None)
            self._unsized.add(key)
            self._running.add(key)

    def catalog_started(self, catalog: Catalog, total: int | None) -> None:
        """The catalog's size is known: so is more of the overall total."""
        key = catalog.uuid or ""
        self._progress.update(self._bars[key], total=total)
        if total is not None:
            self._unsized.discard(key)
            self._expected += total
        self._show_overall_total()

    def items_written(self, catalog: Catalog, count: int) -> None:
        """Advance the catalog's bar and the overall one."""
        self._progress.advance(self._bars[catalog.uuid or ""], count)
        self._progress.advance(self._overall, count)

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        """Mark the catalog done, skipped or failed."""
        bar = self._bars[outcome.uuid]
        title = self._titles[outcome.uuid]
        self._running.discard(outcome.uuid)
        if outcome.uuid in self._unsized and outcome.status == "complete":
            self._expected += outcome.items  # its size is known now that it is complete
        self._unsized.discard(outcome.uuid)  # skipped or failed: not part of the overall total
        if outcome.status == "complete":
            self._progress.update(bar, total=outcome.items, description=f"[green]✓[/] {title}")
        elif outcome.status == "skipped":
            self._progress.update(
                bar,
                total=outcome.items,
                completed=outcome.items,
                description=f"[dim]✓ {title} (already complete)[/]",
            )
        else:
            self._failed += 1
            self._progress.update(bar, description=f"[red]✗ {title}: failed[/]")
            self._progress.stop_task(bar)
        self._show_overall_total()

    def _show_overall_total(self) -> None:
        """The overall total once every catalog's size is known; until then, none (not a guess
        that the items written so far could reach and look finished)."""
        self._progress.update(self._overall, total=None if self._unsized else self._expected)
