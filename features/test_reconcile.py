"""Runs every scenario of reconcile.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("reconcile.feature")
