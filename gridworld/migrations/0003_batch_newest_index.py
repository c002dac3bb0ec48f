"""The batch list, newest first, read from an index instead of sorting every
batch. A plain index build: the table holds one row per batch (thousands,
not millions), so it is built in moments even under the lock."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evals', '0008_run_lists_walk_their_index'),
        ('gridworld', '0002_episode_batch_plural'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='episodebatch',
            index=models.Index(fields=['-created_at', '-id'], name='batch_newest_idx'),
        ),
    ]
