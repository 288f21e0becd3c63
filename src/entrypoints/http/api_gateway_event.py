"""The parts of an API Gateway HTTP API (payload format 2.0) event that Mangum reads, checked
before it reads them: API Gateway always sends them so, but a direct invoke or an integration of
another kind may not, and Mangum would raise out of the Lambda (API Gateway's bare 500)."""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    ValidationError,
    model_validator,
)

from application.validation_messages import describe_validation_error

_SERVED = "the function serves API Gateway HTTP API events, payload format 2.0"


def _encodable(text: str) -> str:
    # JSON may carry a lone surrogate (`"\ud800"`), which Mangum's `.encode()` raises on
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not UTF-8 text (it holds a lone surrogate)") from None
    return text


_Text = Annotated[StrictStr, AfterValidator(_encodable)]


def _port_problem(headers: dict[str, str]) -> str | None:
    """Why Mangum could not read the server's port from the headers, as it reads it: after the
    one ':' of `host`, else `x-forwarded-port`; None when it can."""
    lowered = {key.lower(): value for key, value in headers.items()}
    host = lowered.get("host", "")
    if ":" in host:
        port = host.split(":", 1)[1]
        field, rule = "host", "a port after its ':' must be a number"
    else:
        port = lowered.get("x-forwarded-port", "80")
        field, rule = "x-forwarded-port", "must be a number"
    try:
        int(port)
    except ValueError:
        return f"headers.{field}: {rule}, got {port[:40]!r}"
    return None


class _Part(BaseModel):
    # only what Mangum reads is checked; the rest of the event is API Gateway's to shape
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=False)


class _Http(_Part):
    method: StrictStr
    path: StrictStr
    source_ip: StrictStr = Field(alias="sourceIp")


class _RequestContext(_Part):
    http: _Http


class HttpApiEvent(_Part):
    version: Literal["2.0"]
    request_context: _RequestContext = Field(alias="requestContext")
    headers: dict[_Text, _Text] = {}
    raw_query_string: _Text = Field("", alias="rawQueryString")
    cookies: list[_Text] = []
    body: _Text | None = None
    is_base64_encoded: StrictBool = Field(False, alias="isBase64Encoded")

    @model_validator(mode="after")
    def _read_as_mangum_reads_it(self) -> Self:
        problem = _port_problem(self.headers)
        if problem is not None:
            raise ValueError(problem)
        if self.is_base64_encoded and self.body:
            try:
                b64decode(self.body, validate=True)
            except binascii.Error:
                raise ValueError("body: not base64, which isBase64Encoded says it is") from None
        return self


def event_problem(event: Any) -> str | None:
    """Why Mangum could not read the event, naming the field and the rule; None when it can."""
    if not isinstance(event, dict):
        return f"the event is no object: {_SERVED}"
    try:
        HttpApiEvent.model_validate(event)
    except ValidationError as invalid:
        return f"event {describe_validation_error(_objects_named(invalid))} ({_SERVED})"
    return None


def _objects_named(invalid: ValidationError) -> ValidationError:
    """Pydantic names the model a part should have been (`instance of _RequestContext`): a
    name of ours, not the caller's."""
    problems: list[Any] = []
    for problem in invalid.errors():
        if problem["type"] == "model_type":
            problem = {**problem, "type": "value_error", "ctx": {"error": "should be an object"}}
        problems.append(problem)
    return ValidationError.from_exception_data(invalid.title, problems)
