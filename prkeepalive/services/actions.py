"""The keepalive inside GitHub Actions: no server and no database, only the
standard Actions environment (``GITHUB_API_URL``, ``GITHUB_TOKEN``,
``GITHUB_REPOSITORY``, ``GITHUB_RUN_ID``, ``GITHUB_STEP_SUMMARY``,
``GITHUB_OUTPUT``). Here the 🚀 reaction is the only lock: 201 takes it,
200 or 409 means another run holds it (``lock-held``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.conf import settings

from prkeepalive.core.facts import decide
from prkeepalive.core.labels import is_instruction
from prkeepalive.core.lanes import lane_for, unhandled_reason, with_lock_held
from prkeepalive.core.markers import parse_markers
from prkeepalive.core.summary import decision_line, worker_line
from prkeepalive.core.types import (
    LOCK_REACTION,
    DispatchDecision,
    Lane,
    LastProcessed,
    Policy,
    WorkerDecision,
)
from prkeepalive.core.wire import parse_event
from prkeepalive.core.worker import decide_worker
from prkeepalive.github import GitHubClient, PullInfo
from prkeepalive.services.dispatch import read_pull
from prkeepalive.services.rounds import run_sync_ladder


class ActionsConfigError(Exception):
    """The Actions environment or the event file is missing or unusable."""


@dataclass(frozen=True, slots=True)
class Env:
    api_url: str
    token: str
    repository: str
    run_id: int | None
    summary_path: str
    output_path: str

    @classmethod
    def read(cls, environ: dict[str, str] | None = None) -> Env:
        env = dict(os.environ if environ is None else environ)
        missing = [k for k in ("GITHUB_TOKEN", "GITHUB_REPOSITORY") if not env.get(k)]
        if missing:
            raise ActionsConfigError(f"missing environment: {', '.join(missing)}")
        run_id = env.get("GITHUB_RUN_ID", "")
        return cls(
            api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            token=env["GITHUB_TOKEN"],
            repository=env["GITHUB_REPOSITORY"],
            run_id=int(run_id) if run_id.isdigit() else None,
            summary_path=env.get("GITHUB_STEP_SUMMARY", ""),
            output_path=env.get("GITHUB_OUTPUT", ""),
        )

    def client(self) -> GitHubClient:
        return GitHubClient(
            base_url=self.api_url,
            token=self.token,
            repository=self.repository,
            retries=settings.PRKEEPALIVE_GITHUB_RETRIES,
            max_wait_s=settings.PRKEEPALIVE_GITHUB_MAX_WAIT_S,
        )

    def publish(self, line: str, outputs: dict[str, str]) -> None:
        """Append the line to the Summary tab and the outputs to the step."""
        if self.summary_path:
            with open(self.summary_path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        if self.output_path:
            with open(self.output_path, "a", encoding="utf-8") as fh:
                for key, value in outputs.items():
                    fh.write(f"{key}={value}\n")


def read_event(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ActionsConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except ValueError as exc:
        raise ActionsConfigError(
            f"{path}: line {exc.lineno}: not JSON ({exc.msg})"
        ) from None  # type: ignore[attr-defined]


def active_orchestrator_runs(
    client: GitHubClient, pull: PullInfo, *, workflow: str, exclude_run: int | None
) -> int:
    """Orchestrator runs of this PR in queued/in_progress (by linked PR,
    head SHA or head branch), not counting the current run."""
    count = 0
    for status in ("queued", "in_progress"):
        for run in client.list_runs(status=status):
            if (
                run.name.strip().lower() != workflow.strip().lower()
                or run.id == exclude_run
            ):
                continue
            if (
                pull.number in run.pull_numbers
                or run.head_sha == pull.head_sha
                or (pull.head_ref and run.head_branch == pull.head_ref)
            ):
                count += 1
    return count


def dispatch_in_actions(
    env: Env,
    *,
    event_name: str,
    payload: Any,
    policy: Policy,
    orchestrator_workflow: str,
    activation_id: int | None = None,
) -> DispatchDecision | str:
    """PR-meta's decision for one event; a string when no lane handles it."""
    event = parse_event(event_name, payload)
    lane = lane_for(event, policy)
    if lane is None:
        return unhandled_reason(event, policy)
    if activation_id is not None and lane is Lane.GATE:
        event = replace(event, activation_comment_id=activation_id)
    with env.client() as client:
        facts, pull = read_pull(client, event, lane, policy)
        if pull is not None:
            active = active_orchestrator_runs(
                client, pull, workflow=orchestrator_workflow, exclude_run=env.run_id
            )
            facts = replace(facts, active_runs=active)
        decision = decide(event, facts, policy)
        if (
            decision.ok
            and decision.activation_id is not None
            and client.add_reaction(decision.activation_id, LOCK_REACTION) != 201
        ):
            decision = with_lock_held(decision)
    line = decision_line(decision)
    env.publish(
        line,
        {
            "dispatch": "true" if decision.ok else "false",
            "reason": decision.reason.value,
            "pr": str(decision.pr_number or ""),
            "activation": str(decision.activation_id or ""),
            "agent": decision.agent,
            "round": str(decision.round or ""),
            "trace": decision.trace,
        },
    )
    return decision


def worker_guard_in_actions(
    env: Env,
    *,
    number: int,
    policy: Policy,
    orchestrator_workflow: str,
    last: LastProcessed,
    trace: str = "",
) -> WorkerDecision:
    with env.client() as client:
        pull = client.get_pull(number)
        instructions = [
            c for c in client.list_comments(number) if is_instruction(c, policy)
        ]
        latest = max(instructions, key=lambda c: c.id) if instructions else None
        others = active_orchestrator_runs(
            client, pull, workflow=orchestrator_workflow, exclude_run=env.run_id
        )
    decision = decide_worker(
        pr_number=number,
        head_sha=pull.head_sha,
        latest_instruction_id=latest.id if latest else None,
        last_processed=last,
        labels=pull.labels,
        other_active_runs=others,
        trace=trace or (parse_markers(latest.body).trace if latest else ""),
    )
    env.publish(
        worker_line(decision),
        {
            "action": decision.action.value,
            "reason": decision.reason.value,
            "instruction": str(decision.instruction_id or ""),
            "head": decision.head_sha,
        },
    )
    return decision


def sync_in_actions(
    env: Env,
    *,
    number: int,
    head_before: str,
    trace: str,
    worker_done: bool,
    output_branch: str,
) -> tuple[str, bool]:
    """The branch-sync ladder; returns (SYNC line, escalated)."""
    with env.client() as client:
        pull = client.get_pull(number)
        line, head_after, escalated = run_sync_ladder(
            client,
            number=number,
            head_before=head_before,
            trace=trace,
            worker_done=worker_done,
            base_ref=pull.head_ref,
            output_branch=output_branch,
        )
    env.publish(
        line, {"head": head_after, "escalated": "true" if escalated else "false"}
    )
    return line, escalated
