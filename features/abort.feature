Feature: Aborting a run
  Aborting a run that is still going stops it in its orchestrator and records it ABORTED, with a
  stop date and its log but no execution error (an abort is no failure message; its cause is kept
  apart); the steps that had not finished are ABORTED too, each saying it was aborted.
  A run that has finished is left exactly as it is.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: Aborting a run Step Functions is running stops it there and records it ABORTED
    Given the workflow "features/three-steps" is deployed to Step Functions
    When alice launches "features/three-steps" over "scans/bunny"
    And alice aborts the execution
    Then the execution is ABORTED
    And Step Functions holds the execution as ABORTED
    And Step Functions was asked to stop the execution 1 time
    And the execution has a stop date after its start date
    And the execution has no error
    And the steps "prepare, transform, report" are ABORTED
    And the step "prepare" has an error naming "wfx.Aborted"

  Scenario: Aborting a run that finished changes nothing and stops nothing
    Given the workflow "features/three-steps" is deployed to Step Functions
    When alice launches "features/three-steps" over "scans/bunny"
    And the end-state callback recorded the execution SUCCEEDED
    And alice aborts the execution
    Then the execution is SUCCEEDED
    And Step Functions was asked to stop the execution no times
    And the stored main row is unchanged since it finished

  Scenario: Aborting a local run that already failed leaves its failure as it was
    Given the workflow "features/fails-midway" is published from "fails_midway.yaml"
    When alice launches "features/fails-midway" over "scans/bunny"
    And alice aborts the execution
    Then the execution is FAILED
    And the execution error names "exit code 3"
    And the step "explode" is FAILED
    And the step "report" never started
