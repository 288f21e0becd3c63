"""Runs every scenario of run_control.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("run_control.feature")
