"""Human scores as per-case values of run metrics (reviews.core.human_metrics)."""

from __future__ import annotations

from reviews.core.human_metrics import RunScore, human_metric_values, metric_name


def score(
    case: str,
    *,
    number: float | None = None,
    label: str = "",
    kind: str = "numeric",
    name: str = "quality",
    version: int = 1,
    labels: tuple[str, ...] = (),
) -> RunScore:
    return RunScore(name, version, kind, labels, case, number, label)


def test_numeric_scores_give_the_mean_of_each_cases_reviewers() -> None:
    values = human_metric_values(
        [score("a", number=4), score("a", number=2), score("b", number=5)]
    )
    assert values == {"human.quality": {"a": 3.0, "b": 5.0}}


def test_boolean_scores_give_the_share_of_yes_per_case() -> None:
    values = human_metric_values(
        [
            score("a", number=1, kind="boolean", name="correct"),
            score("a", number=0, kind="boolean", name="correct"),
            score("b", number=1, kind="boolean", name="correct"),
        ]
    )
    assert values == {"human.correct": {"a": 0.5, "b": 1.0}}


def test_categorical_scores_give_one_share_per_label_of_the_config() -> None:
    labels = ("good", "bad", "ugly")
    values = human_metric_values(
        [
            score("a", label="good", kind="categorical", labels=labels),
            score("a", label="bad", kind="categorical", labels=labels),
            score("b", label="good", kind="categorical", labels=labels),
        ]
    )
    assert values == {
        "human.quality.bad": {"a": 0.5, "b": 0.0},
        "human.quality.good": {"a": 0.5, "b": 1.0},
        "human.quality.ugly": {"a": 0.0, "b": 0.0},
    }


def test_only_the_newest_version_with_scores_counts() -> None:
    values = human_metric_values(
        [
            score("a", number=1, version=1),
            score("b", number=9, version=2),
            score("c", number=7, version=2),
        ]
    )
    assert values == {"human.quality": {"b": 9.0, "c": 7.0}}


def test_scores_without_a_value_are_left_out() -> None:
    values = human_metric_values(
        [score("a", number=None), score("b", kind="categorical", labels=("x",))]
    )
    assert values == {}


def test_metric_names() -> None:
    assert metric_name("quality") == "human.quality"
    assert metric_name("tone", "too formal") == "human.tone.too formal"
