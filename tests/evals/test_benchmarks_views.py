"""Pages of benchmarks, baselines and the pack upload; the report renderer."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.test import Client

from evals.core.baselines import validate_baseline_snapshot
from evals.core.store import store_json_bytes
from evals.examples import example_manifest, example_run_summary
from evals.models import BaselineSnapshot, Benchmark, InvalidUpload
from evals.services.baselines import baseline_snapshot_create
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.views.benchmarks import report_html

pytestmark = pytest.mark.django_db


def manifest(benchmark_id: str = "ama-memory", **extra: Any) -> dict:
    cases = [
        {"id": "case-0", "prompt": "Resume <b>the</b> deployment"},
        {"id": "case-1", "prompt": "p1"},
    ]
    return example_manifest(benchmark_id, cases=cases, **extra)


def run_summary(run_id: str, *, passed: int, hour: int) -> dict:
    return example_run_summary(run_id, passed=passed, hour=hour)


@pytest.fixture
def flags_on(settings: Any) -> Any:
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    return settings


@pytest.fixture
def regression(flags_on: Any) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(document=run_summary("run-1", passed=2, hour=9))
    baseline_snapshot_create(snapshot_id="required-main")
    benchmark_run_record(document=run_summary("run-2", passed=1, hour=11))


# --- report_html ------------------------------------------------------------------


def test_report_html_renders_headings_and_nested_bullets() -> None:
    markdown = (
        "# Eval Baseline Delta Report\n\n- Passed: no\n\n## Benchmark Deltas\n"
        "- a: passRate 1 -> 0\n  - m 1 -> 2\n- b\n"
    )

    assert report_html(markdown) == (
        "<h2>Eval Baseline Delta Report</h2><ul><li>Passed: no</li></ul>"
        "<h3>Benchmark Deltas</h3><ul><li>a: passRate 1 -&gt; 0<ul><li>m 1 -&gt; 2"
        "</li></ul></li><li>b</li></ul>"
    )


def test_report_html_escapes_everything() -> None:
    html = report_html("# <script>x</script>\n- <img src=x onerror=y>\nplain & <b>\n")

    assert "<script>" not in html
    assert "<img" not in html
    assert html == (
        "<h2>&lt;script&gt;x&lt;/script&gt;</h2><ul><li>&lt;img src=x onerror=y&gt;"
        "</li></ul><p>plain &amp; &lt;b&gt;</p>"
    )


# --- pages --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/benchmarks/",
        "/benchmarks/upload",
        "/benchmarks/x/",
        "/baselines/",
        "/baselines/x/",
    ],
)
def test_pages_need_a_login(client: Client, path: str) -> None:
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_benchmark_list_shows_packs_and_suites_with_filters(
    owner_client: Client, regression: None
) -> None:
    Benchmark.objects.create(benchmark_id="smoke", kind="suite", title="Smoke suite")

    everything = owner_client.get("/benchmarks/")
    suites = owner_client.get("/benchmarks/?kind=suite")
    tagged = owner_client.get("/benchmarks/?tag=trajectory")

    assert [b.benchmark_id for b, _ in everything.context["rows"]] == [
        "ama-memory",
        "smoke",
    ]
    latest = dict((b.benchmark_id, run) for b, run in everything.context["rows"])
    assert latest["ama-memory"].run_id == "run-2"
    assert latest["smoke"] is None
    assert [b.benchmark_id for b, _ in suites.context["rows"]] == ["smoke"]
    assert [b.benchmark_id for b, _ in tagged.context["rows"]] == ["ama-memory"]
    assert tagged.context["tags"] == ["trajectory"]
    assert b'href="/benchmarks/ama-memory/"' in everything.content


def test_benchmark_list_paginates(owner_client: Client) -> None:
    for index in range(30):
        Benchmark.objects.create(benchmark_id=f"b{index:02d}", kind="pack", title="t")

    second = owner_client.get("/benchmarks/?page=2")

    assert [b.benchmark_id for b, _ in second.context["rows"]] == [
        f"b{index:02d}" for index in range(25, 30)
    ]


def test_benchmark_detail_shows_cases_runs_and_links(
    owner_client: Client, regression: None
) -> None:
    response = owner_client.get("/benchmarks/ama-memory/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "Resume &lt;b&gt;the&lt;/b&gt; deployment" in html
    assert 'href="/evals/runs/run-2/"' in html
    assert 'href="/evals/runs/run-1/"' in html
    assert "/evals/trends?benchmark=ama-memory" in html
    assert response.context["latest_completed"].run_id == "run-2"
    assert [run.run_id for run in response.context["page"].rows] == [
        "run-2",
        "run-1",
    ]


def test_benchmark_detail_leaves_out_columns_no_row_fills(
    owner_client: Client, regression: None
) -> None:
    """No run names a git ref and no case lists expected signals: no column
    of "—" for them; a run with a git ref brings its column back."""
    html = owner_client.get("/benchmarks/ama-memory/").content.decode()
    assert "<th>Git ref</th>" not in html
    assert "<th>Expected signals</th>" not in html

    benchmark_run_record(
        document=example_run_summary("run-3", passed=1, hour=12, gitRef="main@1a2b3c4")
    )
    html = owner_client.get("/benchmarks/ama-memory/").content.decode()
    assert "<th>Git ref</th>" in html
    assert "<td><code>main@1a2b3c4</code></td>" in html


def test_metrics_are_written_as_the_gate_writes_them(
    owner_client: Client, regression: None
) -> None:
    """Run and baseline pages show 0.0667 and 1, not 0.06666666666666667 and
    1.0 (the stored floats)."""
    benchmark_run_record(
        document=example_run_summary(
            "run-3",
            passed=1,
            hour=12,
            metrics={"trustViolationRate": 1 / 15, "recall": 1.0},
        )
    )
    html = owner_client.get("/evals/runs/run-3/").content.decode()
    assert "<td><code>trustViolationRate</code></td><td>0.0667</td>" in html
    assert "<td><code>recall</code></td><td>1</td>" in html
    assert "0.06666666666666667" not in html

    baseline_snapshot_create(snapshot_id="later")
    html = owner_client.get("/baselines/later/").content.decode()
    assert "<code>trustViolationRate</code>=0.0667" in html
    assert "0.06666666666666667" not in html
    assert "<th>Git ref</th>" not in html


def test_benchmark_detail_404(owner_client: Client) -> None:
    assert owner_client.get("/benchmarks/nope/").status_code == 404


def test_manifest_download(owner_client: Client, regression: None) -> None:
    response = owner_client.get("/benchmarks/ama-memory/manifest.json")

    assert response.content == store_json_bytes(manifest())
    assert response["Content-Disposition"] == (
        'attachment; filename="ama-memory-manifest.json"'
    )


def test_run_page_of_a_posted_run_shows_cases_git_ref_metrics_and_verdict(
    owner_client: Client, regression: None
) -> None:
    benchmark_run_record(
        document=example_run_summary(
            "run-3",
            passed=1,
            hour=12,
            gitRef="pr-7@9b0e77d",
            metrics={"trustViolationRate": 0.05},
            caseResults=[
                {"caseId": "case-1", "passed": True, "score": 0.9},
                {
                    "caseId": "case-0",
                    "passed": False,
                    "score": 0.2,
                    "durationMs": 1200,
                    "notes": "forgot the rollback",
                },
            ],
        )
    )

    response = owner_client.get("/evals/runs/run-3/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "evals/run_cases.html" in [t.name for t in response.templates]
    assert "<p>completed · posted over REST</p>" in html
    assert "<strong>1 of 2</strong> cases passed (50%)" in html
    assert "git ref <code>pr-7@9b0e77d</code>" in html
    assert "<td><code>trustViolationRate</code></td><td>0.05</td>" in html
    assert (
        '<p class="verdict"><span class="fail">FAIL</span> · 1 regression</p>'
    ) in html
    assert '<li class="bad">ama-memory pass rate regressed (1 -&gt; 0.5)</li>' in html
    assert (
        'href="/evals/compare?base=run-1&amp;candidate=run-3">compare the two runs'
    ) in html
    # Failed first, the prompt, pass/fail, score, duration and notes.
    assert (
        '<tr><td><code>case-0</code></td><td class="muted" data-label="Prompt">'
        'Resume &lt;b&gt;the&lt;/b&gt; deployment</td><td data-label="Result">'
        '<span class="fail">fail</span></td><td data-label="Score">0.2</td>'
        '<td data-label="Duration">1200.0 ms</td><td data-label="Notes">forgot the '
        "rollback</td></tr>"
    ) in html
    assert html.index("<code>case-0</code>") < html.index("<code>case-1</code>")
    # None of the scenario page's fields, nor its "not yet" verdict.
    for scenario_word in ("not yet", "profile", "sampler", "Scenarios", "—"):
        assert scenario_word not in html


def test_run_page_of_the_baseline_run_says_so(
    owner_client: Client, regression: None
) -> None:
    html = owner_client.get("/evals/runs/run-1/").content.decode()

    assert (
        'This run is the baseline of <a href="/baselines/required-main/">'
        "<code>required-main</code></a>."
    ) in html
    assert "The run summary lists no case results" in html


def test_run_page_without_a_baseline_says_none_covers_it(
    owner_client: Client,
) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(document=run_summary("run-1", passed=2, hour=9))

    html = owner_client.get("/evals/runs/run-1/").content.decode()

    assert "No baseline snapshot covers ama-memory yet." in html
    assert "the run summary names no git ref" in html


def test_baseline_list_form_is_off_without_the_flag(
    owner_client: Client,
) -> None:
    page = owner_client.get("/baselines/")
    posted = owner_client.post("/baselines/", {"snapshot_id": "main"})

    assert b"benchmark baseline snapshots are disabled" in page.content
    assert posted.status_code == 409
    assert BaselineSnapshot.objects.count() == 0


def test_baseline_form_needs_staff(owner_client: Client, flags_on: Any) -> None:
    response = owner_client.post("/baselines/", {"snapshot_id": "main"})

    assert response.status_code == 403
    assert b"storing a baseline needs a staff login" in response.content
    assert not BaselineSnapshot.objects.exists()


def test_baseline_form_creates_a_snapshot(
    staff_client: Client, staff: Any, flags_on: Any
) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(document=run_summary("run-1", passed=1, hour=9))

    response = staff_client.post("/baselines/", {"snapshot_id": "main", "notes": "n"})

    assert response.status_code == 302
    assert response["Location"] == "/baselines/main/"
    row = BaselineSnapshot.objects.get()
    assert (row.snapshot_id, row.notes, row.created_by) == ("main", "n", staff)


def test_baseline_form_shows_an_unsafe_id(staff_client: Client, flags_on: Any) -> None:
    response = staff_client.post("/baselines/", {"snapshot_id": ".."})

    assert response.status_code == 400
    assert b"snapshotId must be a safe path segment" in response.content


def test_baseline_detail_renders_the_delta_report(
    owner_client: Client, regression: None
) -> None:
    response = owner_client.get("/baselines/required-main/")

    html = response.content.decode()
    assert response.context["verdict"].passed is False
    assert (
        "<h3>Regressions</h3><ul><li>ama-memory pass rate regressed (1 -&gt; 0.5)"
        in html
    )
    assert 'href="/baselines/required-main/snapshot.json"' in html
    assert 'href="/baselines/required-main/report.md"' in html
    created = BaselineSnapshot.objects.get().created_at
    assert (
        f'created <time datetime="{created.isoformat()}">'
        f"{created:%Y-%m-%d %H:%M:%S}</time>"
    ) in html


def test_baseline_detail_without_the_reporter_flag(
    owner_client: Client, regression: None, settings: Any
) -> None:
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = False

    response = owner_client.get("/baselines/required-main/")

    assert response.context["report"] is None
    assert b"benchmark delta reporter is disabled" in response.content


def test_baseline_downloads(owner_client: Client, regression: None) -> None:
    snapshot = owner_client.get("/baselines/required-main/snapshot.json")
    report = owner_client.get("/baselines/required-main/report.md")

    row = BaselineSnapshot.objects.get()
    # Canonical field order whatever the database did to the JSON keys.
    assert snapshot.content == store_json_bytes(
        validate_baseline_snapshot(row.document).to_wire()
    )
    assert snapshot.content.startswith(b'{\n  "schemaVersion": 1,\n  "snapshotId"')
    assert report["Content-Type"] == "text/markdown; charset=utf-8"
    assert report.content.decode().startswith(
        "# Eval Baseline Delta Report\n\n- Passed: no\n"
    )


def test_report_download_without_the_flag_is_409(
    owner_client: Client, regression: None, settings: Any
) -> None:
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = False

    response = owner_client.get("/baselines/required-main/report.md")

    assert response.status_code == 409
    assert response.content == b"benchmark delta reporter is disabled\n"


def test_upload_page_stores_a_valid_pack(owner_client: Client) -> None:
    file = io.BytesIO(json.dumps(manifest()).encode())
    file.name = "manifest.json"

    response = owner_client.post("/benchmarks/upload", {"file": file})

    assert response.status_code == 302
    assert response["Location"] == "/benchmarks/ama-memory/"
    assert Benchmark.objects.get().case_count == 2


def test_upload_page_shows_every_error_and_keeps_the_upload(
    owner_client: Client, owner: Any
) -> None:
    file = io.BytesIO(json.dumps({"schemaVersion": 1, "cases": []}).encode())
    file.name = "broken.json"

    response = owner_client.post("/benchmarks/upload", {"file": file})

    html = response.content.decode()
    kept = InvalidUpload.objects.get()
    assert response.status_code == 400
    assert (
        "<code>$.benchmarkId</code></td><td>benchmarkId must be a non-empty string"
        in html
    )
    assert "<code>$.title</code></td><td>title must be a non-empty string" in html
    assert f"kept for review (upload #{kept.pk})" in html
    assert kept.uploaded_by == owner
    assert Benchmark.objects.count() == 0


def test_upload_page_refuses_an_unsafe_archive(owner_client: Client) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../manifest.json", b"{}")
    buffer.seek(0)
    buffer.name = "evil.zip"

    response = owner_client.post("/benchmarks/upload", {"file": buffer})

    assert response.status_code == 400
    assert b"escapes the archive with" in response.content
    assert InvalidUpload.objects.count() == 0


def test_upload_page_conflict(owner_client: Client) -> None:
    benchmark_pack_create(document=manifest())
    file = io.BytesIO(json.dumps(manifest(title="other")).encode())
    file.name = "manifest.json"

    response = owner_client.post("/benchmarks/upload", {"file": file})

    assert response.status_code == 409
    assert b"benchmark pack already exists: ama-memory" in response.content
