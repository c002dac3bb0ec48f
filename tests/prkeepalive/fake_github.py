"""A stateful fake of the GitHub REST endpoints the keepalive uses, served
on 127.0.0.1 by a threaded ``http.server`` (tests and bench start it).

It keeps PRs, issues, comments with reactions (201 new / 200 already
there), labels, workflow runs, dispatches, branches and merges, and can
answer the next requests with injected failures (rate limits, 5xx).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

TOKENS = {
    "bot-token": ("stranske-automation-bot", "Bot"),
    "human-token": ("stranske", "User"),
}


def sha(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


@dataclass
class State:
    repo: str = "acme/widgets"
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    issues: dict[int, str] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    dispatches: list[dict[str, Any]] = field(default_factory=list)
    branches: set[str] = field(default_factory=set)
    update_moves_head: set[int] = field(default_factory=set)
    fail_next: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    next_id: int = 2012345000
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- setup helpers --------------------------------------------------
    def add_pull(
        self,
        number: int,
        *,
        labels: tuple[str, ...] = ("agents:keepalive",),
        body: str = "",
        fork: bool = False,
    ) -> dict[str, Any]:
        head = sha(f"{number}-head-0")
        pull = {
            "number": number,
            "title": f"PR {number}",
            "state": "open",
            "body": body,
            "head": {
                "sha": head,
                "ref": f"feature-{number}",
                "repo": {
                    "full_name": "fork/widgets" if fork else self.repo,
                    "fork": fork,
                },
            },
            "base": {"ref": "main", "repo": {"full_name": self.repo}},
            "labels": [{"name": n} for n in labels],
        }
        self.pulls[number] = pull
        return pull

    def add_comment(
        self,
        number: int,
        body: str,
        *,
        login: str = "stranske",
        user_type: str = "User",
        reactions: tuple[str, ...] = (),
    ) -> int:
        with self.lock:
            self.next_id += 1
            cid = self.next_id
            self.comments[cid] = {
                "id": cid,
                "issue": number,
                "body": body,
                "user": {"login": login, "type": user_type},
                "created_at": f"2026-01-01T00:{cid % 60:02d}:{cid % 3600 // 60:02d}Z",
                "reactions": {r: {"someone"} for r in reactions},
            }
            return cid

    def add_run(
        self,
        name: str,
        head_sha: str,
        *,
        status: str = "completed",
        conclusion: str | None = "success",
        pulls: tuple[int, ...] = (),
    ) -> dict[str, Any]:
        run = {
            "id": len(self.runs) + 1,
            "name": name,
            "status": status,
            "conclusion": conclusion,
            "head_sha": head_sha,
            "head_branch": "",
            "pull_requests": [{"number": n} for n in pulls],
            "created_at": f"2026-01-01T01:00:{len(self.runs):02d}Z",
        }
        self.runs.append(run)
        return run

    def move_head(self, number: int) -> str:
        pull = self.pulls[number]
        pull["head"]["sha"] = sha(pull["head"]["sha"] + "+")
        return str(pull["head"]["sha"])

    def comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        rollup = {k: len(v) for k, v in c["reactions"].items()}
        return {k: v for k, v in c.items() if k not in ("reactions", "issue")} | {
            "reactions": rollup
        }

    def instruction_comments(self, number: int) -> list[dict[str, Any]]:
        return [
            c
            for c in self.comments.values()
            if c["issue"] == number and "keepalive-round" in c["body"]
        ]


class Handler(BaseHTTPRequestHandler):
    server: FakeGitHub

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def _send(
        self, status: int, body: Any = None, headers: dict[str, str] | None = None
    ) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _who(self) -> tuple[str, str]:
        token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        return TOKENS.get(token, ("anonymous", "User"))

    def _handle(self, method: str) -> None:
        st = self.server.state
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        login, user_type = self._who()
        with st.lock:
            st.requests.append((method, url.path, login))
            if st.fail_next:
                status, headers = st.fail_next.pop(0)
                self._send(status, {"message": "injected"}, headers)
                return
        if method == "GET" and url.path == "/_fake/dispatches":
            with st.lock:
                self._send(200, list(st.dispatches))
            return
        prefix = f"/repos/{st.repo}"
        if not url.path.startswith(prefix):
            self._send(404, {"message": "Not Found"})
            return
        path = url.path[len(prefix) :]
        routes = [
            ("GET", r"/pulls/(\d+)", self.get_pull),
            ("GET", r"/pulls", self.list_pulls),
            ("POST", r"/pulls", self.create_pull),
            ("PUT", r"/pulls/(\d+)/update-branch", self.update_branch),
            ("PUT", r"/pulls/(\d+)/merge", self.merge),
            ("GET", r"/commits/(\w+)/pulls", self.commit_pulls),
            ("GET", r"/issues/(\d+)", self.get_issue),
            ("GET", r"/issues/(\d+)/comments", self.list_comments),
            ("POST", r"/issues/(\d+)/comments", self.create_comment),
            ("POST", r"/issues/comments/(\d+)/reactions", self.react),
            ("POST", r"/issues/(\d+)/labels", self.add_labels),
            ("GET", r"/actions/runs", self.list_runs),
            ("POST", r"/actions/workflows/([^/]+)/dispatches", self.workflow_dispatch),
            ("POST", r"/dispatches", self.repository_dispatch),
        ]
        for verb, pattern, fn in routes:
            m = re.fullmatch(pattern, path)
            if verb == method and m:
                with st.lock:
                    fn(
                        st,
                        *m.groups(),
                        query=query,
                        body=body,
                        login=login,
                        user_type=user_type,
                    )
                return
        self._send(404, {"message": "Not Found"})

    def do_GET(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    # --- endpoints ------------------------------------------------------
    def get_pull(self, st: State, n: str, **_: Any) -> None:
        pull = st.pulls.get(int(n))
        self._send(200, pull) if pull else self._send(404, {"message": "Not Found"})

    def list_pulls(self, st: State, query: dict[str, str], **_: Any) -> None:
        self._send(
            200,
            [p for p in st.pulls.values() if p["state"] == query.get("state", "open")],
        )

    def commit_pulls(self, st: State, commit: str, **_: Any) -> None:
        self._send(200, [p for p in st.pulls.values() if p["head"]["sha"] == commit])

    def get_issue(self, st: State, n: str, **_: Any) -> None:
        number = int(n)
        if number in st.issues:
            self._send(200, {"number": number, "body": st.issues[number]})
        elif number in st.pulls:
            self._send(
                200,
                {
                    "number": number,
                    "body": st.pulls[number]["body"],
                    "pull_request": {},
                },
            )
        else:
            self._send(404, {"message": "Not Found"})

    def list_comments(self, st: State, n: str, **_: Any) -> None:
        items = [
            st.comment_json(c) for c in st.comments.values() if c["issue"] == int(n)
        ]
        self._send(200, sorted(items, key=lambda c: c["id"]))

    def create_comment(
        self,
        st: State,
        n: str,
        body: dict[str, Any],
        login: str,
        user_type: str,
        **_: Any,
    ) -> None:
        st.next_id += 1
        cid = st.next_id
        st.comments[cid] = {
            "id": cid,
            "issue": int(n),
            "body": body.get("body", ""),
            "user": {"login": login, "type": user_type},
            "created_at": "2026-01-02T00:00:00Z",
            "reactions": {},
        }
        self._send(201, st.comment_json(st.comments[cid]))

    def react(
        self, st: State, cid: str, body: dict[str, Any], login: str, **_: Any
    ) -> None:
        comment = st.comments.get(int(cid))
        if comment is None:
            self._send(404, {"message": "Not Found"})
            return
        users = comment["reactions"].setdefault(body.get("content", ""), set())
        status = 200 if login in users else 201
        users.add(login)
        self._send(status, {"content": body.get("content"), "user": {"login": login}})

    def add_labels(self, st: State, n: str, body: dict[str, Any], **_: Any) -> None:
        pull = st.pulls[int(n)]
        names = {x["name"] for x in pull["labels"]}
        pull["labels"] += [
            {"name": x} for x in body.get("labels", []) if x not in names
        ]
        self._send(200, pull["labels"])

    def list_runs(self, st: State, query: dict[str, str], **_: Any) -> None:
        runs = [
            r
            for r in st.runs
            if (not query.get("head_sha") or r["head_sha"] == query["head_sha"])
            and (not query.get("status") or r["status"] == query["status"])
        ]
        self._send(200, {"total_count": len(runs), "workflow_runs": runs})

    def workflow_dispatch(
        self, st: State, workflow: str, body: dict[str, Any], **_: Any
    ) -> None:
        st.dispatches.append(
            {"kind": "workflow_dispatch", "workflow": workflow, **body}
        )
        self._send(204)

    def repository_dispatch(self, st: State, body: dict[str, Any], **_: Any) -> None:
        st.dispatches.append({"kind": "repository_dispatch", **body})
        self._send(204)

    def update_branch(self, st: State, n: str, **_: Any) -> None:
        if int(n) in st.update_moves_head:
            st.move_head(int(n))
            self._send(202, {"message": "Updating pull request branch."})
        else:
            self._send(422, {"message": "merge conflict"})

    def create_pull(self, st: State, body: dict[str, Any], **_: Any) -> None:
        if body.get("head") not in st.branches:
            self._send(422, {"message": "head branch does not exist"})
            return
        number = max(st.pulls) + 1000
        st.pulls[number] = {
            "number": number,
            "state": "open",
            "body": body.get("body", ""),
            "title": body.get("title", ""),
            "head": {
                "sha": sha(body["head"]),
                "ref": body["head"],
                "repo": {"full_name": st.repo},
            },
            "base": {"ref": body.get("base"), "repo": {"full_name": st.repo}},
            "labels": [],
        }
        self._send(201, st.pulls[number])

    def merge(self, st: State, n: str, **_: Any) -> None:
        pull = st.pulls[int(n)]
        pull["state"] = "closed"
        for target in st.pulls.values():
            if target["head"]["ref"] == pull["base"]["ref"] and target is not pull:
                target["head"]["sha"] = sha(target["head"]["sha"] + "merge")
        self._send(200, {"merged": True})


class FakeGitHub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.state = State()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
