"""The rate card from configuration: WFX_RATE_CARD, else a file in WFX_HOME, over the defaults."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from adapters.rate_card_file import load_rate_card
from domain.costs import DEFAULT_RATE_CARD, Rate
from domain.errors import InvalidInputError


def test_without_a_file_the_defaults_hold(tmp_path: Path) -> None:
    assert load_rate_card(None, tmp_path) == DEFAULT_RATE_CARD


def test_a_yaml_file_in_the_home_adds_units_and_replaces_defaults(tmp_path: Path) -> None:
    (tmp_path / "rate-card.yaml").write_text(
        "currency: EUR\n"
        "rates:\n"
        "  seconds: {unitPrice: 0.00005}\n"  # unquoted: read as a float, kept as written
        '  batch-vCPU-seconds: {unitPrice: "0.00001", currency: USD}\n',
        encoding="utf-8",
    )

    card = load_rate_card(None, tmp_path)

    assert card.price_of("seconds") == Rate(unit_price=Decimal("0.00005"), currency="EUR")
    assert card.price_of("batch-vCPU-seconds") == Rate(unit_price=Decimal("0.00001"))
    assert card.price_of("lambda-GB-seconds") == DEFAULT_RATE_CARD.price_of("lambda-GB-seconds")


def test_the_configured_json_file_wins_over_the_home(tmp_path: Path) -> None:
    (tmp_path / "rate-card.yaml").write_text("rates: {seconds: {unitPrice: 1}}\n", "utf-8")
    configured = tmp_path / "card.json"
    configured.write_text('{"rates": {"seconds": {"unitPrice": "2"}}}', encoding="utf-8")

    price = load_rate_card(str(configured), tmp_path).price_of("seconds")

    assert price is not None and price.unit_price == Decimal(2)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("rates: [1, 2]\n", "rates: must be a mapping"),
        ("rates: {seconds: {unitPrice: -1}}\n", "rates.seconds: unitPrice"),
        ("rates: {seconds: {unitPrice: lots}}\n", "rates.seconds: unitPrice"),
        ("rates: {seconds: {unitPrice: 1, currency: usd}}\n", "rates.seconds: currency"),
        ("rates: {seconds: {unitPrice: 1}}\ncolour: red\n", "colour: not a rate card field"),
        ("rates: {seconds: [unclosed\n", "not valid YAML"),
    ],
)
def test_a_bad_rate_card_is_refused_naming_the_file_and_entry(
    tmp_path: Path, text: str, named: str
) -> None:
    path = tmp_path / "card.yaml"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(InvalidInputError, match=named) as refused:
        load_rate_card(str(path), tmp_path)

    assert str(path) in str(refused.value)


def test_a_configured_file_that_is_missing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="WFX_RATE_CARD: cannot read"):
        load_rate_card(str(tmp_path / "absent.yaml"), tmp_path)
