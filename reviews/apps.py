from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    """People in the loop: score configs, review queues, human scores and
    how far reviewers (and reviewers and the automatic checks) agree.

    An item points at what it reviews by kind and id (a scenario result of a
    run, a thought, a gridworld episode, a keepalive decision), never by a
    foreign key into another app, so pruning thoughts or deleting runs never
    touches the reviews tables; the item's context is read through the other
    apps' public selectors when a reviewer opens it.
    """

    name = "reviews"
    default_auto_field = "django.db.models.BigAutoField"
