"""Server paths as users see them (core.paths)."""

from __future__ import annotations

from core.paths import scrub_paths, shown_path

ROOTS = ["/srv/app", "/srv/app/evals/suites", "/data/artifacts/"]


def test_a_path_is_shown_relative_to_the_deepest_root_holding_it() -> None:
    assert shown_path("/srv/app/evals/suites/smoke.jsonl", ROOTS) == "smoke.jsonl"
    assert shown_path("/data/artifacts/evals/smoke/r1", ROOTS) == "evals/smoke/r1"
    assert shown_path("/srv/app/var/x.json", ROOTS) == "var/x.json"


def test_a_path_outside_every_root_is_shown_by_its_name() -> None:
    assert shown_path("/home/me/suites/mine.jsonl", ROOTS) == "mine.jsonl"


def test_relative_and_empty_paths_are_kept() -> None:
    assert shown_path("smoke.jsonl", ROOTS) == "smoke.jsonl"
    assert shown_path("", ROOTS) == ""


def test_messages_lose_every_root() -> None:
    text = (
        "/srv/app/evals/suites/b.jsonl: 2 invalid line(s); "
        "see /data/artifacts/evals/b and /srv/app"
    )
    assert scrub_paths(text, ROOTS) == "b.jsonl: 2 invalid line(s); see evals/b and ."
