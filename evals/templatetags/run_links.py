"""``{% run_compare_links run %}``: the "Compare this run" box of every run
page (scenario runs, recorded runs, gridworld batches): a link comparing it
with its benchmark's baseline run and one with the run before it, whatever
the run's status (a failed run is the one people most want to compare)."""

from __future__ import annotations

from typing import Any

from django import template

from evals.models import Run
from evals.selectors.run_links import run_compare_links

register = template.Library()


@register.inclusion_tag("evals/includes/run_compare.html", name="run_compare_links")
def run_compare_links_tag(run: Run) -> dict[str, Any]:
    return {"run": run, "links": run_compare_links(run)}
