"""Score configs: create one, make a new version, attach one to a benchmark.

A config is versioned by name: a new version becomes the current one (new
scores are given under it) and the older versions stay, with the scores
given under them. Only staff define configs; the pages and the admin check
that, these functions trust their caller.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.errors import NotFound, SchemaInvalid, SchemaProblem
from evals.selectors.benchmarks import benchmark_get
from reviews.core.values import ConfigSpec, config_check
from reviews.models import ScoreConfig, ScoreConfigAttachment

MAX_BENCHMARK_ID_CHARS = 200


def config_spec(config: ScoreConfig) -> ConfigSpec:
    """The value shape of a stored config version."""
    return ConfigSpec(
        kind=config.kind,
        min_value=config.min_value,
        max_value=config.max_value,
        labels=tuple(config.labels or ()),
    )


def configs_current() -> list[ScoreConfig]:
    """The current version of every config, by name."""
    return list(ScoreConfig.objects.filter(is_current=True).order_by("name"))


def config_current(name: str) -> ScoreConfig:
    """The current version of the config ``name``; ``NotFound`` if none."""
    config = ScoreConfig.objects.filter(name=name, is_current=True).first()
    if config is None:
        raise NotFound(f"no score config {name!r}", details={"config": name})
    return config


def config_versions(name: str) -> list[ScoreConfig]:
    """Every version of the config ``name``, newest first."""
    return list(ScoreConfig.objects.filter(name=name).order_by("-version"))


def _fields(spec: ConfigSpec, description: str, rubric: str) -> dict[str, Any]:
    return {
        "kind": spec.kind,
        "min_value": spec.min_value,
        "max_value": spec.max_value,
        "labels": list(spec.labels),
        "description": description.strip(),
        "rubric": rubric.strip(),
    }


def config_create(
    *,
    name: str,
    kind: str,
    min_value: Any = None,
    max_value: Any = None,
    labels: Any = (),
    description: str = "",
    rubric: str = "",
    user: Any = None,
) -> ScoreConfig:
    """A new config (version 1); ``SchemaInvalid`` for a bad field or a name
    already taken (naming ``name``)."""
    spec = config_check(
        name=name, kind=kind, min_value=min_value, max_value=max_value, labels=labels
    )
    with transaction.atomic():
        if ScoreConfig.objects.filter(name=name).exists():
            message = f"a score config named {name!r} exists; make a new version of it."
            raise SchemaInvalid(
                message, problems=[SchemaProblem("name", "taken", message)]
            )
        return ScoreConfig.objects.create(
            name=name,
            version=1,
            is_current=True,
            created_by=_person(user),
            **_fields(spec, description, rubric),
        )


def config_new_version(
    *,
    name: str,
    kind: str,
    min_value: Any = None,
    max_value: Any = None,
    labels: Any = (),
    description: str = "",
    rubric: str = "",
    user: Any = None,
) -> ScoreConfig:
    """The next version of the config ``name``, now the current one;
    ``NotFound`` when there is no such config."""
    spec = config_check(
        name=name, kind=kind, min_value=min_value, max_value=max_value, labels=labels
    )
    with transaction.atomic():
        versions = ScoreConfig.objects.select_for_update().filter(name=name)
        latest = versions.order_by("-version").first()
        if latest is None:
            raise NotFound(f"no score config {name!r}", details={"config": name})
        versions.filter(is_current=True).update(is_current=False)
        return ScoreConfig.objects.create(
            name=name,
            version=latest.version + 1,
            is_current=True,
            created_by=_person(user),
            **_fields(spec, description, rubric),
        )


def config_attach(*, name: str, benchmark_id: str) -> ScoreConfigAttachment:
    """Attach the config ``name`` to a benchmark (a suite, a pack or a
    gridworld configuration, by its benchmark id); attaching twice keeps one.
    ``SchemaInvalid`` naming ``benchmark_id`` when there is no such benchmark."""
    config_current(name)
    benchmark_id = (benchmark_id or "").strip()
    if not 0 < len(benchmark_id) <= MAX_BENCHMARK_ID_CHARS:
        message = "a benchmark id is needed."
        raise SchemaInvalid(
            message, problems=[SchemaProblem("benchmark_id", "invalid", message)]
        )
    try:
        benchmark_get(benchmark_id=benchmark_id)
    except NotFound:
        message = f"there is no benchmark {benchmark_id!r}."
        raise SchemaInvalid(
            message, problems=[SchemaProblem("benchmark_id", "unknown", message)]
        ) from None
    attachment, _ = ScoreConfigAttachment.objects.get_or_create(
        config_name=name, benchmark_id=benchmark_id
    )
    return attachment


def config_detach(*, name: str, benchmark_id: str) -> bool:
    """Remove the attachment; whether there was one."""
    deleted, _ = ScoreConfigAttachment.objects.filter(
        config_name=name, benchmark_id=benchmark_id
    ).delete()
    return deleted > 0


def configs_attached(benchmark_id: str) -> list[ScoreConfig]:
    """The current versions of the configs attached to ``benchmark_id``."""
    names = ScoreConfigAttachment.objects.filter(benchmark_id=benchmark_id).values(
        "config_name"
    )
    return list(
        ScoreConfig.objects.filter(name__in=names, is_current=True).order_by("name")
    )


def attachments_of(name: str) -> list[str]:
    """The benchmark ids the config ``name`` is attached to, sorted."""
    return list(
        ScoreConfigAttachment.objects.filter(config_name=name)
        .order_by("benchmark_id")
        .values_list("benchmark_id", flat=True)
    )


def _person(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def attachments_by_name() -> dict[str, list[str]]:
    """Every config name's benchmark ids, sorted (one query)."""
    found: dict[str, list[str]] = {}
    rows = ScoreConfigAttachment.objects.order_by("config_name", "benchmark_id")
    for name, benchmark_id in rows.values_list("config_name", "benchmark_id"):
        found.setdefault(name, []).append(benchmark_id)
    return found
