"""Runs every scenario of logs.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("logs.feature")
