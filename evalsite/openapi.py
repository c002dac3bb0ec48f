"""OpenAPI: the schema's description and the error answers every operation
can give.

Every error answer has one shape (``evalsite.api``); this hook declares it
as the ``Error`` component and lists, on every operation, the statuses it
can answer besides its success: 400 (invalid input), 401/403 (no or wrong
credentials), 404 (unknown id, or a stored baseline that does not exist),
409 (a conflict or a feature turned off), 429 (throttled) and, for
operations with a body, 413 (over ``API_MAX_BODY_BYTES``) and 415.
"""

from __future__ import annotations

from typing import Any


def idempotency_key_parameter() -> Any:
    """The ``Idempotency-Key`` header of the operations that start a run."""
    from drf_spectacular.utils import OpenApiParameter

    return OpenApiParameter(
        "Idempotency-Key",
        str,
        location=OpenApiParameter.HEADER,
        description=(
            "1 to 255 printable ASCII characters chosen by the client (a UUID). "
            "A retry with the same key answers the run the first request "
            "started (header `Idempotent-Replayed: true`) instead of starting "
            "another; the same key with another body is 409 "
            "`idempotency_key_reused`. Keys belong to the API key or user."
        ),
    )


# The schema's description: how to authenticate and the limits every request is held to.
API_DESCRIPTION = (
    "Cognitive stream, eval runs, benchmark packs, baselines and the CI gate. "
    "Agents authenticate with `Authorization: Bearer <api key>` "
    "(`python manage.py create_agent NAME`). "
    "Limits: a body is UTF-8 JSON (no byte-order mark) of at most "
    "API_MAX_BODY_BYTES (10 MiB by default; 413 past it) nesting at most "
    "API_MAX_JSON_DEPTH levels (32); no string may hold NUL or a lone "
    "surrogate, no number may be NaN or Infinity, integers fit 64 bits; "
    "ids are path segments of at most 200 characters without control, "
    "zero-width or bidi characters. Every error answers "
    '`{"error": {"code", "message", "fields"}}`.'
)


def spectacular_settings() -> dict[str, Any]:
    """``SPECTACULAR_SETTINGS``: the schema's title and description, the
    vendored Swagger UI and ReDoc, and the post-processing hooks."""
    return {
        "TITLE": "evalsite API",
        "DESCRIPTION": API_DESCRIPTION,
        "VERSION": "1",
        "SERVE_INCLUDE_SCHEMA": False,
        "SWAGGER_UI_DIST": "SIDECAR",
        "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
        "REDOC_DIST": "SIDECAR",
        "COMPONENT_SPLIT_REQUEST": True,
        "POSTPROCESSING_HOOKS": [
            "drf_spectacular.hooks.postprocess_schema_enums",
            "evalsite.openapi.add_error_responses",
        ],
    }


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "fields": {
                    "type": "array",
                    "description": "every problem of the request at once: a "
                    "JSONPath into the body ($.a.b[0]), ?name for a query "
                    "parameter or header:Name for a header, with its reason",
                    "items": {
                        "type": "object",
                        "required": ["path", "message"],
                        "properties": {
                            "path": {"type": "string"},
                            "message": {"type": "string"},
                        },
                        "additionalProperties": False,
                    },
                },
            },
            "additionalProperties": True,
        }
    },
}

ERRORS = {
    "400": "Invalid input: error.fields lists every problem with its path.",
    "401": "No or unknown credentials.",
    "403": "The caller may not do this.",
    "404": "No such object.",
    "409": "Conflicts with what is stored, or the feature is turned off.",
    "429": "Too many requests; retry after the Retry-After seconds.",
}
BODY_ERRORS = {
    "413": "The body is larger than API_MAX_BODY_BYTES.",
    "415": "The body's content type is not accepted.",
}


def add_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (see the module docstring)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            errors = dict(ERRORS)
            if "requestBody" in operation:
                errors.update(BODY_ERRORS)
            responses = operation["responses"]
            for code, description in errors.items():
                responses.setdefault(
                    code,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": reference}},
                    },
                )
    return result
