"""The tests mirror the code (the scheme: tests/README.md).

Every module of an app's ``services/`` and of every ``core/`` has a test
module of the same name at the same place under ``tests/``:
``stream/services/thought_feed.py`` -> ``tests/stream/services/test_thought_feed.py``,
``evals/services/runs/lifecycle.py`` -> ``tests/evals/services/runs/test_lifecycle.py``,
``evals/core/gate.py`` -> ``tests/evals/core/test_gate.py``, ``core/text.py`` ->
``tests/core/test_text.py``. A module without one is named below, in
``TESTED_ELSEWHERE`` (with the test module that exercises it, which must name
the module) or in ``NOT_MIRRORED_YET`` (with the reason); an entry that no
longer applies fails too, so the lists only shrink.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
APPS = (
    "stream",
    "evals",
    "gridworld",
    "prkeepalive",
    "accounts",
    "traces",
    "reviews",
    "search",
)

# module -> (the test module that exercises it, why it has none of its own)
TESTED_ELSEWHERE: dict[str, tuple[str, str]] = {
    # stream
    "stream.services.counters": (
        "tests/stream/services/test_thought_store.py",
        "the agency counters are written by the thought store's batch",
    ),
    "stream.services.retention": (
        "tests/stream/test_stream_api.py",
        "retention is observed as the API's bounded queue",
    ),
    "stream.services.thoughts": (
        "tests/stream/test_stream_api.py",
        "percepts and thoughts are published through the API and its services",
    ),
    "stream.services.soak": (
        "tests/stream/test_planning_commands.py",
        "the soak is run and judged through its command",
    ),
    "stream.services.stream_health": (
        "tests/evalsite/test_overview.py",
        "its only reader is the overview tile",
    ),
    "stream.core.baseline": (
        "tests/stream/core/test_adapters.py",
        "the baseline policy is one of the model adapters",
    ),
    "stream.core.degeneration": (
        "tests/stream/core/test_sanitizer.py",
        "the sanitizer cuts degenerate completions with it",
    ),
    "stream.core.keepalive": (
        "tests/stream/core/test_prompt_guard.py",
        "its decisions are checked with the prompt guard they feed",
    ),
    "stream.core.thought_types": (
        "tests/stream/core/test_prompt_guard.py",
        "type names and constants only",
    ),
    "stream.core.types": (
        "tests/stream/core/conftest.py",
        "records only; every stream core test builds them",
    ),
    # evals
    "evals.services.baselines": (
        "tests/evals/test_benchmarks_views.py",
        "snapshots are made and read through the pages and the API",
    ),
    "evals.services.benchmark_records": (
        "tests/evals/test_benchmarks_commands.py",
        "run summaries are recorded through the commands and the API",
    ),
    "evals.services.benchmark_reports": (
        "tests/evals/test_benchmarks_demo.py",
        "the reports are checked on the demo data",
    ),
    "evals.services.benchmarks": (
        "tests/evals/test_benchmarks_admin.py",
        "packs are made through the API, the upload page and the admin",
    ),
    "evals.services.pack_uploads": (
        "tests/evals/services/test_pack_files.py",
        "an upload's bounded memory and its files are pack-file storage",
    ),
    "evals.services.runs.executors": (
        "tests/evals/services/runs/test_lifecycle.py",
        "the registry is what the lifecycle runs a second kind through",
    ),
    "evals.services.runs.recording": (
        "tests/evals/services/runs/test_lifecycle.py",
        "recording is a step of executing a chunk",
    ),
    "evals.services.shadow_records": (
        "tests/evals/test_benchmarks_api_shadow.py",
        "records come in through the API",
    ),
    "evals.services.standings": (
        "tests/evals/test_benchmarks_demo.py",
        "the standings are checked on the demo data",
    ),
    "evals.services.stat_verdicts": (
        "tests/evals/test_benchmarks_demo.py",
        "the verdicts are checked on the demo data and the trends page",
    ),
    "evals.core.files": (
        "tests/evals/core/test_bundles.py",
        "the run bundle's file layout",
    ),
    "evals.core.formats_types": (
        "tests/evals/core/test_runs.py",
        "types and enums of the formats only",
    ),
    "evals.core.gate_report": (
        "tests/evals/core/test_gate.py",
        "the gate's report lines are checked with its verdicts",
    ),
    "evals.core.manifest_fields": (
        "tests/evals/test_manifest_format.py",
        "the fields are checked against the schema, the page and the docs",
    ),
    "evals.core.outcomes": (
        "tests/evals/core/test_scenario_artifact.py",
        "a scenario's outcome is the artifact's content",
    ),
    "evals.core.provenance": (
        "tests/evals/services/test_code_version.py",
        "the versions a run records, beside its code version",
    ),
    "evals.core.store_reader": (
        "tests/evals/core/test_store.py",
        "the reader is evals.core.store's loading",
    ),
    "evals.core.store_status": (
        "tests/evals/core/test_store.py",
        "the status report of a loaded store",
    ),
    "evals.core.store_writer": (
        "tests/evals/core/test_store.py",
        "written stores are read back by the store tests",
    ),
    "evals.core.suite_types": (
        "tests/evals/core/test_suites.py",
        "records of a suite only",
    ),
    # gridworld: the step's modules are checked together, against the oracle
    "gridworld.core.collector": (
        "tests/gridworld/core/test_fastpath.py",
        "checked step by step against tests/gridworld/oracle.py",
    ),
    "gridworld.core.config": (
        "tests/gridworld/core/test_receipt_format.py",
        "the config is the receipt's header",
    ),
    "gridworld.core.episode": (
        "tests/gridworld/core/test_invariants_never_break.py",
        "episodes are checked by the properties they must keep",
    ),
    "gridworld.core.grid": (
        "tests/gridworld/core/test_env.py",
        "the grid is the environment's map",
    ),
    "gridworld.core.kernel": (
        "tests/gridworld/core/test_fastpath.py",
        "checked step by step against tests/gridworld/oracle.py",
    ),
    "gridworld.core.merkle": (
        "tests/gridworld/core/test_replay.py",
        "the receipt's hash chain is what replay checks",
    ),
    "gridworld.core.metrics": (
        "tests/gridworld/core/test_task_improves_under_budget.py",
        "the metrics are the competence and recovery properties",
    ),
    "gridworld.core.proposers": (
        "tests/gridworld/core/test_governor.py",
        "the governor's gates judge the proposers' actions",
    ),
    "gridworld.core.types": (
        "tests/gridworld/core/test_env.py",
        "records and enums only",
    ),
    # prkeepalive: the decision's modules are checked together, by decision
    "prkeepalive.services.reconcile": (
        "tests/prkeepalive/test_lock_client_reconcile.py",
        "the reconciler against the fake GitHub, with the lock and the client",
    ),
    "prkeepalive.services.rounds": (
        "tests/prkeepalive/test_round_start_task.py",
        "a round's start through its task",
    ),
    "prkeepalive.services.sending": (
        "tests/prkeepalive/test_webhook_queue_down.py",
        "sending is what a queue that is down tests",
    ),
    "prkeepalive.core.facts": (
        "tests/prkeepalive/core/test_rules.py",
        "the facts a decision reads",
    ),
    "prkeepalive.core.inputs": (
        "tests/prkeepalive/core/test_rules_and_inputs.py",
        "the decision inputs' wire form",
    ),
    "prkeepalive.core.instruction": (
        "tests/prkeepalive/core/test_lines.py",
        "instructions are checked with the lines they print",
    ),
    "prkeepalive.core.labels": (
        "tests/prkeepalive/core/test_rules.py",
        "labels are read by the rules",
    ),
    "prkeepalive.core.lanes": (
        "tests/prkeepalive/core/test_rules_and_inputs.py",
        "the one routing of an event",
    ),
    "prkeepalive.core.markers": (
        "tests/prkeepalive/core/test_lines.py",
        "markers are checked with the lines they print",
    ),
    "prkeepalive.core.reading": (
        "tests/prkeepalive/core/test_rules_and_inputs.py",
        "what the gatherers read",
    ),
    "prkeepalive.core.summary": (
        "tests/prkeepalive/core/test_lines.py",
        "the summary lines",
    ),
    "prkeepalive.core.sync": (
        "tests/prkeepalive/core/test_lines.py",
        "branch sync",
    ),
    "prkeepalive.core.types": (
        "tests/prkeepalive/core/test_rules.py",
        "records and enums only",
    ),
    "prkeepalive.core.wire": (
        "tests/prkeepalive/test_lock_client_reconcile.py",
        "the wire form of a decision, as the reconciler stores it",
    ),
    "prkeepalive.core.worker": (
        "tests/prkeepalive/core/test_lines.py",
        "the worker guard",
    ),
    # the shared core
    "core.health": (
        "tests/evalsite/test_health_page.py",
        "the health page shows what it decides",
    ),
    "core.schemas": (
        "tests/evals/core/test_format_rules.py",
        "every format's schema is loaded through it",
    ),
    "core.scopes": (
        "tests/evalsite/test_authorization.py",
        "every endpoint's scope is checked there",
    ),
    "core.errors": (
        "tests/gridworld/core/test_receipt_json.py",
        "its kinds are what the cores raise; the API's answers to them: tests/evalsite/test_api_errors.py",
    ),
}

# module -> why it has no test module of its own yet (the gaps of tests/README.md)
NOT_MIRRORED_YET: dict[str, str] = {
    "stream.core.thought_input": "exercised only through the publish API",
    "evals.services.compare": "its tests are being reworked beside the compare page",
    "evals.services.compare_case": "new; its tests are being written beside it",
    "evals.core.case_sides": "exercised only through the compare page",
    "evals.core.compare": "its tests are being reworked beside the compare page",
    "evals.core.compare_stats": "its tests are being reworked beside the compare page",
    "evals.core.exports": "exercised only through the dashboard's downloads",
    "evals.core.gate_stat": "tested by tests/evals/test_stats.py, being reworked",
    "evals.core.gate_stat_report": "exercised only through the --stat gate",
    "evals.core.repeats": "new; its tests are being written beside it",
    "evals.core.run_case_results": "its tests are being reworked",
    "evals.core.run_configs": "exercised only through the compare page",
    "evals.core.run_uncertainty": "new; its tests are being written beside it",
    "evals.core.stats": "tested by tests/evals/test_stats*.py, being reworked",
    "evals.core.stats_input": "tested by tests/evals/test_stats*.py, being reworked",
    "evals.core.stats_paired": "tested by tests/evals/test_stats_paired.py, being reworked",
    "gridworld.core.batch_figures": "new; its tests are being written beside it",
    "gridworld.core.batch_pairing": "new; its tests are being written beside it",
    "gridworld.core.stats": "tested by tests/evals/test_stats_gridworld.py, being reworked",
    "accounts.core.keys": "tested by tests/accounts/, being reworked",
    # prkeepalive: exercised through the commands and the API only
    "prkeepalive.services.actions": "exercised only through the commands",
}


def mirrored_modules() -> dict[str, Path]:
    """Each service and core module, by dotted name, with the path of the
    test module that mirrors it."""
    folders = [ROOT / "core"]
    for app in APPS:
        folders += [ROOT / app / "services", ROOT / app / "core"]
    found: dict[str, Path] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if path.name == "__init__.py":
                continue
            relative = path.relative_to(ROOT)
            dotted = ".".join(relative.with_suffix("").parts)
            found[dotted] = TESTS / relative.parent / f"test_{path.name}"
    return found


def names_module(text: str, dotted: str) -> bool:
    """Whether a test module's text imports or names ``dotted``."""
    parent, _, leaf = dotted.rpartition(".")
    imported = rf"from {re.escape(parent)} import \(?[^)]*?\b{re.escape(leaf)}\b"
    return dotted in text or re.search(imported, text) is not None


def test_every_service_and_core_module_has_a_test_module_of_its_name() -> None:
    allowed = TESTED_ELSEWHERE.keys() | NOT_MIRRORED_YET.keys()
    missing = [
        f"{dotted}: {test.relative_to(ROOT)}"
        for dotted, test in mirrored_modules().items()
        if not test.exists() and dotted not in allowed
    ]
    assert missing == []


def test_the_allowlists_name_only_modules_still_without_their_test_module() -> None:
    modules = mirrored_modules()
    stale = [
        dotted
        for dotted in [*TESTED_ELSEWHERE, *NOT_MIRRORED_YET]
        if dotted not in modules or modules[dotted].exists()
    ]
    assert stale == []
    assert TESTED_ELSEWHERE.keys().isdisjoint(NOT_MIRRORED_YET)


def test_a_module_tested_elsewhere_is_named_by_that_test_module() -> None:
    unnamed = [
        f"{dotted}: {test}"
        for dotted, (test, _) in TESTED_ELSEWHERE.items()
        if not (ROOT / test).is_file()
        or not names_module((ROOT / test).read_text(), dotted)
    ]
    assert unnamed == []


def test_every_services_test_module_is_named_after_a_service_module() -> None:
    """Under ``tests/<app>/services/``, ``test_<name>.py`` tests the module
    ``<name>`` (or ``<name>_<aspect>`` one aspect of it)."""
    strays = []
    for app in APPS:
        for test in sorted((TESTS / app / "services").rglob("test_*.py")):
            folder = ROOT / test.parent.relative_to(TESTS)
            name = test.stem.removeprefix("test_")
            if not any(
                name == module.stem or name.startswith(f"{module.stem}_")
                for module in folder.glob("*.py")
            ):
                strays.append(str(test.relative_to(ROOT)))
    assert strays == []
