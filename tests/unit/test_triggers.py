"""Trigger types: requests say manual / fileUpload, rows store Manual / File-Upload."""

import pytest

from domain.errors import InvalidInputError
from domain.triggers import SYSTEM_USER, TriggerType, attributed_user, trigger_type_from_request


def test_request_forms_map_to_the_stored_forms() -> None:
    assert trigger_type_from_request("manual") is TriggerType.MANUAL
    assert trigger_type_from_request("fileUpload") is TriggerType.FILE_UPLOAD
    assert TriggerType.FILE_UPLOAD.value == "File-Upload"


@pytest.mark.parametrize("value", ["Manual", "file-upload", "", "cron"])
def test_an_unknown_trigger_is_refused_naming_the_field(value: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^trigger: must be one of manual, fileUpload"):
        trigger_type_from_request(value)


def test_a_file_upload_run_belongs_to_the_system_user() -> None:
    assert attributed_user(TriggerType.FILE_UPLOAD, "alice") == SYSTEM_USER
    assert attributed_user(TriggerType.MANUAL, "alice") == "alice"
