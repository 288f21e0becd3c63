"""Runs every scenario of vams_rows.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("vams_rows.feature")
