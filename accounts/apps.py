from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """API keys and their scopes, for every app (imports no other app)."""

    name = "accounts"
