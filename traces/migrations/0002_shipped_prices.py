"""Load the price table that ships with evalsite and make it the active one.

Reads ``traces/prices/prices.json`` (validated by ``traces.core.prices``)
into ``PriceTable`` and ``PriceRule`` rows, source ``shipped``. A database
that already has an active table (one loaded by hand before this ran)
keeps it; the shipped version is stored inactive beside it. Inserts only;
reversing deletes the shipped version again.
"""

from pathlib import Path

from django.db import migrations

from traces.core.prices import price_table_from_text

SHIPPED = Path(__file__).resolve().parents[1] / "prices" / "prices.json"


def load_shipped(apps, schema_editor):
    PriceTable = apps.get_model("traces", "PriceTable")
    PriceRule = apps.get_model("traces", "PriceRule")
    spec = price_table_from_text(SHIPPED.read_bytes())
    if PriceTable.objects.filter(version=spec.version).exists():
        return
    table = PriceTable.objects.create(
        version=spec.version,
        source="shipped",
        notes=spec.notes,
        active=not PriceTable.objects.filter(active=True).exists(),
    )
    PriceRule.objects.bulk_create(
        PriceRule(
            table=table,
            position=position,
            pattern=rule.pattern,
            provider=rule.provider,
            input_per_mtok=rule.input,
            output_per_mtok=rule.output,
            cached_input_per_mtok=rule.cached_input,
            cache_write_per_mtok=rule.cache_write,
            effective_from=rule.effective_from,
            effective_to=rule.effective_to,
        )
        for position, rule in enumerate(spec.rules)
    )


def unload_shipped(apps, schema_editor):
    PriceTable = apps.get_model("traces", "PriceTable")
    spec = price_table_from_text(SHIPPED.read_bytes())
    # The rules go with their table (on_delete=CASCADE).
    PriceTable.objects.filter(version=spec.version, source="shipped").delete()


class Migration(migrations.Migration):
    dependencies = [("traces", "0001_initial")]

    operations = [migrations.RunPython(load_shipped, unload_shipped)]
