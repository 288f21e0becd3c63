"""Runs every scenario of redrive.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("redrive.feature")
