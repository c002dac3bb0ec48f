"""Every API error has the shape
{"error": {"code", "message", "fields": [{"path", "message"}]}}."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evalsite.api import core_field, error_body


class ItemInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=5)
    count = serializers.IntegerField(min_value=0)


class ItemView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    def post(self, request: Any) -> Response:
        data = request.data
        if isinstance(data, dict) and data.get("raise") == "schema":
            raise SchemaInvalid(
                "manifest is invalid",
                problems=[
                    SchemaProblem("$.cases", "type", "cases must be an array"),
                    SchemaProblem(
                        "$.benchmarkId", "x", "benchmarkId must be a safe path segment"
                    ),
                ],
            )
        if isinstance(data, dict) and data.get("raise") == "conflict":
            raise Conflict("task is completed", details={"current": "completed"})
        serializer = ItemInputSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data, status=201)


def post(body: bytes | str, content_type: str = "application/json") -> Any:
    request = APIRequestFactory().post("/api/x", body, content_type=content_type)
    response = ItemView.as_view()(request)
    response.render()
    return response


def test_valid_body_passes() -> None:
    response = post(json.dumps({"name": "axe", "count": 2}))
    assert response.status_code == 201


def test_malformed_json_is_400_with_error_body() -> None:
    response = post(b'{"name": ')
    assert response.status_code == 400
    body = json.loads(response.content)
    assert body["error"]["code"] == "parse_error"
    assert body["error"]["message"].startswith("Malformed JSON")
    assert body["error"]["fields"] == []


def test_empty_body_reports_missing_fields() -> None:
    response = post(b"")
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["fields"] == [
        {"path": "$.name", "message": "This field is required."},
        {"path": "$.count", "message": "This field is required."},
    ]


def test_too_deep_json_is_400() -> None:
    body = "[" * 40 + "]" * 40
    response = post(body)
    assert response.status_code == 400
    assert "nests deeper than 32" in json.loads(response.content)["error"]["message"]


def test_pathologically_deep_json_is_400_not_500() -> None:
    body = "[" * 100_000 + "]" * 100_000
    response = post(body)
    assert response.status_code == 400


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_oversized_body_is_413() -> None:
    response = post(json.dumps({"name": "x" * 5000, "count": 1}))
    assert response.status_code == 413
    assert json.loads(response.content) == {
        "error": {
            "code": "too_large",
            "message": "Request body exceeds the size limit.",
            "fields": [],
        }
    }


def test_field_errors_name_field_and_reason() -> None:
    response = post(json.dumps({"name": "toolong", "count": -1}))
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "error": {
            "code": "invalid",
            "message": "Invalid input: 2 problems.",
            "fields": [
                {
                    "path": "$.name",
                    "message": "Ensure this field has no more than 5 characters.",
                },
                {
                    "path": "$.count",
                    "message": "Ensure this value is greater than or equal to 0.",
                },
            ],
        }
    }


def test_schema_invalid_lists_every_problem_by_path() -> None:
    response = post(json.dumps({"raise": "schema"}))
    assert response.status_code == 400
    assert json.loads(response.content)["error"] == {
        "code": "invalid",
        "message": "manifest is invalid",
        "fields": [
            {
                "path": "$.benchmarkId",
                "message": "benchmarkId must be a safe path segment",
            },
            {"path": "$.cases", "message": "cases must be an array"},
        ],
    }


def test_conflict_is_409_with_details() -> None:
    response = post(json.dumps({"raise": "conflict"}))
    assert response.status_code == 409
    assert json.loads(response.content)["error"] == {
        "code": "conflict",
        "message": "task is completed",
        "fields": [],
        "current": "completed",
    }


@pytest.mark.django_db
def test_unknown_api_path_is_json_404(client: Any) -> None:
    response = client.get("/api/does-not-exist")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_bad_api_key_is_401(anon_client: Any) -> None:
    anon_client.credentials(HTTP_AUTHORIZATION="Bearer es_nope_nope")
    response = anon_client.get("/api/whoami")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


class LineInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["a", "b"])


class OrderInputSerializer(serializers.Serializer):
    shop = serializers.CharField()
    lines = LineInputSerializer(many=True)
    note = serializers.CharField()

    def validate_shop(self, value: str) -> str:
        def known() -> str:
            if value != "main":
                raise SchemaInvalid(
                    f"no shop {value!r}",
                    problems=[SchemaProblem("shop", "not_found", "no such shop")],
                )
            return value

        return core_field(known)


class OrderView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    def get(self, request: Any) -> Response:
        query = OrderInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response({})

    def post(self, request: Any) -> Response:
        serializer = OrderInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({}, status=201)


def test_every_problem_at_once_with_json_paths() -> None:
    request = APIRequestFactory().post(
        "/api/orders",
        json.dumps({"shop": "nope", "lines": [{"kind": "a"}, {"kind": "z"}]}),
        content_type="application/json",
    )
    response = OrderView.as_view()(request)
    response.render()

    assert response.status_code == 400
    assert json.loads(response.content)["error"] == {
        "code": "invalid",
        "message": "Invalid input: 3 problems.",
        "fields": [
            {"path": "$.shop", "message": "no such shop"},
            {"path": "$.lines[1].kind", "message": '"z" is not a valid choice.'},
            {"path": "$.note", "message": "This field is required."},
        ],
    }


def test_query_parameter_problems_are_named_as_parameters() -> None:
    request = APIRequestFactory().get("/api/orders", {"shop": "main"})
    response = OrderView.as_view()(request)
    response.render()

    assert response.status_code == 400
    paths = [f["path"] for f in json.loads(response.content)["error"]["fields"]]
    assert paths == ["?lines", "?note"]


def test_a_flood_of_problems_is_cut_with_a_count() -> None:
    body = error_body("invalid", "x", {f"f{i}": ["bad"] for i in range(150)})

    fields = body["error"]["fields"]
    assert len(fields) == 101
    assert fields[0] == {"path": "$.f0", "message": "bad"}
    assert fields[-1] == {"path": "$", "message": "50 more problems not shown"}
