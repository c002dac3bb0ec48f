"""Agents' keys move to accounts.ApiKey (1 of 3): the agent gets a nullable
link to its key; the key fields may be empty while they leave, so that the
way back can re-add them before the keys are copied home. The data copy and
the schema change are separate migrations: PostgreSQL refuses to alter a
table with pending (deferred) constraint checks in the same transaction."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
        ("stream", "0007_thought_agent_newest_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="agent",
            name="api_key",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="agent",
                to="accounts.apikey",
            ),
        ),
        migrations.AlterField(
            model_name="agent",
            name="key_prefix",
            field=models.CharField(max_length=16, null=True, unique=True),
        ),
        migrations.AlterField(
            model_name="agent",
            name="key_hash",
            field=models.CharField(default="", max_length=64),
        ),
    ]
