"""A template as text: YAML (the default; PyYAML, block style, keys in the order built) or JSON."""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml

try:  # libyaml's emitter: the same text as PyYAML's (a port of it), a seventh of the CPU
    from yaml import CSafeDumper as _SafeDumper
except ImportError:  # a PyYAML built without libyaml
    from yaml import SafeDumper as _SafeDumper  # type: ignore[assignment]

TemplateFormat = Literal["yaml", "json"]


class _Dumper(_SafeDumper):
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
