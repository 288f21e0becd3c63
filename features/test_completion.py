"""Runs every scenario of completion.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("completion.feature")
