"""The rate card from configuration: WFX_RATE_CARD, else `rate-card.yaml` / `rate-card.json`
in WFX_HOME, over the shipped defaults (a file's unit replaces the default of that unit).

    currency: USD            # optional: the currency of rates that name none (default USD)
    rates:
      seconds: {unitPrice: "0.00005"}
      lambda-GB-seconds: {unitPrice: "0.0000166667", currency: USD}
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from domain.costs import DEFAULT_CURRENCY, DEFAULT_RATE_CARD, Rate, RateCard
from domain.errors import InvalidInputError

RATE_CARD_FILES = ("rate-card.yaml", "rate-card.yml", "rate-card.json")


def rate_card_path(configured: str | None, home: str | Path) -> Path | None:
    if configured:
        return Path(configured).expanduser()
    return next((p for p in (Path(home) / n for n in RATE_CARD_FILES) if p.is_file()), None)


def load_rate_card(configured: str | None, home: str | Path) -> RateCard:
    """The defaults, with the configured file's rates over them; InvalidInputError naming the
    file and the entry when the file is missing or wrong."""
    path = rate_card_path(configured, home)
    if path is None:
        return DEFAULT_RATE_CARD
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidInputError(f"WFX_RATE_CARD: cannot read {path}: {error.strerror}") from None
    return DEFAULT_RATE_CARD.merged(parse_rate_card(text, str(path)))


def _document(text: str, where: str) -> Any:
    try:
        return _parsed(text, where)
    except RecursionError:
        raise InvalidInputError(f"{where}: nested deeper than a rate card can be") from None


def _parsed(text: str, where: str) -> Any:
    if where.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInputError(f"{where}: not valid JSON: {error.msg}") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidInputError(f"{where}: not valid YAML: {error}") from None


def parse_rate_card(text: str, where: str) -> dict[str, Rate]:
    document = _document(text, where)
    if not isinstance(document, dict) or not isinstance(document.get("rates"), dict):
        raise InvalidInputError(f"{where}: rates: must be a mapping of unit to its rate")
    extra = set(document) - {"currency", "rates"}
    if extra:
        raise InvalidInputError(f"{where}: {sorted(extra)[0]}: not a rate card field")
    currency = document.get("currency") or DEFAULT_CURRENCY
    rates: dict[str, Rate] = {}
    for unit, fields in document["rates"].items():
        if not isinstance(fields, dict):
            raise InvalidInputError(f"{where}: rates.{unit}: must be {{unitPrice, currency}}")
        price = fields.get("unitPrice")
        try:
            # YAML reads an unquoted price as a float: its shortest text is the price written
            values = {**fields, "unitPrice": Decimal(str(price)) if price is not None else None}
            rates[str(unit)] = Rate.model_validate({"currency": currency, **values})
        except (ValidationError, ArithmeticError) as error:
            raise InvalidInputError(f"{where}: rates.{unit}: {_first(error)}") from None
    return rates


def _first(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problem = error.errors()[0]
        rule = problem["msg"].removeprefix("Value error, ")
        return f"{'.'.join(map(str, problem['loc']))}: {rule}"
    return "unitPrice: must be a decimal number"
