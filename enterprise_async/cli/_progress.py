"""Progress bars of a catalog export: one per catalog and one overall, with items per second."""

from __future__ import annotations

from collections.abc import Sequence

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

__all__ = ["CatalogProgressBars", "ItemsPerSecondColumn"]


class ItemsPerSecondColumn(ProgressColumn):
    """Items per second (rich's speed column counts bytes)."""

    def render(self, task: Task) -> Text:
        """The task's current speed, or its final one once finished."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} items/s" if speed else "", style="progress.data.speed")


class CatalogProgressBars:
    """An ``ExportProgress`` drawn with rich; use it as a context manager around the export."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            ItemsPerSecondColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._overall = self._progress.add_task("[bold]all catalogs", total=None)
        self._bars: dict[str, TaskID] = {}
        self._titles: dict[str, str] = {}
        self._expected = 0

    def __enter__(self) -> CatalogProgressBars:
        self._progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        overall = self._progress.tasks[0]
        self._progress.update(self._overall, total=overall.completed)
        self._progress.stop()

    def catalogs_listed(self, catalogs: Sequence[Catalog]) -> None:
        """One bar per catalog, waiting for its first page."""
        for catalog in catalogs:
            key = catalog.uuid or ""
            self._titles[key] = escape(catalog.title or key)
            self._bars[key] = self._progress.add_task(self._titles[key], total=None)

    def catalog_started(self, catalog: Catalog, total: int | None) -> None:
        """The catalog's size is known: so is more of the overall total."""
        self._progress.update(self._bars[catalog.uuid or ""], total=total)
        if total:
            self._expected += total
            self._progress.update(self._overall, total=self._expected)

    def items_written(self, catalog: Catalog, count: int) -> None:
        """Advance the catalog's bar and the overall one."""
        self._progress.advance(self._bars[catalog.uuid or ""], count)
        self._progress.advance(self._overall, count)

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        """Mark the catalog done, skipped or failed."""
        bar = self._bars[outcome.uuid]
        title = self._titles[outcome.uuid]
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
            self._progress.update(bar, description=f"[red]✗ {title}: failed[/]")
            self._progress.stop_task(bar)
