"""Runs every scenario of sparse_keys.feature, once per storage adapter."""

from pytest_bdd import scenarios

scenarios("sparse_keys.feature")
