"""Runs every scenario of attempts.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("attempts.feature")
