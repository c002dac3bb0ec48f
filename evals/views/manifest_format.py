"""The manifest format of benchmark packs, for people writing one: the
field reference (``evals.core.manifest_fields``), an example and the JSON
Schema the upload validates against."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.schemas import load_validator
from evals.core.manifest_fields import (
    MANIFEST_EXAMPLE,
    MANIFEST_FIELDS,
    TEXT_RULE,
    UNKNOWN_FIELDS_RULE,
)
from evals.core.packs import SCHEMA_NAME


@login_required
@require_GET
def manifest_format(request: HttpRequest) -> HttpResponse:
    """Every manifest field with its meaning, an example, the schema link."""
    return render(
        request,
        "evals/manifest_format.html",
        {
            "fields": MANIFEST_FIELDS,
            "rules": (UNKNOWN_FIELDS_RULE, TEXT_RULE),
            "example": json.dumps(MANIFEST_EXAMPLE, indent=2),
            "schema_name": SCHEMA_NAME,
        },
    )


@login_required
@require_GET
def manifest_schema(request: HttpRequest) -> HttpResponse:
    """The manifest's JSON Schema (Draft 2020-12), as the upload uses it."""
    schema = load_validator("evals.core", SCHEMA_NAME).schema
    return HttpResponse(
        json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
        content_type="application/schema+json",
    )
