from django.apps import AppConfig


class SearchConfig(AppConfig):
    """Full-text search over what agents said and what people wrote about it:
    thoughts, scenario outputs, model completions, review comments and
    keepalive decision lines, on PostgreSQL (tsvector + GIN, trigram for
    substrings) and on the embedded SQLite default (FTS5)."""

    name = "search"
    default_auto_field = "django.db.models.BigAutoField"
