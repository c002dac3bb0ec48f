"""Agents' keys move to accounts.ApiKey: every key is copied (prefix, hash,
scopes, owner, the agent's name and creation time), so the same Bearer key
authenticates with the same scopes; then the agent points at its key and the
key fields leave stream. Reversible: the way back copies them home."""

import django.db.models.deletion
from django.db import migrations, models


def keys_to_accounts(apps, schema_editor):
    Agent = apps.get_model("stream", "Agent")
    ApiKey = apps.get_model("accounts", "ApiKey")
    for agent in Agent.objects.order_by("pk"):
        key = ApiKey.objects.create(
            name=agent.name,
            owner_id=agent.owner_id,
            prefix=agent.key_prefix,
            key_hash=agent.key_hash,
            scopes=list(agent.scopes),
        )
        ApiKey.objects.filter(pk=key.pk).update(created_at=agent.created_at)
        Agent.objects.filter(pk=agent.pk).update(api_key=key)


def keys_to_stream(apps, schema_editor):
    Agent = apps.get_model("stream", "Agent")
    ApiKey = apps.get_model("accounts", "ApiKey")
    for agent in Agent.objects.select_related("api_key").order_by("pk"):
        key = agent.api_key
        Agent.objects.filter(pk=agent.pk).update(
            key_prefix=key.prefix, key_hash=key.key_hash, scopes=list(key.scopes)
        )
    moved = list(Agent.objects.values_list("api_key_id", flat=True))
    Agent.objects.update(api_key=None)
    ApiKey.objects.filter(pk__in=moved).delete()


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
        # Nullable (and blank) while they leave, so that the way back can
        # re-add them before the keys are copied home.
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
        migrations.RunPython(keys_to_accounts, keys_to_stream),
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
