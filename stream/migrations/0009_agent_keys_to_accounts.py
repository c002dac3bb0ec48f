"""Agents' keys move to accounts.ApiKey (2 of 3): every key is copied
(prefix, hash, scopes, owner, the agent's name and creation time), so the
same Bearer key authenticates with the same scopes. The way back copies them
home and deletes the copies."""

from django.db import migrations


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
        ("stream", "0008_agent_api_key"),
    ]

    operations = [migrations.RunPython(keys_to_accounts, keys_to_stream)]
