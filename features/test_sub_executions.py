"""Runs every scenario of sub_executions.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("sub_executions.feature")
