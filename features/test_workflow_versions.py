"""Runs every scenario of workflow_versions.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("workflow_versions.feature")
