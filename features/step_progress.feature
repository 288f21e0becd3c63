Feature: Step progress
  Each step of a run goes NEW, then RUNNING, then a terminal status, one step after the other
  in chain order. A finished step is never changed again, and each step records the files it
  added to the run's shared output folder.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  @observed
  Scenario: Steps go from NEW to RUNNING to SUCCEEDED one at a time, in chain order
    When alice launches "features/three-steps" over "scans/bunny"
    Then the steps started one at a time in chain order
    And each step was RUNNING while the steps before it had SUCCEEDED and the steps after it were NEW
    And every step started after the step before it stopped, and stopped after it started
    And the step "report" is SUCCEEDED

  Scenario: A finished step is not changed by a late start or finish callback
    Given alice launched "features/three-steps" over "scans/bunny"
    When a late start callback arrives for the step "prepare"
    And a late finish callback with status FAILED arrives for the step "prepare"
    And a late finish callback with status ABORTED arrives for the step "report"
    Then the step "prepare" is unchanged since before the late callbacks
    And the step "report" is unchanged since before the late callbacks
    And the step "prepare" is SUCCEEDED
    And the execution is SUCCEEDED

  Scenario: Each intermediate step records the files it added to the shared output folder
    When alice launches "features/three-steps" over "scans/bunny"
    Then the step "prepare" recorded the output files "prepared.txt, shared.txt"
    And the step "transform" recorded the output files "middle.txt"
    And the step "report" recorded the output files "report.txt, metadata/report.txt.json"
    And no output file is recorded twice
