"""Runs every scenario of registration.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("registration.feature")
