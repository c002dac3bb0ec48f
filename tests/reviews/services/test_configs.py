"""Score configs: creating, versioning, attaching to benchmarks."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import NotFound, SchemaInvalid
from reviews.models import ScoreConfig, ScoreConfigAttachment
from reviews.services.configs import (
    attachments_by_name,
    attachments_of,
    config_attach,
    config_create,
    config_current,
    config_detach,
    config_new_version,
    config_spec,
    config_versions,
    configs_attached,
    configs_current,
)
from tests.builders import benchmark_make

pytestmark = pytest.mark.django_db


def test_a_config_is_created_as_version_one_and_current(staff: Any) -> None:
    config = config_create(
        name="quality",
        kind="numeric",
        min_value=1,
        max_value=5,
        description=" How good ",
        rubric="5: perfect",
        user=staff,
    )
    assert (config.version, config.is_current, config.created_by) == (1, True, staff)
    assert config.description == "How good"
    assert config_spec(config).max_value == 5.0
    assert config_current("quality") == config


def test_a_bad_config_stores_nothing() -> None:
    with pytest.raises(SchemaInvalid) as exc:
        config_create(name="quality", kind="numeric", min_value=3, max_value=1)
    assert [p.path for p in exc.value.problems] == ["max_value"]
    assert not ScoreConfig.objects.exists()


def test_a_taken_name_is_refused_naming_name() -> None:
    config_create(name="quality", kind="boolean")
    with pytest.raises(SchemaInvalid) as exc:
        config_create(name="quality", kind="boolean")
    assert [p.path for p in exc.value.problems] == ["name"]
    assert ScoreConfig.objects.count() == 1


def test_a_new_version_becomes_current_and_the_old_one_stays() -> None:
    first = config_create(name="verdict", kind="categorical", labels=["good", "bad"])
    second = config_new_version(
        name="verdict", kind="categorical", labels=["good", "bad", "unclear"]
    )
    first.refresh_from_db()
    assert (second.version, second.is_current, first.is_current) == (2, True, False)
    assert config_versions("verdict") == [second, first]
    assert [c.pk for c in configs_current()] == [second.pk]


def test_a_new_version_of_nothing_is_not_found() -> None:
    with pytest.raises(NotFound):
        config_new_version(name="ghost", kind="boolean")
    with pytest.raises(NotFound):
        config_current("ghost")


def test_attaching_to_a_benchmark_is_idempotent_and_follows_the_current_version() -> (
    None
):
    benchmark_make("suite-a", kind="suite")
    config_create(name="grounded", kind="boolean")
    config_attach(name="grounded", benchmark_id="suite-a")
    config_attach(name="grounded", benchmark_id="suite-a")
    assert ScoreConfigAttachment.objects.count() == 1
    newer = config_new_version(name="grounded", kind="boolean", description="v2")
    assert configs_attached("suite-a") == [newer]
    assert attachments_of("grounded") == ["suite-a"]
    assert attachments_by_name() == {"grounded": ["suite-a"]}
    assert config_detach(name="grounded", benchmark_id="suite-a") is True
    assert configs_attached("suite-a") == []


def test_attaching_needs_a_config_and_a_benchmark_id() -> None:
    with pytest.raises(NotFound):
        config_attach(name="ghost", benchmark_id="suite-a")
    config_create(name="grounded", kind="boolean")
    for benchmark_id in ("  ", "no-such-suite"):
        with pytest.raises(SchemaInvalid) as exc:
            config_attach(name="grounded", benchmark_id=benchmark_id)
        assert [p.path for p in exc.value.problems] == ["benchmark_id"]
    assert not ScoreConfigAttachment.objects.exists()
