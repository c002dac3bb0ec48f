"""Pages of the reviews app, in the ``reviews`` namespace: the queues and a
reviewer's sitting (``pages_review``), agreement and calibration
(``pages_agreement``)."""

from reviews.urls.pages_agreement import urlpatterns as agreement_patterns
from reviews.urls.pages_review import urlpatterns as review_patterns

app_name = "reviews"

urlpatterns: list = [*review_patterns, *agreement_patterns]
