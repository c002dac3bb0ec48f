"""A small typed GitHub REST client on httpx.

Why httpx and not githubkit or PyGithub: httpx is already a dependency, the
keepalive needs about fifteen endpoints, and owning the request loop is what
makes the two rules that matter easy to keep: every call has a bounded retry
budget (rate limits and 5xx), and the reaction endpoint's status code
(201 created vs 200 already there) reaches the caller, because it is the
visible dispatch lock. PyGithub hides status codes behind objects;
githubkit would be a large new dependency for the same fifteen calls.

Rules: the base URL is configurable (GitHub Enterprise:
``https://ghe.example.com/api/v3``); tokens travel only in the
``Authorization`` header and are never logged, printed or put in
exceptions; rate limits (429, or 403 with ``X-RateLimit-Remaining: 0``)
wait for ``Retry-After``/``X-RateLimit-Reset`` up to ``max_wait_s`` and
retry; 5xx and transport errors retry with backoff; at most ``retries``
retries per call, then ``GitHubError``.
"""

from __future__ import annotations

import functools
import logging
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from prkeepalive.core.types import Comment
from prkeepalive.core.wire import REACTION_KEYS

logger = logging.getLogger(__name__)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle costs tens of milliseconds; every client of the
    # process shares one context instead of building its own.
    return httpx.create_ssl_context()


class GitHubError(Exception):
    """A GitHub call failed for good (after retries) or answered 4xx.

    ``status`` is GitHub's answer, 0 when none came; ``cause`` then says what
    failed instead (``connection refused``, ``DNS lookup failed``, ...)."""

    def __init__(self, message: str, *, status: int = 0, cause: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.cause = cause or (f"answered {status}" if status else "")


_DNS_HINTS = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "getaddrinfo",
    "no address associated",
    "name resolution",
)


def describe_transport_error(exc: httpx.TransportError) -> str:
    """What failed when no answer came, in words a log reader can act on."""
    text = str(exc).lower()
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    if isinstance(exc, httpx.ConnectError):
        if any(hint in text for hint in _DNS_HINTS):
            return "DNS lookup failed"
        if "refused" in text:
            return "connection refused"
        if "unreachable" in text:
            return "network unreachable"
        if "certificate" in text or "ssl" in text:
            return "TLS handshake failed"
        return f"could not connect ({exc})" if str(exc) else "could not connect"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@dataclass(frozen=True, slots=True)
class PullInfo:
    number: int
    title: str
    head_sha: str
    head_ref: str
    base_ref: str
    labels: tuple[str, ...]
    body: str
    is_open: bool
    is_fork: bool


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    name: str
    status: str
    conclusion: str
    head_sha: str
    head_branch: str
    pull_numbers: tuple[int, ...]
    created_at: str
    display_title: str = ""


class GitHubClient:
    """Calls on one repository (``owner/name``) with one token."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        repository: str,
        timeout_s: float = 10.0,
        retries: int = 3,
        max_wait_s: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.repository = repository
        self.retries = retries
        self.max_wait_s = max_wait_s
        self._sleep = sleep
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "evalsite-prkeepalive",
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            verify=_ssl_context(),
        )

    def __repr__(self) -> str:
        return f"GitHubClient(repository={self.repository!r}, token=***)"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the request loop -------------------------------------------------

    def _wait_for(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying ``response``, or None: no retry."""
        status = response.status_code
        headers = response.headers
        limited = status == 429 or (
            status == 403 and headers.get("x-ratelimit-remaining") == "0"
        )
        if limited:
            if headers.get("retry-after", "").isdigit():
                return float(headers["retry-after"])
            reset = headers.get("x-ratelimit-reset", "")
            if reset.isdigit():
                return max(0.0, float(reset) - time.time())
            return 2.0**attempt
        if status >= 500:
            return 0.5 * 2.0**attempt
        return None

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One call with the retry budget; 4xx (other than rate limits) and
        exhausted retries raise ``GitHubError`` — except statuses listed in
        ``ok_statuses`` (keyword), which are returned."""
        ok_statuses: tuple[int, ...] = kwargs.pop("ok_statuses", ())
        for attempt in range(self.retries + 1):
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                if attempt >= self.retries:
                    cause = describe_transport_error(exc)
                    raise GitHubError(
                        f"{method} {path}: {cause} ({self._http.base_url.host})",
                        cause=cause,
                    ) from None
                self._sleep(min(self.max_wait_s, 0.5 * 2.0**attempt))
                continue
            if response.status_code < 300 or response.status_code in ok_statuses:
                return response
            wait = self._wait_for(response, attempt)
            if wait is None or attempt >= self.retries or wait > self.max_wait_s:
                logger.warning(
                    "[PRKeepalive] github_error method=%s path=%s status=%s",
                    method,
                    path,
                    response.status_code,
                )
                raise GitHubError(
                    f"{method} {path} answered {response.status_code}",
                    status=response.status_code,
                )
            logger.info(
                "[PRKeepalive] github_retry method=%s path=%s status=%s wait_s=%.1f",
                method,
                path,
                response.status_code,
                wait,
            )
            self._sleep(wait)
        raise GitHubError(f"{method} {path}: retries exhausted")  # pragma: no cover

    def _paged(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        page = 1
        while True:
            response = self.request(
                "GET", path, params={**(params or {}), "per_page": 100, "page": page}
            )
            items = response.json()
            if isinstance(items, dict):
                items = items.get("workflow_runs", [])
            yield from items
            if len(items) < 100 or 'rel="next"' not in response.headers.get("link", ""):
                return
            page += 1

    def _repo(self, tail: str) -> str:
        return f"/repos/{self.repository}{tail}"

    # --- pulls, issues, comments ------------------------------------------

    @staticmethod
    def _pull(raw: dict[str, Any]) -> PullInfo:
        head = raw.get("head") or {}
        base = raw.get("base") or {}
        head_repo = head.get("repo") or {}
        base_repo = base.get("repo") or {}
        return PullInfo(
            number=int(raw["number"]),
            title=str(raw.get("title") or ""),
            head_sha=str(head.get("sha") or ""),
            head_ref=str(head.get("ref") or ""),
            base_ref=str(base.get("ref") or ""),
            labels=tuple(str(x.get("name", "")) for x in raw.get("labels") or []),
            body=str(raw.get("body") or ""),
            is_open=raw.get("state", "open") == "open",
            is_fork=bool(head_repo.get("fork"))
            or (head_repo.get("full_name", "") != base_repo.get("full_name", "")),
        )

    def get_pull(self, number: int) -> PullInfo:
        return self._pull(self.request("GET", self._repo(f"/pulls/{number}")).json())

    def list_open_pulls(self) -> list[PullInfo]:
        return [
            self._pull(p) for p in self._paged(self._repo("/pulls"), {"state": "open"})
        ]

    def pulls_for_commit(self, sha: str) -> list[int]:
        """PRs whose head is ``sha`` (how a fork PR's Gate run finds its PR)."""
        items = self.request("GET", self._repo(f"/commits/{sha}/pulls")).json()
        return sorted(
            int(p["number"]) for p in items if p.get("state", "open") == "open"
        )

    def get_issue_body(self, number: int) -> str:
        return str(
            self.request("GET", self._repo(f"/issues/{number}")).json().get("body")
            or ""
        )

    def list_comments(self, number: int) -> list[Comment]:
        out = []
        for raw in self._paged(self._repo(f"/issues/{number}/comments")):
            user = raw.get("user") or {}
            rollup = raw.get("reactions") or {}
            out.append(
                Comment(
                    id=int(raw["id"]),
                    author=str(user.get("login") or ""),
                    author_type=str(user.get("type") or "User"),
                    body=str(raw.get("body") or ""),
                    reactions=tuple(
                        k for k in REACTION_KEYS if int(rollup.get(k) or 0) > 0
                    ),
                    created_at=str(raw.get("created_at") or ""),
                )
            )
        return out

    def create_comment(self, number: int, body: str) -> tuple[int, str]:
        """Post a comment; returns (comment id, author login)."""
        raw = self.request(
            "POST", self._repo(f"/issues/{number}/comments"), json={"body": body}
        ).json()
        return int(raw["id"]), str((raw.get("user") or {}).get("login") or "")

    def add_reaction(self, comment_id: int, content: str) -> int:
        """Create a reaction; returns GitHub's status: 201 new, 200 already
        there (409 is accepted too and means the same)."""
        response = self.request(
            "POST",
            self._repo(f"/issues/comments/{comment_id}/reactions"),
            json={"content": content},
            ok_statuses=(409,),
        )
        return response.status_code

    def add_labels(self, number: int, labels: list[str]) -> None:
        self.request(
            "POST", self._repo(f"/issues/{number}/labels"), json={"labels": labels}
        )

    # --- workflow runs and dispatch ------------------------------------------

    @staticmethod
    def _run(raw: dict[str, Any]) -> RunInfo:
        return RunInfo(
            id=int(raw["id"]),
            name=str(raw.get("name") or ""),
            status=str(raw.get("status") or ""),
            conclusion=str(raw.get("conclusion") or ""),
            head_sha=str(raw.get("head_sha") or ""),
            head_branch=str(raw.get("head_branch") or ""),
            pull_numbers=tuple(
                int(p["number"]) for p in raw.get("pull_requests") or []
            ),
            created_at=str(raw.get("created_at") or ""),
            display_title=str(raw.get("display_title") or ""),
        )

    def list_runs(self, *, head_sha: str = "", status: str = "") -> list[RunInfo]:
        params = {k: v for k, v in (("head_sha", head_sha), ("status", status)) if v}
        return [self._run(r) for r in self._paged(self._repo("/actions/runs"), params)]

    def workflow_dispatch(
        self, workflow: str, ref: str, inputs: dict[str, str]
    ) -> None:
        self.request(
            "POST",
            self._repo(f"/actions/workflows/{workflow}/dispatches"),
            json={"ref": ref, "inputs": inputs},
        )

    def repository_dispatch(self, event_type: str, payload: dict[str, Any]) -> None:
        self.request(
            "POST",
            self._repo("/dispatches"),
            json={"event_type": event_type, "client_payload": payload},
        )

    # --- branch sync ------------------------------------------------------------

    def update_branch(self, number: int, expected_head: str) -> bool:
        """Ask GitHub to bring the PR branch up to date; False if refused."""
        try:
            self.request(
                "PUT",
                self._repo(f"/pulls/{number}/update-branch"),
                json={"expected_head_sha": expected_head},
            )
        except GitHubError as exc:
            if exc.status in (409, 422):
                return False
            raise
        return True

    def create_pull(self, *, head: str, base: str, title: str, body: str) -> int | None:
        try:
            raw = self.request(
                "POST",
                self._repo("/pulls"),
                json={"head": head, "base": base, "title": title, "body": body},
            ).json()
        except GitHubError as exc:
            if exc.status == 422:
                return None
            raise
        return int(raw["number"])

    def merge_pull(self, number: int) -> bool:
        try:
            self.request(
                "PUT",
                self._repo(f"/pulls/{number}/merge"),
                json={"merge_method": "merge"},
            )
        except GitHubError as exc:
            if exc.status in (405, 409, 422):
                return False
            raise
        return True
