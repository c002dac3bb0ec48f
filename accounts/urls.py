"""Pages of the accounts app, in the ``accounts`` namespace."""

app_name = "accounts"

urlpatterns: list = []
