"""Runs every scenario of step_progress.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("step_progress.feature")
