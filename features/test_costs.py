"""Runs every scenario of costs.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("costs.feature")
