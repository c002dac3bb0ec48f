"""Reads of API keys.

Every request made with a key reads it: ``key_by_prefix`` runs one plain
statement whose text is built once per database vendor and holder set from
the models' names (building the ORM's ``select_related`` query cost about
1.2 ms, running it 0.15 ms, of the ~7 ms a POST /thoughts took on
PostgreSQL). Its rows become model instances through ``Model.from_db``
with each column's database converters, as the ORM's own do. The ORM query
it stands for is ``key_by_prefix_orm``, the reference the tests hold it to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Model, Q
from django.utils import timezone

from accounts.holders import holder_relations
from accounts.models import ApiKey, AuditEntry


def key_by_prefix_orm(prefix: str) -> ApiKey | None:
    """``key_by_prefix`` through the ORM (the reference)."""
    return (
        ApiKey.objects.select_related("owner", *holder_relations())
        .filter(prefix=prefix, revoked_at__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .first()
    )


Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True, slots=True)
class _Part:
    """One model's columns in the statement: its concrete fields' attnames
    and, per field, the converters the ORM applies to the column."""

    model: type[Model]
    attnames: tuple[str, ...]
    converters: tuple[tuple[tuple[Converter, ...], Any], ...]

    def instance(self, values: tuple[Any, ...]) -> Model:
        converted = []
        for value, (converters, column) in zip(values, self.converters, strict=True):
            for converter in converters:
                value = converter(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.attnames, converted)


@dataclass(frozen=True, slots=True)
class _Statement:
    sql: str
    parts: tuple[_Part, ...]
    # Per holder relation, its steps: the key's reverse one-to-one, then
    # forward foreign keys (``agent_key__agent``); one part per step.
    chains: tuple[tuple[Any, ...], ...]


_STATEMENTS: dict[tuple[str, tuple[str, ...]], _Statement | None] = {}


def _part(model: type[Model], alias: str) -> tuple[_Part, list[str]]:
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    converters = []
    for field in fields:
        column = field.get_col(alias)
        found = connection.ops.get_db_converters(column) + column.get_db_converters(
            connection
        )
        converters.append((tuple(found), column))
    part = _Part(model, tuple(f.attname for f in fields), tuple(converters))
    return part, [f"{alias}.{quote(f.column)}" for f in fields]


def _statement(relation_names: tuple[str, ...]) -> _Statement | None:
    """The statement for these holder relations; None when one does not
    start with a reverse one-to-one of the key and go on by forward foreign
    keys (the ORM query serves those)."""
    quote = connection.ops.quote_name
    meta = ApiKey._meta
    owner = meta.get_field("owner")
    key_part, columns = _part(ApiKey, "k")
    user_part, user_columns = _part(owner.related_model, "u")
    parts, chains = [key_part, user_part], []
    columns += user_columns
    joins = [
        f"INNER JOIN {quote(owner.related_model._meta.db_table)} u "
        f"ON k.{quote(owner.column)} = u.{quote(owner.target_field.column)}"
    ]
    for n, name in enumerate(relation_names):
        first, *rest = name.split("__")
        relation = meta.get_field(first)
        if not (relation.one_to_one and relation.auto_created):
            return None
        steps, model, alias = [relation], relation.related_model, f"h{n}"
        joins.append(
            f"LEFT OUTER JOIN {quote(model._meta.db_table)} {alias} "
            f"ON {alias}.{quote(relation.field.column)} = "
            f"k.{quote(relation.field.target_field.column)}"
        )
        part, holder_columns = _part(model, alias)
        parts.append(part)
        columns += holder_columns
        for m, step_name in enumerate(rest):
            field = model._meta.get_field(step_name)
            if field.auto_created or not (field.many_to_one or field.one_to_one):
                return None
            target, previous = field.related_model, alias
            alias = f"h{n}_{m}"
            joins.append(
                f"LEFT OUTER JOIN {quote(target._meta.db_table)} {alias} "
                f"ON {alias}.{quote(field.target_field.column)} = "
                f"{previous}.{quote(field.column)}"
            )
            part, holder_columns = _part(target, alias)
            parts.append(part)
            columns += holder_columns
            steps.append(field)
            model = target
        chains.append(tuple(steps))
    expires = quote(meta.get_field("expires_at").column)
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(meta.db_table)} k "  # noqa: S608
        f"{' '.join(joins)} WHERE k.{quote(meta.get_field('prefix').column)} = %s "
        f"AND k.{quote(meta.get_field('revoked_at').column)} IS NULL "
        f"AND (k.{expires} IS NULL OR k.{expires} > %s) LIMIT 1"
    )
    return _Statement(sql, tuple(parts), tuple(chains))


def key_by_prefix(prefix: str) -> ApiKey | None:
    """The key that is neither revoked nor expired with this prefix, its
    owner and its holders' principals (``accounts.holders``) loaded in the
    same query, as ``key_by_prefix_orm`` loads them (a holder that has none is cached as
    none: reading it makes no query)."""
    names = holder_relations()
    cache_key = (connection.vendor, names)
    try:
        statement = _STATEMENTS[cache_key]
    except KeyError:
        statement = _STATEMENTS[cache_key] = _statement(names)
    if statement is None:
        return key_by_prefix_orm(prefix)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, [prefix, now])
        row = cursor.fetchone()
    if row is None:
        return None
    instances, start = [], 0
    for part in statement.parts:
        end = start + len(part.attnames)
        values = row[start:end]
        instances.append(None if values[0] is None else part.instance(values))
        start = end
    api_key, owner, *principals = instances
    ApiKey._meta.get_field("owner").set_cached_value(api_key, owner)
    for chain in statement.chains:
        relation, *forward = chain
        holder, principals = principals[0], principals[1:]
        relation.set_cached_value(api_key, holder)
        if holder is not None:
            relation.field.set_cached_value(holder, api_key)
        for field in forward:
            target, principals = principals[0], principals[1:]
            if holder is not None:
                field.set_cached_value(holder, target)
            holder = target
    return api_key


def audit_entries(
    *,
    user: Any,
    action: str = "",
    actor: str = "",
    target: str = "",
    before: int | None = None,
    limit: int = 50,
) -> list[AuditEntry]:
    """Audit entries ``user`` may read, newest first: staff read all, anyone
    else the entries about what they own (their agents and keys). Filtered by
    action (exact), actor and target (words in their labels; a target's id
    matches too); keyset-paged: entries older than ``before`` (an entry id)."""
    qs = AuditEntry.objects.select_related("actor_key")
    if not getattr(user, "is_staff", False):
        qs = qs.filter(target_owner=user)
    if action:
        qs = qs.filter(action=action)
    if actor:
        qs = qs.filter(actor_label__icontains=actor)
    if target:
        qs = qs.filter(Q(target_label__icontains=target) | Q(target_id=target))
    if before is not None:
        qs = qs.filter(pk__lt=before)
    return list(qs.order_by("-pk")[:limit])
