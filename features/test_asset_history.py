"""Runs every scenario of asset_history.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("asset_history.feature")
