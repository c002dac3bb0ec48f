"""``manage.py eval_run``: start a scenario eval run.

With ``--wait`` the summary ends with the run's model calls, tokens and
cost (``traces.facade.usage_lines``): unknown figures are said to be
unknown, never printed as 0.

Exit codes: 0 PASS (or queued without ``--wait``), 1 FAIL or a failed run,
2 invalid input (an invalid suite prints every invalid line; nothing is run
or stored).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
)

from core.errors import CoreError
from evals.core.metrics import format_metric
from evals.core.repeats import WITHIN_ZERO, format_figure, shows_repeats
from evals.core.stats_input import MAX_REPEATS
from evals.core.suite_types import SuiteInvalid
from evals.models import Run
from evals.services.harness.create import (
    DEFAULT_REDUCER,
    DEFAULT_REPEATS,
    DEFAULT_SAMPLER,
    DEFAULT_SEED,
    MODELS,
    MODES,
    PROFILES,
    SAMPLER_NAMES,
    eval_run_create,
)
from evals.services.harness.suites import suite_locate
from evals.services.runs.lifecycle import run_execute
from evalsite.progress import Progress
from evalsite.siteurl import site_link
from traces.facade import run_usage_totals, usage_lines

EXIT_FAIL = 1
EXIT_INVALID = 2


class Command(BaseCommand):
    help = (
        "Run a JSONL scenario suite through the thinking pipeline. With --wait "
        "the run executes here with a progress bar and the exit code is its "
        "verdict (0 PASS, 1 FAIL); without, it is queued for the Celery workers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--suite",
            required=True,
            help="a shipped suite's name (smoke, idle-v1) or the path of a JSONL suite",
        )
        parser.add_argument("--profile", required=True, help="|".join(PROFILES))
        parser.add_argument("--mode", required=True, help="|".join(MODES))
        parser.add_argument("--model", required=True, help="|".join(MODELS))
        parser.add_argument(
            "--script",
            help="scripted outputs (default: <suite>.script.jsonl beside the suite)",
        )
        parser.add_argument(
            "--sampler", default=DEFAULT_SAMPLER, help="|".join(SAMPLER_NAMES)
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument(
            "--repeats",
            default=str(DEFAULT_REPEATS),
            help=f"epochs per scenario, 1..{MAX_REPEATS} (default 1); each is "
            "its own case <scenario>#<epoch> with its own seed",
        )
        parser.add_argument(
            "--reducer",
            default=DEFAULT_REDUCER,
            help="how a scenario's epochs become one value: mean (default), "
            "majority, max, pass_at_<k>, pass^<k>",
        )
        parser.add_argument(
            "--wait", action="store_true", help="run here and print the summary"
        )
        parser.add_argument("--user", help="username recorded as the run's creator")
        parser.add_argument("--queue", help="Celery queue for the chunk tasks")
        parser.add_argument(
            "--base-url",
            help="where the web pages are served, for the printed link "
            "(default: the SITE_URL setting)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = self._user(options["user"])
        try:
            run = eval_run_create(
                suite_path=suite_locate(options["suite"]),
                profile=options["profile"],
                mode=options["mode"],
                model=options["model"],
                script_path=options["script"],
                sampler=options["sampler"],
                seed=options["seed"],
                repeats=options["repeats"],
                reducer=options["reducer"],
                user=user,
                schedule=not options["wait"],
                queue=options["queue"],
                started_via="cli",
            )
        except SuiteInvalid as exc:
            for invalid in exc.invalid_lines:
                self.stderr.write(
                    f"{exc.path}: line {invalid.line}: errors={invalid.errors_json()}"
                )
            raise CommandError(
                f"{exc.path}: {len(exc.invalid_lines)} invalid line(s); "
                "nothing was run or stored",
                returncode=EXIT_INVALID,
            ) from exc
        except CoreError as exc:
            raise CommandError(exc.message, returncode=EXIT_INVALID) from exc

        url = site_link(run.get_absolute_url(), options["base_url"])
        if not options["wait"]:
            self.stdout.write(f"run {run.run_id} queued ({run.total_cases} scenarios)")
            self.stdout.write(f"url: {url}")
            return

        progress = Progress(self.stderr, is_tty=self.stderr.isatty())
        run = run_execute(run=run, on_progress=progress)
        progress.finish()
        self._print_summary(run, url)
        if run.status == Run.Status.FAILED or not run.verdict_passed:
            raise CommandError(
                "FAIL: " + (",".join(run.failed_properties) or run.status),
                returncode=EXIT_FAIL,
            )

    def _user(self, username: str | None) -> Any:
        if not username:
            return None
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}", returncode=EXIT_INVALID)
        return user

    def _print_summary(self, run: Run, url: str) -> None:
        config = run.config
        metrics = run.metrics
        write = self.stdout.write
        write(
            f"run {run.run_id} {run.status}: suite {run.benchmark.benchmark_id}, "
            f"profile {config['profile']}, mode {config['mode']}, "
            f"model {config['modelId']}, sampler {config['sampler']}, "
            f"seed {config['seed']}"
        )
        if metrics:
            write(
                " ".join(
                    f"{name}={format_metric(metrics[name])}"
                    for name in (
                        "action_rate",
                        "grounding_pass_rate",
                        "repetition_rate",
                        "compulsion_proxy",
                        "latency_p95_ms",
                    )
                )
            )
            write(
                f"hallucinations={metrics['hallucination_count']} "
                f"compulsions={metrics['compulsion_count']} "
                f"inertia={metrics['inertia_count']} "
                f"errors={metrics['scenarios_errored']}"
                + (
                    f" tasks_created={metrics['tasks_created']}"
                    if "tasks_created" in metrics
                    else ""
                )
            )
        if shows_repeats(config):
            self._print_uncertainty(run)
        write(
            f"cases: {run.passed_cases} passed, {run.failed_cases} failed "
            f"of {run.total_cases}"
        )
        if run.error:
            write(f"error: {run.error}")
        if run.verdict_passed:
            write("verdict: PASS (properties satisfied; action_rate may be zero)")
        else:
            write("verdict: FAIL (failed: " + ",".join(run.failed_properties) + ")")
        write(f"artifacts: {run.artifacts_dir}")
        write(f"url: {url}")
        for line in usage_lines(run_usage_totals(run.run_id)):
            write(line)

    def _print_uncertainty(self, run: Run) -> None:
        found = run.uncertainty or {}
        self.stdout.write(
            f"repeats {found.get('repeats', 1)}, reducer {found.get('reducer', 'mean')}"
        )
        if found.get("error"):
            self.stdout.write(f"uncertainty: {found['error']}")
        for name, figure in (found.get("metrics") or {}).items():
            self.stdout.write(f"{name} = {format_figure(figure)}")
        if found.get("withinZero"):
            self.stdout.write(WITHIN_ZERO)
        if found.get("advice"):
            self.stdout.write(found["advice"])
