"""Runs every scenario of lists.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("lists.feature")
