"""The manifest format page, the upload page's link to it, and the docs:
every manifest field of the schema is explained in all of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client

from core.schemas import load_validator
from evals.core.manifest_fields import MANIFEST_EXAMPLE, MANIFEST_FIELDS
from evals.core.packs import SCHEMA_NAME, validate_manifest

REPO = Path(__file__).resolve().parents[2]


def schema_paths() -> set[str]:
    schema = load_validator("evals.core", SCHEMA_NAME).schema
    case = schema["properties"]["cases"]["items"]["properties"]
    return set(schema["properties"]) | {f"cases[].{name}" for name in case}


def test_the_reference_lists_exactly_the_schemas_fields() -> None:
    assert {field.path for field in MANIFEST_FIELDS} == schema_paths()


def test_the_example_is_a_valid_manifest() -> None:
    assert validate_manifest(MANIFEST_EXAMPLE).benchmark_id == "ama-memory"


def test_docs_document_every_manifest_field() -> None:
    docs = (REPO / "docs" / "benchmarks.md").read_text()
    section = docs.split("## Manifest format", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.M))

    assert documented == schema_paths()


@pytest.mark.django_db
def test_the_format_page_explains_every_field(owner_client: Client) -> None:
    response = owner_client.get("/benchmarks/upload/manifest-format")

    assert response.status_code == 200
    html = response.content.decode()
    for field in MANIFEST_FIELDS:
        assert f"<tr><td><code>{field.path}</code></td>" in html
    assert 'href="/benchmarks/upload/manifest.v1.schema.json" download' in html
    assert "seed 0" not in html.lower()


@pytest.mark.django_db
def test_the_schema_download_is_the_schema_the_upload_uses(
    owner_client: Client,
) -> None:
    response = owner_client.get("/benchmarks/upload/manifest.v1.schema.json")

    assert response["Content-Type"] == "application/schema+json"
    assert json.loads(response.content) == (
        load_validator("evals.core", SCHEMA_NAME).schema
    )


@pytest.mark.django_db
def test_upload_page_links_the_format_and_keeps_the_checkbox_by_its_label(
    owner_client: Client,
) -> None:
    html = owner_client.get("/benchmarks/upload").content.decode()

    assert '<a href="/benchmarks/upload/manifest-format">the manifest format</a>' in (
        html
    )
    assert "seed 0" not in html.lower()
    assert (
        '<label class="checkbox" for="id_force"><input type="checkbox" '
        'name="force" id="id_force"> <span>Replace an existing pack with the '
        "same benchmarkId</span></label>"
    ) in html
