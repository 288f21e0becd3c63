"""How a run was triggered (seed 000 key conventions)."""

from enum import StrEnum

from domain.control_characters import RULE, first_control_character
from domain.errors import InvalidInputError

SYSTEM_USER = "SYSTEM_USER"


class TriggerType(StrEnum):
    MANUAL = "Manual"
    FILE_UPLOAD = "File-Upload"


_REQUEST_FORMS = {"manual": TriggerType.MANUAL, "fileUpload": TriggerType.FILE_UPLOAD}


def trigger_type_from_request(value: str) -> TriggerType:
    """Map the request's lowercase form to the stored one."""
    try:
        return _REQUEST_FORMS[value]
    except KeyError:
        raise InvalidInputError(
            f"trigger: must be one of manual, fileUpload, got {value!r}"
        ) from None


MAX_USER_ID_LENGTH = 256


def user_id_problem(user_id: str) -> str | None:
    """Why `user_id` cannot name the user a run or a token is attributed to, or None."""
    if not user_id.strip():
        return "must not be empty"
    if len(user_id) > MAX_USER_ID_LENGTH:
        return f"must be at most {MAX_USER_ID_LENGTH} characters, got {len(user_id)}"
    found = first_control_character(user_id)
    return None if found is None else f"{RULE}; found {found}"


def attributed_user(trigger: TriggerType, requesting_user: str) -> str:
    """A trigger-launched run belongs to SYSTEM_USER: the uploader may not hold run permission."""
    return SYSTEM_USER if trigger is TriggerType.FILE_UPLOAD else requesting_user
