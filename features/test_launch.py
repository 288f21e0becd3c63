"""Runs every scenario of launch.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("launch.feature")
