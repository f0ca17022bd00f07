"""Progress bars of a catalog export: one per catalog and one overall, with items per second,
fitted to the terminal's width; each label says, as they grow, the items rejected (written to the
rejects file) and, with changes, the items created, updated and removed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Final

from rich.cells import cell_len
from rich.console import Console, RenderableType
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
from rich.table import Column, Table
from rich.text import Text

from ..exports import CatalogOutcome, ChangeCounts
from ..models import Catalog

__all__ = ["OVERALL", "CatalogProgressBars", "FittingProgress", "ItemsPerSecondColumn"]

OVERALL: Final = "[bold]all catalogs[/]"
"""The overall bar's label."""


class ItemsPerSecondColumn(ProgressColumn):
    """Items per second of this run: the items it wrote over the time it took, leaving out those
    a resumed catalog already had on disk (the task's ``resumed`` field)."""

    def render(self, task: Task) -> Text:
        """The task's rate so far, or its final one once finished."""
        own = task.completed - int(task.fields.get("resumed", 0))
        elapsed = task.finished_time if task.finished else task.elapsed
        speed = own / elapsed if elapsed and own > 0 else 0.0
        return Text(f"{speed:,.0f} items/s" if speed else "", style="progress.data.speed")


BAR_WIDTHS: Final = (10, 40)
"""The narrowest bar worth drawing, and the widest drawn."""
LABEL_MIN: Final = 16
"""Columns a label keeps before a figure column is dropped to make room for it."""
LAYOUTS: Final[tuple[tuple[tuple[int, ...], bool], ...]] = (
    ((0, 1, 2), True),
    ((0, 1), True),
    ((0, 1), False),
    ((0,), False),
)
"""What each row shows, widest first: the figure columns kept (0 the count, 1 the speed, 2 the
elapsed time) and whether the bar is drawn. The count is never dropped."""


class FittingProgress(Progress):
    """Progress rows that fit the console, and never cut a figure: when the row is too wide, the
    elapsed time, then the bar, then the speed are dropped; then the label is shortened (``…``).

    Its columns are a label, a bar, then the figure columns (count, speed, elapsed time).
    """

    def make_tasks_table(self, tasks: Iterable[Task]) -> Table:
        rows = [task for task in tasks if task.visible]
        label_column, bar_column, *figure_columns = self.columns
        if not isinstance(label_column, ProgressColumn) or not isinstance(bar_column, ProgressColumn):
            return super().make_tasks_table(tasks)
        labels = [label_column(task) for task in rows]
        figures = [
            [column(task) for task in rows] for column in figure_columns if isinstance(column, ProgressColumn)
        ]
        widths = [max((_width(cell) for cell in cells), default=0) for cells in figures]
        widest_label = max((_width(label) for label in labels), default=0)
        live = getattr(self, "live", None)  # None while Progress.__init__ makes its Live
        room = live.console.width if live is not None else 80
        kept: tuple[int, ...] = LAYOUTS[-1][0]
        bar = False
        for kept, bar in LAYOUTS:
            fixed = sum(widths[index] + 1 for index in kept) + (BAR_WIDTHS[0] + 1 if bar else 0)
            if fixed + min(widest_label, LABEL_MIN) <= room:
                break
        figures_width = sum(widths[index] + 1 for index in kept)
        label_width = max(1, min(widest_label, room - figures_width - (BAR_WIDTHS[0] + 1 if bar else 0)))
        labels = [_without_notes(label, label_width) for label in labels]
        bar_width = max(BAR_WIDTHS[0], min(BAR_WIDTHS[1], room - figures_width - label_width - 1))
        columns = [Column(width=label_width, no_wrap=True, overflow="ellipsis")]
        if bar:
            columns.append(Column(width=bar_width, no_wrap=True))
        columns.extend(Column(width=widths[index], no_wrap=True, justify="right") for index in kept)
        table = Table.grid(*columns, padding=(0, 1), expand=False)
        for number, task in enumerate(rows):
            cells: list[RenderableType] = [labels[number]]
            if bar:
                cells.append(bar_column(task))
            cells.extend(figures[index][number] for index in kept)
            table.add_row(*cells)
        return table


def _without_notes(label: RenderableType, width: int) -> RenderableType:
    """A label too wide for ``width``, its notes in parentheses dropped from the last (``Title
    (12 created, ...)``), so that a count is never cut; the title is then shortened if need be."""
    if not isinstance(label, Text):
        return label
    while cell_len(label.plain) > width and (cut := label.plain.rfind(" (")) > 0:
        label = label[:cut]
    return label


def _width(renderable: RenderableType) -> int:
    return cell_len(renderable.plain) if isinstance(renderable, Text) else cell_len(str(renderable))


class CatalogProgressBars:
    """An ``ExportProgress`` drawn with rich; use it as a context manager around the export.

    The bars never look finished when the export is not: the overall total is known only once
    every catalog's size is, a catalog is ticked only when complete, and an export that fails in
    part or is interrupted ends with its overall bar marked so, at the count it reached.
    """

    def __init__(self, console: Console) -> None:
        self._progress = FittingProgress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=None),
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
        self._rejected: dict[str, int] = {}
        self._changes: dict[str, ChangeCounts] = {}
        self._expected = 0
        self._resumed = 0
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

    def items_resumed(self, catalog: Catalog, count: int) -> None:
        """The items a resumed catalog already had on disk: on the bars, not in their rates."""
        self._resumed += count
        self._progress.update(self._bars[catalog.uuid or ""], advance=count, resumed=count)
        self._progress.update(self._overall, advance=count, resumed=self._resumed)

    def items_rejected(self, catalog: Catalog, count: int) -> None:
        """Items of a catalog written to its rejects file: its label counts them."""
        key = catalog.uuid or ""
        self._rejected[key] = self._rejected.get(key, 0) + count
        self._progress.update(self._bars[key], description=self._label(key))

    def changes_counted(self, catalog: Catalog, counts: ChangeCounts) -> None:
        """A catalog's changes so far: its label and the overall one count them."""
        key = catalog.uuid or ""
        self._changes[key] = counts
        self._progress.update(self._bars[key], description=self._label(key))
        total = ChangeCounts()
        for each in self._changes.values():
            total += each
        self._progress.update(self._overall, description=f"{OVERALL} ({_changed(total)})")

    def _label(self, key: str, title: str | None = None) -> str:
        """A catalog's label: its title, then what it rejected and what changed so far."""
        notes = []
        if self._rejected.get(key):
            notes.append(f"{self._rejected[key]:,} rejected")
        if key in self._changes:
            notes.append(_changed(self._changes[key]))
        label = title if title is not None else self._titles[key]
        return f"{label} ({'; '.join(notes)})" if notes else label

    def catalog_finished(self, outcome: CatalogOutcome) -> None:
        """Mark the catalog done, skipped or failed."""
        bar = self._bars[outcome.uuid]
        if outcome.changes is not None:
            self._changes[outcome.uuid] = outcome.changes
        if outcome.rejected:
            self._rejected[outcome.uuid] = outcome.rejected
        title = self._label(outcome.uuid)
        self._running.discard(outcome.uuid)
        if outcome.uuid in self._unsized and outcome.status == "complete":
            self._expected += outcome.items + outcome.rejected  # its size is known now that it is complete
        self._unsized.discard(outcome.uuid)  # skipped or failed: not part of the overall total
        whole = outcome.items + outcome.rejected
        if outcome.status == "complete":
            self._progress.update(bar, total=whole, description=f"[green]✓[/] {title}")
        elif outcome.status == "skipped":
            unchanged = outcome.changes is not None and not outcome.changes.changed
            if unchanged:
                self._changes.pop(outcome.uuid, None)  # said in a word
            said = "unchanged" if unchanged else "already complete"
            label = self._label(outcome.uuid, f"{self._titles[outcome.uuid]} ({said})")
            self._progress.update(bar, total=whole, completed=whole, description=f"[dim]✓ {label}[/]")
        else:
            self._failed += 1
            failed = self._label(outcome.uuid, f"{self._titles[outcome.uuid]}: failed")
            self._progress.update(bar, description=f"[red]✗ {failed}[/]")
            self._progress.stop_task(bar)
        self._show_overall_total()

    def _show_overall_total(self) -> None:
        """The overall total once every catalog's size is known; until then, none (not a guess
        that the items written so far could reach and look finished)."""
        self._progress.update(self._overall, total=None if self._unsized else self._expected)


def _changed(counts: ChangeCounts) -> str:
    """The changes counted so far, in a label: ``12 created, 3 updated, 1 removed``."""
    return f"{counts.created:,} created, {counts.updated:,} updated, {counts.removed:,} removed"
