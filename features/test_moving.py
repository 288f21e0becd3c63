"""Runs every scenario of moving.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("moving.feature")
