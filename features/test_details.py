"""Runs every scenario of details.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("details.feature")
