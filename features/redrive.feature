Feature: Redriving a run that did not succeed
  A failed, aborted or timed-out run can be redriven: it continues from the step that did not
  succeed, with the same input, and the steps that succeeded are not run again. Seed 001's
  conditions decide, and a refusal says why in Step Functions' own words.

  Background:
    Given the asset "scans/bunny" holds the files "mesh.obj, notes.txt"

  @observed
  Scenario: A failed local run redriven runs the failed step again, and not the ones that succeeded
    Given the workflow "features/fails-until-fixed" is published from "fails_until_fixed.yaml"
    And the step "explode" fails until it is fixed
    When alice launches "features/fails-until-fixed" over "scans/bunny"
    Then the execution is FAILED with a redrive count of 0
    And the step "report" never started
    When the step "explode" is fixed
    And alice redrives the execution
    Then the execution is SUCCEEDED with a redrive count of 1
    And the execution has no error
    And the steps "prepare, explode, report" are SUCCEEDED
    And the step "prepare" ran once
    And the step "prepare" kept the row of its first run
    And the step "explode" ran twice
    And the step "explode" started again after the redrive
    And the step "report" ran once
    And the execution log holds "explode fixed"
    And the execution log holds "report ran"

  @observed
  Scenario: A run that failed again after a redrive can be redriven again
    Given the workflow "features/fails-until-fixed" is published from "fails_until_fixed.yaml"
    And the step "explode" fails until it is fixed
    When alice launches "features/fails-until-fixed" over "scans/bunny"
    And alice redrives the execution
    Then the execution is FAILED with a redrive count of 1
    And the step "explode" ran twice
    When the step "explode" is fixed
    And alice redrives the execution
    Then the execution is SUCCEEDED with a redrive count of 2
    And the step "prepare" ran once

  Scenario: A run that succeeded cannot be redriven
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    When alice launches "features/three-steps" over "scans/bunny"
    And alice redrives the execution
    Then the redrive is refused with "Execution is SUCCEEDED and cannot be redriven."
    And the execution is SUCCEEDED with a redrive count of 0

  Scenario: A run that is still running cannot be redriven
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/three-steps" is deployed to Step Functions
    When alice launches "features/three-steps" over "scans/bunny"
    And alice redrives the execution
    Then the redrive is refused with "Execution is RUNNING and cannot be redriven."
    And the execution is RUNNING with a redrive count of 0

  Scenario: A run that stopped 15 days ago is past the redrivable period
    Given the workflow "features/fails-midway" is published from "fails_midway.yaml"
    When alice launches "features/fails-midway" over "scans/bunny"
    And 15 days pass
    And alice redrives the execution
    Then the redrive is refused with "Execution redrivable period exceeded."
    And the execution is FAILED with a redrive count of 0

  Scenario: A run opened over a year ago has exceeded the max execution time
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/three-steps" is deployed to Step Functions
    When alice launches "features/three-steps" over "scans/bunny"
    And 366 days pass
    And alice aborts the execution
    And alice redrives the execution
    Then the redrive is refused with "Execution has exceeded the max execution time."
    And the execution is ABORTED with a redrive count of 0
