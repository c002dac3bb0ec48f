"""``manage.py gridworld_run``: run a batch of governed gridworld episodes.

Exit codes: 0 every episode ran with zero safety violations (or the batch was
queued without ``--wait``), 1 a safety violation or a failed batch, 2 invalid
input (every bad field is printed; nothing is stored).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
)

from core.errors import SchemaInvalid
from evalsite.progress import Progress
from evalsite.siteurl import site_link
from gridworld.core.config import DEFAULT_DRIFT_PERIOD, DEFAULT_MAX_STEPS
from gridworld.core.grid import LAYOUTS
from gridworld.services.batches import batch_create, batch_run, batch_run_here
from gridworld.services.episodes import episode_receipt_bytes

EXIT_FAIL = 1
EXIT_INVALID = 2


class Command(BaseCommand):
    help = (
        "Run governed gridworld episodes. --map is a layout "
        f"({', '.join(LAYOUTS)}), generated:<seed>:<W>x<H>, or the path of a map "
        "file. With --wait the batch runs here with a progress bar and the exit "
        "code says whether every episode was safe; without, it is queued for "
        "the Celery workers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--map", required=True)
        parser.add_argument("--episodes", type=int, required=True)
        parser.add_argument("--proposer", default="planner", help="greedy|planner")
        parser.add_argument(
            "--governor", default="lexicographic", help="lexicographic|none"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--repeats",
            help="epochs of the batch's episodes, 1..100 (default 1): plays "
            "episodes x repeats episodes, each with its own seed",
        )
        parser.add_argument("--drift-period", type=int, default=DEFAULT_DRIFT_PERIOD)
        parser.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS)
        parser.add_argument("--budget", type=int, help="starting budget (default 1000)")
        parser.add_argument(
            "--lane-size", type=int, help="episodes sharing planner memory"
        )
        parser.add_argument("--wait", action="store_true", help="run here and report")
        parser.add_argument(
            "--receipts",
            type=Path,
            help="write each episode's run receipt as <DIR>/episode-<N>.json "
            "(implies --wait)",
        )
        parser.add_argument("--user", help="username recorded as the batch's creator")
        parser.add_argument(
            "--queue", help="Celery queue for the chunk tasks (default: gridworld)"
        )
        parser.add_argument("--base-url", help="default: the SITE_URL setting")

    def _config(self, options: dict[str, Any]) -> dict[str, Any]:
        config: dict[str, Any] = {
            "episodes": options["episodes"],
            "proposer": options["proposer"],
            "governor": options["governor"],
            "seed": options["seed"],
            "drift_period": options["drift_period"],
            "max_steps": options["max_steps"],
        }
        for key in ("budget", "lane_size", "repeats"):
            if options[key] is not None:
                config[key] = options[key]
        spec = options["map"]
        path = Path(spec)
        if spec not in LAYOUTS and not spec.startswith("generated:") and path.is_file():
            try:
                config["map_text"] = path.read_text("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"{spec}: {exc}", returncode=EXIT_INVALID) from exc
            config["map"] = path.stem
        else:
            config["map"] = spec
        return config

    def handle(self, *args: Any, **options: Any) -> None:
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(
                    f"no user {options['user']!r}", returncode=EXIT_INVALID
                )
        wait = options["wait"] or options["receipts"] is not None
        config = self._config(options)
        try:
            batch = batch_create(
                config=config,
                user=user,
                schedule=not wait,
                queue=options["queue"],
                started_via="cli",
            )
        except SchemaInvalid as exc:
            for problem in exc.problems:
                field = "map" if problem.path == "map_text" else problem.path
                self.stderr.write(f"{options['map']}: {field}: {problem.message}")
            raise CommandError(
                f"invalid batch config ({len(exc.problems)} problem(s)); nothing "
                "was run or stored",
                returncode=EXIT_INVALID,
            ) from exc
        url = site_link(batch.get_absolute_url(), options["base_url"])
        if not wait:
            run = batch_run(batch)
            self.stdout.write(
                f"batch {batch.pk} queued as run {run.run_id} "
                f"({run.total_cases} episodes)"
            )
            self.stdout.write(f"url: {url}")
            return
        progress = Progress(self.stderr, is_tty=self.stderr.isatty(), unit=" episodes")
        run = batch_run_here(batch, on_progress=progress)
        progress.finish()
        if options["receipts"] is not None:
            self._write_receipts(batch, options["receipts"])
        self._summary(run, url)
        if run.status == "failed" or not run.verdict_passed:
            raise CommandError(
                f"batch {batch.pk}: "
                + (
                    run.error
                    or f"{run.metrics.get('safety_violations')} safety violation(s)"
                ),
                returncode=EXIT_FAIL,
            )

    def _write_receipts(self, batch: Any, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        for episode in batch.episode_rows.order_by("index"):
            (directory / f"episode-{episode.index}.json").write_bytes(
                episode_receipt_bytes(episode)
            )
        self.stdout.write(
            f"receipts: {batch.episode_rows.count()} files in {directory}"
        )

    def _summary(self, run: Any, url: str) -> None:
        metrics = run.metrics
        self.stdout.write(
            f"run {run.run_id}: {run.status}, {metrics.get('episodes', 0)} episodes, "
            f"passed {run.passed_cases} of {run.total_cases} "
            f"(pass rate {run.pass_rate:.3f}: goal reached, no safety violation), "
            f"goal reached {metrics.get('success_rate', 0.0):.3f}, "
            f"mean steps to goal {metrics.get('mean_steps_to_goal', 0.0):.1f}, "
            f"recovered within 20 steps {metrics.get('recovery_rate_20', 0.0):.3f}"
        )
        self.stdout.write(
            "safety: "
            + ", ".join(
                f"{name} {metrics.get(name, 0)}"
                for name in ("hazard_entries", "kernel_violations", "negative_budgets")
            )
        )
        if run.verdict_passed:
            self.stdout.write("verdict: PASS (no safety violation)")
        else:
            failed = ",".join(run.failed_properties) or run.status
            self.stdout.write(f"verdict: FAIL (failed: {failed})")
        self.stdout.write(f"url: {url}")
