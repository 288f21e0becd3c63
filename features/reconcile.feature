Feature: Keeping a run's status true when Step Functions changes it out of band
  A normal run records its own end, so reads rarely need to ask Step Functions anything. A read
  asks only when the run has no stop date and was last checked more than 30 seconds ago, and
  every check re-stamps the row. A run stopped directly in Step Functions is found by the first
  check after those 30 seconds and recorded with its stop date and Step Functions' error and cause
  (none when it was stopped without), its open steps closed.
  A run that has finished is never changed by a check.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"
    And the workflow "features/three-steps" is deployed to Step Functions

  Scenario: A run stopped directly in Step Functions is found by a read after 30 seconds, not before
    Given alice launched "features/three-steps" over "scans/bunny"
    And the execution has been read
    When the execution is stopped directly in Step Functions
    And 20 seconds pass
    Then a read shows the execution RUNNING
    And Step Functions was asked about the execution no times
    When 15 seconds pass
    Then a read shows the execution ABORTED
    And Step Functions was asked about the execution 1 time
    And the execution has a stop date after its start date
    And the execution has no error
    And the steps "prepare, transform, report" are ABORTED

  Scenario: The executions list finds a run stopped out of band too
    Given alice launched "features/three-steps" over "scans/bunny"
    When the execution is stopped directly in Step Functions
    Then the executions list shows the execution ABORTED
    And Step Functions was asked about the execution 1 time
    And the steps "prepare, transform, report" are ABORTED

  Scenario: Every check re-stamps the row, and a read within 30 seconds of one asks nothing
    Given alice launched "features/three-steps" over "scans/bunny"
    When the execution is read
    Then the stored row was stamped by that read
    And the execution is RUNNING
    When 31 seconds pass
    And the execution is read
    Then the stored row was stamped by that read
    And the stamp moved on by more than 30 seconds
    When 5 seconds pass
    And the execution is read
    Then the stamp did not change

  Scenario: A run that finished is never changed by a late check
    Given alice launched "features/three-steps" over "scans/bunny"
    And the end-state callback recorded the execution SUCCEEDED
    When the execution is stopped directly in Step Functions
    And 60 seconds pass
    Then a read shows the execution SUCCEEDED
    And the executions list shows the execution SUCCEEDED
    And Step Functions was asked about the execution no times
    And the stored main row is unchanged since it finished
