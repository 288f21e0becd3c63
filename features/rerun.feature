Feature: Rerunning a run that has ended
  A run that has ended can be rerun, as VAMS reruns it: a new run of the workflow as it is now
  (its latest version) over the same inputs, writing to the same asset, triggered by whoever
  reruns it and in a group only when they name one. The new run names the run it reruns, which
  is left as it was. A redrive continues a run; a rerun starts a new one.

  Background:
    Given the asset "scans/bunny" holds the files "mesh.obj, notes.txt"

  Scenario: A failed run rerun once fixed succeeds as a new run over the same inputs
    Given the workflow "features/fails-until-fixed" is published from "fails_until_fixed.yaml"
    And the step "explode" fails until it is fixed
    And alice launched "features/fails-until-fixed" over "scans/bunny" writing to "scans/results" in group "nightly" as run "first"
    When the step "explode" is fixed
    And bob reruns run "first" in group "retry"
    Then the execution is SUCCEEDED
    And the execution reruns run "first", triggered by bob in group "retry"
    And the execution read the inputs of run "first" and writes to "scans/results"
    And run "first" is FAILED as it was
    And 2 executions are listed

  Scenario: A rerun without a group is in no group
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And alice launched "features/three-steps" over "scans/bunny" in group "nightly" as run "first"
    When alice reruns run "first"
    Then the execution reruns run "first", triggered by alice in no group

  Scenario: A rerun runs the workflow's latest version
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And alice launched "features/three-steps" over "scans/bunny" as run "first"
    And the workflow "features/three-steps" is published from "three_steps_v2.yaml"
    When alice reruns run "first"
    Then the execution is SUCCEEDED
    And the execution ran version 2 of the workflow

  Scenario: A run still going cannot be rerun
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/three-steps" is deployed to Step Functions
    And alice launched "features/three-steps" over "scans/bunny" as run "first"
    When alice reruns run "first"
    Then the rerun is refused: "only an execution that has ended can be rerun"
    And 1 execution is listed
