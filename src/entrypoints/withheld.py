"""What VAMS keeps from its callers, cut out of the text wfx shows them: an ARN is shown by its
name tail (a state machine run's or a job's name, a log group's name), as VAMS's details show
`resourceName` and `logGroupName`, never the ARN (its account, region, partition)."""

from __future__ import annotations

import re

from domain.available_logs import group_name_of


def resource_name(resource_id: str) -> str:
    """What a caller is shown of a process's id: an ARN's name tail (VAMS shows no ARN, only
    the name of the state machine run or job), any other id as it is."""
    if not resource_id.startswith("arn:"):
        return resource_id
    if ":log-group:" in resource_id:
        return group_name_of(resource_id)
    return re.split(r"[:/]", resource_id)[-1]


def without_arns(text: str) -> str:
    """Free text with each ARN in it cut to its name tail."""
    return _ARN.sub(lambda match: resource_name(match.group(0)), text)


# up to the text around it: a space, a quote, or punctuation that ends a phrase
_ARN = re.compile(r"arn:[\w-]+:[^\s,;\"']*[^\s,;\"':.)]")
