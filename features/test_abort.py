"""Runs every scenario of abort.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("abort.feature")
