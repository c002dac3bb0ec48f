"""OpenAPI: the schema's description and the error answers every operation
can give.

Every error answer has one shape (``evalsite.api``); this hook declares it
as the ``Error`` component and lists, on every operation, the statuses it
can answer besides its success: 400 (invalid input), 401/403 (no or wrong
credentials), 404 (unknown id, or a stored baseline that does not exist),
409 (a conflict or a feature turned off), 429 (throttled) and, for
operations with a body, 413 (over ``API_MAX_BODY_BYTES``) and 415.

The same hook states in the request schemas the limits the API's parser
holds every request to (``evalsite.parsers``): a declared integer fits 64
bits (the description says so for every number); a body is required where
every shape it may take has a required property, and a JSON body is
documented as JSON only.
"""

from __future__ import annotations

from typing import Any

# On a query parameter's declaration (``OpenApiParameter(extensions=...)``):
# the view reads an empty value as no value, so ``?name=`` is the default;
# the schema states it as ``allowEmptyValue``.
EMPTY_IS_ABSENT = {"x-empty-is-absent": True}
# On an operation (``extend_schema(extensions=...)``): its view refuses a
# body property it does not know (400 naming it), so the request schema
# says ``additionalProperties: false``.
REFUSES_UNKNOWN_FIELDS = {"x-refuses-unknown-fields": True}


def idempotency_key_parameter() -> Any:
    """The ``Idempotency-Key`` header of the operations that start a run."""
    from drf_spectacular.utils import OpenApiParameter

    return OpenApiParameter(
        "Idempotency-Key",
        # Printable ASCII, not blank (surrounding spaces are not part of it).
        {"type": "string", "maxLength": 255, "pattern": "^[ -~]*[!-~][ -~]*$"},
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
    bounded: set[int] = set()
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for parameter in operation.get("parameters", []):
                if parameter.pop("x-empty-is-absent", False):
                    parameter["allowEmptyValue"] = True
                _bound_request_schema(parameter.get("schema", {}), schemas, bounded)
            body = operation.get("requestBody")
            if body is not None:
                _json_only(body.get("content", {}))
                media = body.get("content", {}).get("application/json")
                closed = operation.pop("x-refuses-unknown-fields", False)
                if media is not None and closed:
                    target = _component(media["schema"], schemas) or media["schema"]
                    target["additionalProperties"] = False
                if media is not None:
                    _bound_request_schema(media.get("schema", {}), schemas, bounded)
                    if _always_required(media.get("schema", {}), schemas):
                        body["required"] = True
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


# The largest and smallest integers the API's parser accepts (64-bit signed).
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _component(schema: dict[str, Any], schemas: dict[str, Any]) -> Any:
    reference = schema.get("$ref", "")
    prefix = "#/components/schemas/"
    if isinstance(reference, str) and reference.startswith(prefix):
        return schemas.get(reference.removeprefix(prefix))
    return None


def _bound_request_schema(schema: Any, schemas: dict[str, Any], seen: set[int]) -> None:
    """States the parser's limits in a request schema, in place: integers
    get 64-bit bounds."""
    if not isinstance(schema, dict) or id(schema) in seen:
        return
    seen.add(id(schema))
    target = _component(schema, schemas)
    if target is not None:
        _bound_request_schema(target, schemas, seen)
        return
    if schema.get("type") == "integer":
        schema.setdefault("minimum", INT64_MIN)
        schema.setdefault("maximum", INT64_MAX)
    for key in ("properties", "patternProperties"):
        for child in (schema.get(key) or {}).values():
            _bound_request_schema(child, schemas, seen)
    for key in ("items", "additionalProperties"):
        _bound_request_schema(schema.get(key), schemas, seen)
    for key in ("oneOf", "anyOf", "allOf"):
        for child in schema.get(key) or []:
            _bound_request_schema(child, schemas, seen)


FORM_MEDIA_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _json_only(content: dict[str, Any]) -> None:
    """A body documented as JSON is JSON: the form media types DRF lists
    beside it with the same schema (its default parsers) go, since a form
    cannot carry the nested objects, numbers and nulls that schema states.
    A form with a schema of its own (a pack upload) stays."""
    media = content.get("application/json")
    for name in FORM_MEDIA_TYPES:
        if media is not None and content.get(name, {}).get("schema") == media.get(
            "schema"
        ):
            del content[name]


def _always_required(schema: Any, schemas: dict[str, Any]) -> bool:
    """Whether every shape ``schema`` may take has a required property."""
    if not isinstance(schema, dict):
        return False
    target = _component(schema, schemas)
    if target is not None:
        return _always_required(target, schemas)
    branches = schema.get("oneOf") or schema.get("anyOf")
    if branches:
        return all(_always_required(branch, schemas) for branch in branches)
    return bool(schema.get("required"))
