Feature: Every run of a step is an attempt
  Seed 003: each run of a step is a TaskExecution attempt of its step; a retry or a redrive adds
  an attempt and never rewrites an earlier one.

  Background:
    Given the asset "scans/bunny" holds the files "mesh.obj, notes.txt"

  Scenario: A step that fails once succeeds on its retry, and both attempts are kept
    Given the workflow "features/flaky" is published from "flaky.yaml"
    And the step "flaky" fails the first time it runs
    When alice launches "features/flaky" over "scans/bunny"
    Then the execution is SUCCEEDED with a redrive count of 0
    And the steps "prepare, flaky, report" are SUCCEEDED
    And the attempts of the step "flaky" are "1 FAILED by start, 2 SUCCEEDED by retry"
    And the first attempt of the step "flaky" failed with "exit code 3"
    And the attempts of the step "prepare" are "1 SUCCEEDED by start"
    And the attempts of the step "report" are "1 SUCCEEDED by start"
    And the runner waited "1.0" seconds between attempts

  Scenario: A failed local run redriven keeps the failed attempt and adds the next
    Given the workflow "features/fails-until-fixed" is published from "fails_until_fixed.yaml"
    And the step "explode" fails until it is fixed
    When alice launches "features/fails-until-fixed" over "scans/bunny"
    Then the execution is FAILED with a redrive count of 0
    And the attempts of the step "explode" are "1 FAILED by start"
    And the step "report" has no attempts
    When the step "explode" is fixed
    And alice redrives the execution
    Then the execution is SUCCEEDED with a redrive count of 1
    And the attempts of the step "explode" are "1 FAILED by start, 2 SUCCEEDED by redrive"
    And the first attempt of the step "explode" failed with "exit code 3"
    And the attempts of the step "prepare" are "1 SUCCEEDED by start"
    And the attempts of the step "report" are "1 SUCCEEDED by start"
