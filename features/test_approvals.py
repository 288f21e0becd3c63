"""Runs every scenario of approvals.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("approvals.feature")
