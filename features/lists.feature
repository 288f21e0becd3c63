Feature: Lists of executions
  Executions are listed newest first: all of them, those of one workflow, or those of one
  execution group, one page at a time.

  Background:
    Given the workflow "features/generate" is published from "generate.yaml"
    And the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: Every execution, newest first
    Given alice launched "features/generate" as run "A"
    And alice launched "features/three-steps" over "scans/bunny" as run "B"
    And bob launched "features/generate" as run "C"
    Then the list of all executions is "C, B, A"

  Scenario: The executions of one workflow
    Given alice launched "features/generate" as run "A"
    And alice launched "features/three-steps" over "scans/bunny" as run "B"
    And alice launched "features/generate" as run "C"
    Then the list of workflow "features/generate" is "C, A"
    And the list of workflow "features/three-steps" is "B"

  Scenario: The executions of one group; an ungrouped run is in no group
    Given alice launched "features/generate" in group "nightly" as run "A"
    And alice launched "features/generate" as run "B"
    And alice launched "features/generate" in group "weekly" as run "C"
    And alice launched "features/generate" in group "nightly" as run "D"
    Then the list of group "nightly" is "D, A"
    And the list of group "weekly" is "C"
    And the list of all executions is "D, C, B, A"

  Scenario: Paging walks every execution exactly once
    Given alice launched "features/generate" in group "nightly" as run "A"
    And alice launched "features/generate" in group "nightly" as run "B"
    And alice launched "features/three-steps" over "scans/bunny" in group "nightly" as run "C"
    And alice launched "features/generate" in group "nightly" as run "D"
    And alice launched "features/generate" in group "nightly" as run "E"
    Then paging through all executions 2 at a time gives "E, D | C, B | A"
    And paging through all executions 5 at a time gives "E, D, C, B, A"
    And paging through workflow "features/generate" 3 at a time gives "E, D, B | A"
    And paging through group "nightly" 4 at a time gives "E, D, C, B | A"
