"""Agents' keys move to accounts.ApiKey (3 of 3): the key fields leave
stream and every agent has its key."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("stream", "0009_agent_keys_to_accounts"),
    ]

    operations = [
        migrations.RemoveField(model_name="agent", name="key_prefix"),
        migrations.RemoveField(model_name="agent", name="key_hash"),
        migrations.RemoveField(model_name="agent", name="scopes"),
        migrations.AlterField(
            model_name="agent",
            name="api_key",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="agent",
                to="accounts.apikey",
            ),
        ),
    ]
