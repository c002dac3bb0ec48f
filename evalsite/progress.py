"""The progress of a run in a management command's output (``--wait``)."""

from __future__ import annotations

from django.core.management.base import OutputWrapper

BAR_WIDTH = 30


class Progress:
    """A progress bar on a TTY, else a plain line per tenth of the run;
    ``unit`` follows the counts (``" episodes"``)."""

    def __init__(self, out: OutputWrapper, *, is_tty: bool, unit: str = "") -> None:
        self.out = out
        self.is_tty = is_tty
        self.unit = unit
        self.last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        if self.is_tty:
            filled = BAR_WIDTH * done // total
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.out.write(f"\r[{bar}] {done}/{total}{self.unit}", ending="")
            self.out.flush()
            return
        tenth = 10 * done // total
        if tenth != self.last_tenth:
            self.last_tenth = tenth
            self.out.write(
                f"progress {done}/{total}{self.unit} ({100 * done // total}%)"
            )

    def finish(self) -> None:
        if self.is_tty:
            self.out.write("")
