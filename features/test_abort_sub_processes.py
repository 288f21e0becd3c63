"""Runs every scenario of abort_sub_processes.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("abort_sub_processes.feature")
