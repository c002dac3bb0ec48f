"""How a round's coding agent is started: the dispatcher interface.

The orchestrator does not run the agent itself; it asks GitHub to start the
repository's worker workflow (``workflow_dispatch``, the default) or sends a
``repository_dispatch`` event that any workflow can listen to. Both carry
the PR, round, trace, agent and instruction comment id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from prkeepalive.github import GitHubClient
from prkeepalive.models import Repository

REPOSITORY_DISPATCH_EVENT = "keepalive-round"


@dataclass(frozen=True, slots=True)
class RoundRequest:
    pull_number: int
    round_number: int
    trace: str
    agent: str
    instruction_comment_id: int


class Dispatcher(Protocol):
    def dispatch(self, client: GitHubClient, request: RoundRequest) -> None: ...


def _inputs(request: RoundRequest) -> dict[str, str]:
    return {
        "pr": str(request.pull_number),
        "round": str(request.round_number),
        "trace": request.trace,
        "agent": request.agent,
        "instruction_comment_id": str(request.instruction_comment_id),
    }


@dataclass(frozen=True, slots=True)
class WorkflowDispatcher:
    workflow: str
    ref: str

    def dispatch(self, client: GitHubClient, request: RoundRequest) -> None:
        client.workflow_dispatch(self.workflow, self.ref, _inputs(request))


@dataclass(frozen=True, slots=True)
class RepositoryDispatcher:
    event_type: str = REPOSITORY_DISPATCH_EVENT

    def dispatch(self, client: GitHubClient, request: RoundRequest) -> None:
        client.repository_dispatch(self.event_type, dict(_inputs(request)))


def dispatcher_for(repository: Repository) -> Dispatcher:
    if repository.dispatch_mode == Repository.DispatchMode.REPOSITORY_DISPATCH:
        return RepositoryDispatcher()
    return WorkflowDispatcher(repository.dispatch_workflow, repository.dispatch_ref)
