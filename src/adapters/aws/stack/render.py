"""A template as text: YAML (the default; PyYAML, block style, keys in the order built) or JSON."""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml

TemplateFormat = Literal["yaml", "json"]


class _Dumper(yaml.SafeDumper):
    """Every value written out where it is used: CloudFormation refuses YAML anchors and
    aliases, which PyYAML emits for an object the template holds twice."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def render_template(template: dict[str, Any], format: TemplateFormat = "yaml") -> str:
    if format == "json":
        return json.dumps(template, indent=2) + "\n"
    # wide lines: long strings (policy conditions, the access log format) are not folded
    text: str = yaml.dump(
        template, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=10_000
    )
    return text
