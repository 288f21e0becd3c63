"""A botocore failure that never reached AWS, said in one line with what to do about it.

Shared by the adapters' best-effort reads (log sources, sub-execution status, stops) and by the
command line's error exit. Errors are matched by class name, so importing this never loads
botocore: a SQLite command stays off the AWS SDK.
"""

from __future__ import annotations

CREDENTIALS_HINT = "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
_UNREACHABLE = frozenset({"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError"})


def endpoint_of(error: BaseException) -> str:
    """The endpoint a connection error names; "" when it names none."""
    return str(getattr(error, "kwargs", {}).get("endpoint_url", ""))


def is_unreachable(error: BaseException) -> bool:
    return type(error).__name__ in _UNREACHABLE


# What AWS answers when a table or an account is over its rate; botocore's standard retries
# have been spent by the time one reaches us.
_THROTTLING_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
    }
)


def throttling_code(error: BaseException) -> str | None:
    """The error code when AWS refused the request for its rate, else None; the error's cause
    too (a store wraps what boto3 raised). A transaction cancelled with a `ThrottlingError`
    reason is one (botocore does not retry those)."""
    code = _own_throttling_code(error)
    if code is None and error.__cause__ is not None:
        code = _own_throttling_code(error.__cause__)
    return code


def _own_throttling_code(error: BaseException) -> str | None:
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None
    code = str(response.get("Error", {}).get("Code", ""))
    if code in _THROTTLING_CODES:
        return code
    reasons = response.get("CancellationReasons") or []
    if code == "TransactionCanceledException" and any(
        isinstance(reason, dict) and reason.get("Code") == "ThrottlingError" for reason in reasons
    ):
        return "ThrottlingError"
    return None


def transport_problem(error: BaseException) -> str | None:
    """No credentials, or an endpoint that does not answer: what happened and what to do.
    None for any other error (an answer from AWS is described by its own code and message)."""
    name = type(error).__name__
    if name == "NoCredentialsError":
        return f"no AWS credentials: {CREDENTIALS_HINT}"
    if name in _UNREACHABLE:
        return (
            f"cannot reach {endpoint_of(error) or 'AWS'} ({error}): check AWS_ENDPOINT_URL / "
            "AWS_ENDPOINT_URL_<SERVICE> (a local stand-in: `moto_server -p 5000`) and AWS_REGION"
        )
    return None


# The codes AWS answers a call the caller's policy does not allow with (S3 says AccessDenied).
_ACCESS_DENIED = frozenset({"AccessDeniedException", "AccessDenied"})


def denied_call(error: BaseException) -> str | None:
    """`StartExecution (AccessDeniedException)` when AWS refused the call to the caller's
    credentials; None for any other error."""
    if not any(kind.__name__ == "ClientError" for kind in type(error).__mro__):
        return None
    code = str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))
    if code not in _ACCESS_DENIED:
        return None
    return f"{getattr(error, 'operation_name', 'a call')} ({code})"


class BucketUnusableError(RuntimeError):
    """The object store's bucket cannot be used (missing, unversioned, unreachable, denied):
    a setting to fix, not a bug; the message names the bucket and what to do."""
