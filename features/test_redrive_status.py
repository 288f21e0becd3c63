"""Runs every scenario of redrive_status.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("redrive_status.feature")
