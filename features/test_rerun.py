"""Runs every scenario of rerun.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("rerun.feature")
